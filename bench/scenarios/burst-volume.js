'use strict';
// Scenario `burst-volume` (regular mode) and `burst-volume-queue` (queue
// mode: PostgreSQL, Redis, main, 1 webhook process, 2 workers at n8n's
// default concurrency of 10): Answer a Burst Once with many conversations at
// once, which is where executions holding worker slots through the quiet
// period would queue behind each other and starve every workflow on the
// workers.
//
// Workflows, all published in one n8n:
// - ours: Omnichannel Trigger (customer messages of live chat conversations,
//   Answer a Burst Once, quiet period Q = 5 s) → No Operation ("Next");
// - a second workflow on the same workers, as an auto-reply is: Omnichannel
//   Trigger (customer messages of telegram conversations, no option) → No
//   Operation ("Reply"), with a credential of its own key, so that the
//   bursts' reads do not share its rate limit;
// - the peer (level "at once" only): n8n's Webhook node → Wait node (Q s) →
//   No Operation, for customer messages of instagram conversations, through a
//   relay that checks the signature and filters the channel (the burst bench's).
//
// Levels:
// - "at once": CONVERSATIONS_AT_ONCE conversations (default 60), one customer
//   message each, all sent at the same moment; then the same to the peer.
// - "bursts": BURSTS conversations (default 200), each 3 customer messages over
//   2 s, the conversations started evenly so that the messages arrive at 70% of
//   the delivery rate this n8n took in the run's own intake calibration (the
//   second workflow's trigger, fed without holding, as the intake bench does).
// During each level, a probe message to the second workflow every PROBE_MS;
// before the levels, PROBES of them with n8n idle.
//
// Latency of a continuation, from three starts:
// - from the creation of the burst's last message at the service + Q: what
//   the customer waits beyond the quiet period; the goals are judged on it;
// - from n8n's acknowledgement of the burst's last delivery, so that intake
//   capacity is seen apart (the intake bench):
//   the peer acknowledges at once, then waits Q, so it is the start of "Next"
//   minus (acknowledgement + Q); ours holds the delivery through Q and
//   acknowledges it once its execution exists (enqueued, in queue mode), so
//   it is the start of "Next" minus the acknowledgement;
// - from the delivery's arrival at the bench's relay in front of n8n, + Q:
//   stricter, it adds the time n8n took to take the delivery in.
// The other workflow's probes are timed from both starts too (its
// acknowledgement is immediate). Every burst must continue exactly once with
// its own messages: lost (none) and doubled (more than one) are counted.
//
//   npm run bench -- --only burst-volume
//   BENCH_VOLUME_AT_ONCE=60 BENCH_VOLUME_BURSTS=200 npm run bench -- --only burst-volume-queue
//   BENCH_VOLUME_RATE=7.1: the bursts level at this many messages/s instead of 70% of the calibration, to compare two builds at one load
const crypto = require('crypto');
const os = require('os');

const { freePort, startN8n, omnichannelCredential, sandboxClient, sleep, waitFor, workflows: w, N8N_VERSION, startProcesses, startQueueCluster } = require('../../harness');
const { startSandboxProcess } = require('../../sandbox/process');
const { startRelay } = require('../lib/intakeRelay');
const { boundedInteger } = require('../lib/options');
const { quantile } = require('../lib/summary');
const { startPeerRelay } = require('./burst');
const { LAZY_ISOLATES } = require('./webhooks');

const QUIET_SECONDS = 5;
const MESSAGES_PER_BURST = 3;
const BURST_SPREAD_MS = 2000;
const RATE_SHARE = 0.7;
const PROBES = 20;
const PROBE_MS = 500;
const CALIBRATION_MESSAGES = 200;
const SANDBOX_LATENCY_MS = 100;
const RATE_LIMIT = 60;
/** Past the service's retries at 5 s, 30 s and 2 min: what has not run by then is counted lost. */
const LEVEL_TIMEOUT_MS = 4 * 60_000;
const GOALS = { medianMs: 1000, p95Ms: 3000, otherWorkflowFactor: 2 };

const OURS = { id: 'benchVolumeOurs1', trigger: 'Customer writes', next: 'Next', channel: 'livechat' };
const OTHER = { id: 'benchVolumeReply', trigger: 'Customer writes', next: 'Reply', channel: 'telegram' };
const PEER = { id: 'benchVolumePeer1', request: 'Request', wait: 'Wait', next: 'Next', channel: 'instagram', path: 'bench-volume-wait-node' };

function workflowsFor(ours, other) {
	const trigger = (credential, channel, options) =>
		w.omnichannelTrigger(OURS.trigger, credential, { events: ['message.created'], options: { directions: ['customer'], channelTypes: [channel], ...options } });
	const ourTrigger = trigger(ours, OURS.channel, { burstQuietSeconds: QUIET_SECONDS });
	const otherTrigger = trigger(other, OTHER.channel, {});
	// Every delivery reaches both triggers' webhooks: each is timed at its own.
	OURS.path = `/webhook/${ourTrigger.webhookId}/omnichannel`;
	OTHER.path = `/webhook/${otherTrigger.webhookId}/omnichannel`;
	return [
		w.workflow({
			id: OURS.id,
			name: 'Bench: bursts at volume',
			nodes: [ourTrigger, w.node(OURS.next, 'n8n-nodes-base.noOp')],
			connections: w.chain(OURS.trigger, OURS.next),
		}),
		w.workflow({
			id: OTHER.id,
			name: 'Bench: another workflow on the same workers',
			nodes: [otherTrigger, w.node(OTHER.next, 'n8n-nodes-base.noOp')],
			connections: w.chain(OTHER.trigger, OTHER.next),
		}),
		w.workflow({
			id: PEER.id,
			name: 'Bench: Webhook then Wait for the quiet period',
			nodes: [
				w.node(PEER.request, 'n8n-nodes-base.webhook', { httpMethod: 'POST', path: PEER.path, responseMode: 'onReceived', options: {} }, { typeVersion: 2, webhookId: crypto.randomUUID() }),
				w.node(PEER.wait, 'n8n-nodes-base.wait', { resume: 'timeInterval', amount: QUIET_SECONDS, unit: 'seconds' }, { typeVersion: 1.1, webhookId: crypto.randomUUID() }),
				w.node(PEER.next, 'n8n-nodes-base.noOp'),
			],
			connections: w.chain(PEER.request, PEER.wait, PEER.next),
		}),
	];
}

async function setUp(sandbox, queue, n8nEnv) {
	await sandbox.client.control('PUT', '/faults', { latency_ms: SANDBOX_LATENCY_MS, rate_limit_per_second: RATE_LIMIT });
	const keyFor = async () => (await sandbox.client.control('POST', '/keys', { mode: 'test' })).key;
	const ours = omnichannelCredential({ id: 'benchVolumeCred1', name: 'Bench bursts', baseUrl: sandbox.base_url, apiKey: sandbox.key });
	const other = omnichannelCredential({ id: 'benchVolumeCred2', name: 'Bench other', baseUrl: sandbox.base_url, apiKey: await keyFor() });
	const tarball = process.env.BENCH_TARBALL || undefined;
	const port = queue ? undefined : await freePort();
	let cluster;
	let n8n;
	const n8nPort = () => (queue ? cluster.webhook.port : port);
	const relay = await startRelay(n8nPort);
	const peerRelay = await startPeerRelay(n8nPort, PEER.path, PEER.channel);
	const dispose = async () => {
		await (cluster ?? n8n)?.dispose();
		await peerRelay.close();
		await relay.close();
	};
	try {
		const env = { ...n8nEnv, WEBHOOK_URL: `${relay.url}/` };
		cluster = queue ? await startQueueCluster({ workers: 2, start: false, tarball, env }) : undefined;
		n8n = cluster ? cluster.main : await startN8n({ start: false, port, tarball, env });
		await n8n.importCredentials([ours, other]);
		await n8n.importWorkflows(workflowsFor(ours, other));
		await (cluster ? startProcesses(cluster) : n8n.start());
		await n8n.setupOwnerAndApiKey();
		const client = sandboxClient(sandbox, await keyFor());
		for (const id of [OURS.id, OTHER.id, PEER.id]) await n8n.publishWorkflow(id);
		await waitFor(async () => ((await client.listAll('/webhooks')).filter((hook) => hook.url.startsWith(relay.url)).length >= 2 ? true : undefined), {
			what: 'both triggers to register their webhooks',
			timeoutMs: 60_000,
		});
		await waitFor(
			async () => {
				const response = await fetch(`http://127.0.0.1:${n8nPort()}/webhook/${PEER.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"probe":true}' });
				await response.text();
				return response.status === 200 ? true : undefined;
			},
			{ what: `${PEER.path} to accept a request`, timeoutMs: 60_000, intervalMs: 250 },
		);
		const hook = await client.api('POST', '/webhooks', { url: peerRelay.url, events: ['message.created'], description: 'bench volume peer relay' });
		peerRelay.setSecret(hook.secret);
		const channels = await client.listAll('/channels');
		const channelOf = (type) => channels.find((channel) => channel.type === type && channel.is_active) ?? failWith(`the sandbox has no active ${type} channel`);
		return { n8n, relay, peerRelay, control: sandbox.client.control, channelOf, dispose };
	} catch (error) {
		await dispose();
		throw error;
	}
}

function failWith(message) {
	throw new Error(message);
}

const conversationsOn = async (context, channel, count) =>
	await Promise.all(Array.from({ length: count }, async () => (await context.control('POST', '/conversations', { channel_id: context.channelOf(channel).id })).id));

/** A customer's message; its creation time is kept, the start the goals count from. */
const createdAt = new Map();
const inbound = async (context, conversationId, text) => {
	const message = await context.control('POST', '/inbound', { conversation_id: conversationId, text });
	createdAt.set(message.id, Date.parse(message.created_at));
	return message;
};

/**
 * Every execution of a workflow with its data, once `atLeast` exist and none
 * is running, or LEVEL_TIMEOUT_MS have passed: the counts then show what
 * never ran.
 */
async function finishedExecutions(context, workflowId, atLeast) {
	try {
		await waitFor(
			async () => {
				const list = await context.n8n.api.listExecutions({ workflowId });
				return list.length >= atLeast && list.every((e) => e.finished || e.stoppedAt) ? true : undefined;
			},
			{ what: `${atLeast} finished executions of ${workflowId}`, timeoutMs: LEVEL_TIMEOUT_MS, intervalMs: 1000 },
		);
	} catch {
		// Counted: fewer executions than messages.
	}
	return await context.n8n.api.listExecutions({ workflowId, includeData: true });
}

const startOf = (runData, node) => runData?.[node]?.[0]?.startTime;
const deliveriesOf = (context, workflow, messageId) => context.relay.responses().filter((r) => r.messageId === messageId && r.path === workflow.path);
const arrivalOf = (context, workflow, messageId) => deliveriesOf(context, workflow, messageId)[0]?.arrivedAt;
const acknowledgementOf = (context, workflow, messageId) => deliveriesOf(context, workflow, messageId).find((r) => r.status < 300)?.at;
const QUIET_MS = QUIET_SECONDS * 1000;

/** Latencies from each start (see the top of this file). */
const fromBoth = () => ({ fromCreation: [], fromAcknowledgement: [], fromArrival: [] });

/** Probes to the second workflow every PROBE_MS while `during` runs (or PROBES of them): the message ids. */
async function probeWhile(context, conversationId, during) {
	const sent = [];
	let done = false;
	const running = during().finally(() => (done = true));
	for (let index = 0; !done && index < 10_000; index++) {
		sent.push((await inbound(context, conversationId, `probe ${index}`)).id);
		await sleep(PROBE_MS);
	}
	return { result: await running, sent };
}

/** Trigger-to-Reply latency of the probes, ms (acknowledgement, and arrival at the relay → Reply's start). */
async function probeLatencies(context, sent, seen) {
	const executions = newSince(await finishedExecutions(context, OTHER.id, seen.size + sent.length), seen).filter((e) => e.data?.resultData?.runData?.[OTHER.next]);
	const byMessage = new Map(executions.map((e) => [e.data.resultData.runData[OTHER.trigger][0].data.main[0][0].json.data?.id, e]));
	const latencies = fromBoth();
	for (const id of sent) {
		const execution = byMessage.get(id);
		const [arrived, acknowledged] = [arrivalOf(context, OTHER, id), acknowledgementOf(context, OTHER, id)];
		if (!execution || !arrived || !acknowledged) continue;
		const next = startOf(execution.data.resultData.runData, OTHER.next);
		latencies.fromAcknowledgement.push(next - acknowledged);
		latencies.fromArrival.push(next - arrived);
	}
	return latencies;
}

/** The continuations of our workflow, checked burst by burst. */
function judgeBursts(context, executions, bursts) {
	const continuations = new Map();
	// Executions that ran "Next" with an input this bench cannot place: counted, and the first few kept for a look.
	const unplaced = [];
	for (const execution of executions) {
		const runData = execution.data?.resultData?.runData ?? {};
		if (!runData[OURS.next]) continue;
		const trigger = runData[OURS.trigger]?.[0];
		const item = trigger?.data?.main?.[0]?.[0]?.json;
		const conversationId = item?.data?.conversation_id;
		if (conversationId === undefined) {
			unplaced.push({ execution: execution.id, status: execution.status, mode: execution.mode, trigger_output: trigger?.data ?? null });
			continue;
		}
		const list = continuations.get(conversationId) ?? [];
		list.push({ item, nextStartedAt: startOf(runData, OURS.next), triggerStartedAt: trigger.startTime, triggerMs: trigger.executionTime });
		continuations.set(conversationId, list);
	}
	const counts = {
		bursts: bursts.length,
		continued_once: 0,
		lost: 0,
		doubled: 0,
		wrong_messages: 0,
		unplaced_continuations: unplaced.length,
		failed_executions: executions.filter((e) => e.status !== 'success').length,
	};
	const latencies = fromBoth();
	// Where the time after the acknowledgement goes: until the trigger's step starts, the step, then until "Next" starts.
	const phases = { untilStep: [], step: [], afterStep: [] };
	for (const burst of bursts) {
		const found = continuations.get(burst.conversationId) ?? [];
		if (found.length === 0) counts.lost++;
		else if (found.length > 1) counts.doubled++;
		else {
			const ids = found[0].item.burst?.messages?.map((message) => message.id) ?? [];
			if (JSON.stringify(ids) !== JSON.stringify(burst.messageIds)) counts.wrong_messages++;
			else counts.continued_once++;
			const last = burst.messageIds.at(-1);
			const [arrived, acknowledged] = [arrivalOf(context, OURS, last), acknowledgementOf(context, OURS, last)];
			if (arrived && acknowledged) {
				const { triggerStartedAt, triggerMs, nextStartedAt } = found[0];
				latencies.fromCreation.push(nextStartedAt - (createdAt.get(last) + QUIET_MS));
				latencies.fromAcknowledgement.push(nextStartedAt - acknowledged);
				latencies.fromArrival.push(nextStartedAt - (arrived + QUIET_MS));
				phases.untilStep.push(triggerStartedAt - acknowledged);
				phases.step.push(triggerMs);
				phases.afterStep.push(nextStartedAt - (triggerStartedAt + triggerMs));
			}
		}
	}
	return { counts, latencies, phases, unplaced: unplaced.slice(0, 3) };
}

/** The peer: each message continues after its Wait node; latency from its acknowledgement + Q, and from its arrival at the peer relay + Q. */
function judgePeer(context, executions, messageIds) {
	const latencies = fromBoth();
	let continued = 0;
	for (const execution of executions) {
		const runData = execution.data?.resultData?.runData ?? {};
		const messageId = runData[PEER.request]?.[0]?.data?.main?.[0]?.[0]?.json?.body?.data?.id;
		if (!messageIds.includes(messageId) || !runData[PEER.next]) continue;
		continued++;
		const next = startOf(runData, PEER.next);
		latencies.fromCreation.push(next - (createdAt.get(messageId) + QUIET_MS));
		latencies.fromAcknowledgement.push(next - (context.peerRelay.acknowledgementOf(messageId) + QUIET_MS));
		latencies.fromArrival.push(next - (context.peerRelay.arrivalOf(messageId) + QUIET_MS));
	}
	return { counts: { messages: messageIds.length, continued }, latencies };
}

const statsOfPhases = (phases) => ({ acknowledgement_to_step: stats(phases.untilStep), step: stats(phases.step), step_to_next: stats(phases.afterStep) });
const statsOfBoth = (latencies) => ({ from_creation: stats(latencies.fromCreation), from_acknowledgement: stats(latencies.fromAcknowledgement), from_arrival: stats(latencies.fromArrival) });

const stats = (values) =>
	values.length === 0
		? { samples: 0, median_ms: null, p95_ms: null, max_ms: null }
		: { samples: values.length, median_ms: quantile(values, 0.5), p95_ms: quantile(values, 0.95), max_ms: Math.max(...values) };

const idsOf = async (context, workflowId) => new Set((await context.n8n.api.listExecutions({ workflowId })).map((e) => String(e.id)));
const newSince = (executions, seen) => executions.filter((e) => !seen.has(String(e.id)));

/** Resolves once n8n answered a delivery of `messageId` to the other workflow's trigger with a 2xx. */
async function acknowledgedByOther(context, messageId) {
	await waitFor(
		async () => (acknowledgementOf(context, OTHER, messageId) === undefined ? undefined : true),
		{ what: `the acknowledgement of ${messageId}`, timeoutMs: 60_000, intervalMs: 10 },
	);
}

/** Deliveries/s this n8n acknowledges for the second workflow's trigger: CALIBRATION_MESSAGES in 20 conversations at once. */
async function calibrateIntake(context) {
	const conversations = await conversationsOn(context, OTHER.channel, 20);
	const started = Date.now();
	const ids = await Promise.all(
		conversations.map(async (conversationId, lane) => {
			const sent = [];
			for (let index = lane; index < CALIBRATION_MESSAGES; index += conversations.length) {
				const message = await inbound(context, conversationId, `calibration ${index}`);
				await acknowledgedByOther(context, message.id);
				sent.push(message.id);
			}
			return sent;
		}),
	);
	const seconds = (Date.now() - started) / 1000;
	return { messages: ids.flat().length, seconds, per_second: Math.round((ids.flat().length / seconds) * 10) / 10 };
}

async function levelAtOnce(context, count, probeConversation) {
	const seen = await idsOf(context, OURS.id);
	const otherSeen = await idsOf(context, OTHER.id);
	const conversations = await conversationsOn(context, OURS.channel, count);
	const { result: bursts, sent } = await probeWhile(context, probeConversation, async () => {
		const messages = await Promise.all(conversations.map(async (conversationId) => await inbound(context, conversationId, 'hello')));
		await finishedExecutions(context, OURS.id, seen.size + count);
		await sleep(QUIET_SECONDS * 1000 + 2000);
		return messages.map((message) => ({ conversationId: message.conversation_id, messageIds: [message.id] }));
	});
	const executions = newSince(await finishedExecutions(context, OURS.id, seen.size + count), seen);
	return { ...judgeBursts(context, executions, bursts), other: await probeLatencies(context, sent, otherSeen) };
}

async function levelPeerAtOnce(context, count) {
	const seen = await idsOf(context, PEER.id);
	const conversations = await conversationsOn(context, PEER.channel, count);
	const messages = await Promise.all(conversations.map(async (conversationId) => await inbound(context, conversationId, 'hello')));
	const executions = newSince(await finishedExecutions(context, PEER.id, seen.size + count), seen);
	return judgePeer(context, executions, messages.map((message) => message.id));
}

async function levelBursts(context, count, messagesPerSecond, probeConversation) {
	const seen = await idsOf(context, OURS.id);
	const otherSeen = await idsOf(context, OTHER.id);
	const conversations = await conversationsOn(context, OURS.channel, count);
	// Each conversation sends its 3 messages over 2 s; conversations start every `gap` ms.
	const gapMs = (MESSAGES_PER_BURST / messagesPerSecond) * 1000;
	const { result: bursts, sent } = await probeWhile(context, probeConversation, async () => {
		const start = Date.now();
		const all = await Promise.all(
			conversations.map(async (conversationId, index) => {
				const ids = [];
				for (let k = 0; k < MESSAGES_PER_BURST; k++) {
					const due = start + index * gapMs + (k * BURST_SPREAD_MS) / (MESSAGES_PER_BURST - 1);
					if (due > Date.now()) await sleep(due - Date.now());
					ids.push((await inbound(context, conversationId, `burst ${index} message ${k + 1}`)).id);
				}
				return { conversationId, messageIds: ids };
			}),
		);
		await finishedExecutions(context, OURS.id, seen.size + count);
		await sleep(QUIET_SECONDS * 1000 + 2000);
		return all;
	});
	const executions = newSince(await finishedExecutions(context, OURS.id, seen.size + count), seen);
	return { ...judgeBursts(context, executions, bursts), other: await probeLatencies(context, sent, otherSeen), messages_per_second: Math.round(messagesPerSecond * 10) / 10 };
}

async function measure({ name, queue, log, n8nEnv = {} }) {
	const atOnce = boundedInteger('BENCH_VOLUME_AT_ONCE', process.env.BENCH_VOLUME_AT_ONCE, 60, 500);
	const burstCount = boundedInteger('BENCH_VOLUME_BURSTS', process.env.BENCH_VOLUME_BURSTS, 200, 1000);
	const sandbox = await startSandboxProcess();
	try {
		const context = await setUp(sandbox, queue, n8nEnv);
		try {
			const [probeConversation] = await conversationsOn(context, OTHER.channel, 1);
			const loadStart = os.loadavg();
			log(`${name}: idle probes`);
			const idleSeen = await idsOf(context, OTHER.id);
			const idleSent = [];
			for (let index = 0; index < PROBES; index++) {
				idleSent.push((await inbound(context, probeConversation, `idle probe ${index}`)).id);
				await sleep(PROBE_MS);
			}
			const idle = statsOfBoth(await probeLatencies(context, idleSent, idleSeen));
			log(`${name}: intake calibration`);
			const intake = await calibrateIntake(context);
			log(`${name}: ${atOnce} conversations at once`);
			const once = await levelAtOnce(context, atOnce, probeConversation);
			const loadAfterOnce = os.loadavg();
			log(`${name}: the peer, ${atOnce} conversations at once`);
			const peer = await levelPeerAtOnce(context, atOnce);
			const fixedRate = Number(process.env.BENCH_VOLUME_RATE);
			const rate = fixedRate > 0 && fixedRate <= 50 ? fixedRate : Math.max(1, intake.per_second * RATE_SHARE);
			log(`${name}: ${burstCount} bursts of ${MESSAGES_PER_BURST} at ${rate.toFixed(1)} messages/s`);
			const bursts = await levelBursts(context, burstCount, rate, probeConversation);
			const loadEnd = os.loadavg();
			const levels = {
				at_once: { counts: once.counts, unplaced: once.unplaced, ours: statsOfBoth(once.latencies), phases: statsOfPhases(once.phases), other_workflow: statsOfBoth(once.other), load_average_after: loadAfterOnce },
				peer_at_once: { counts: peer.counts, latency: statsOfBoth(peer.latencies) },
				bursts: { counts: bursts.counts, unplaced: bursts.unplaced, messages_per_second: bursts.messages_per_second, ours: statsOfBoth(bursts.latencies), phases: statsOfPhases(bursts.phases), other_workflow: statsOfBoth(bursts.other), load_average_after: loadEnd },
			};
			const json = {
				measured_at: new Date().toISOString(),
				n8n: N8N_VERSION,
				mode: queue ? 'queue (PostgreSQL, Redis, main, 1 webhook process, 2 workers at concurrency 10)' : 'regular (SQLite)',
				n8n_env: n8nEnv,
				machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30), load_average_start: loadStart, load_average_end: loadEnd },
				command: `BENCH_VOLUME_AT_ONCE=${atOnce} BENCH_VOLUME_BURSTS=${burstCount} npm run bench -- --only ${name}`,
				sandbox: { latency_ms: SANDBOX_LATENCY_MS, rate_limit_per_second: RATE_LIMIT },
				quiet_seconds: QUIET_SECONDS,
				intake_calibration: intake,
				other_workflow_idle: idle,
				levels,
			};
			json.goals = goalsOf(json);
			for (const goal of json.goals) log(`${goal.met ? 'met   ' : 'MISSED'} ${goal.goal}: ${goal.value}`);
			return { json, markdown: markdown(json) };
		} finally {
			await context.dispose();
		}
	} finally {
		await sandbox.close();
	}
}

function goalsOf(json) {
	const { at_once: once, bursts } = json.levels;
	const exact = (counts) =>
		counts.continued_once === counts.bursts && counts.lost === 0 && counts.doubled === 0 && counts.wrong_messages === 0 && counts.unplaced_continuations === 0 && counts.failed_executions === 0;
	// The continuation is judged from the message's creation + the quiet period
	// (n8n answers a held delivery only after the quiet period, so its
	// acknowledgement is no start line), its value also giving the figures from
	// the acknowledgement and the arrival; the other workflow from the
	// acknowledgement and the arrival, the latter being what its customer waits.
	const timely = ({ from_creation: s }) => s.median_ms !== null && s.median_ms <= GOALS.medianMs && s.p95_ms <= GOALS.p95Ms;
	const calm = (during, start) => {
		const [now, idle] = [during[start].median_ms, json.other_workflow_idle[start].median_ms];
		return { value: `${now} ms during, ${idle} ms idle`, met: now !== null && idle !== null && now <= GOALS.otherWorkflowFactor * idle };
	};
	const counted = (counts) => `${counts.continued_once}/${counts.bursts} once, ${counts.lost} lost, ${counts.doubled} doubled, ${counts.wrong_messages} with other messages, ${counts.unplaced_continuations} unplaced, ${counts.failed_executions} failed`;
	const timed = ({ from_creation: c, from_acknowledgement: s, from_arrival: a }) =>
		`median ${c.median_ms} ms, p95 ${c.p95_ms} ms (from the acknowledgement: ${s.median_ms} ms, ${s.p95_ms} ms; from the arrival: ${a.median_ms} ms, ${a.p95_ms} ms)`;
	const other = GOALS.otherWorkflowFactor;
	return [
		{ goal: 'at once: every conversation continued exactly once with its own message', value: counted(once.counts), met: exact(once.counts) },
		{ goal: `at once: continuation median ≤ ${GOALS.medianMs} ms and p95 ≤ ${GOALS.p95Ms} ms after the quiet period`, value: timed(once.ours), met: timely(once.ours) },
		{ goal: `at once: the other workflow's median from acknowledgement within ${other}× its idle median`, ...calm(once.other_workflow, 'from_acknowledgement') },
		{ goal: `at once: the other workflow's median from arrival within ${other}× its idle median`, ...calm(once.other_workflow, 'from_arrival') },
		{ goal: 'bursts: every burst continued exactly once with its own messages', value: counted(bursts.counts), met: exact(bursts.counts) },
		{ goal: `bursts: continuation median ≤ ${GOALS.medianMs} ms and p95 ≤ ${GOALS.p95Ms} ms after the quiet period`, value: timed(bursts.ours), met: timely(bursts.ours) },
		{ goal: `bursts: the other workflow's median from acknowledgement within ${other}× its idle median`, ...calm(bursts.other_workflow, 'from_acknowledgement') },
		{ goal: `bursts: the other workflow's median from arrival within ${other}× its idle median`, ...calm(bursts.other_workflow, 'from_arrival') },
	];
}

const settingsOf = (env) => {
	const set = Object.entries(env ?? {}).map(([name, value]) => `${name}=${value}`);
	return set.length === 0 ? "n8n's defaults" : set.join(', ');
};

function markdown(json) {
	const load = (values) => values.map((value) => value.toFixed(2)).join(', ');
	const { at_once: once, peer_at_once: peer, bursts } = json.levels;
	const row = (label, { from_creation: c, from_acknowledgement: s, from_arrival: a }) =>
		`| ${label} | ${s.samples} | ${c?.median_ms ?? ''} | ${c?.p95_ms ?? ''} | ${s.median_ms} | ${s.p95_ms} | ${s.max_ms} | ${a.median_ms} | ${a.p95_ms} |`;
	return [
		'# Answer a Burst Once at volume',
		'',
		`Measured ${json.measured_at} in n8n ${json.n8n}, ${json.mode} mode, ${settingsOf(json.n8n_env)}, ${json.machine.cpus} CPUs, by \`${json.command}\`.`,
		`Load average (1, 5, 15 min) at the start: ${load(json.machine.load_average_start)}; after the "at once" level: ${load(once.load_average_after)}; at the end: ${load(json.machine.load_average_end)}.`,
		`Sandbox latency ${json.sandbox.latency_ms} ms, ${json.sandbox.rate_limit_per_second} requests/s per key. Quiet period ${json.quiet_seconds} s.`,
		`Intake calibration (the other workflow's trigger, 20 conversations in parallel, each waiting for its acknowledgement): ${json.intake_calibration.messages} deliveries in ${json.intake_calibration.seconds.toFixed(1)} s, ${json.intake_calibration.per_second}/s; the bursts level sends at ${bursts.messages_per_second} messages/s (${Number(process.env.BENCH_VOLUME_RATE) > 0 ? 'fixed by BENCH_VOLUME_RATE' : '70%'}).`,
		'',
		'Latency after the quiet period, from the creation of the burst\'s last message at the service + the quiet period (the goals\' measure: what the customer waits beyond the quiet period). From n8n\'s acknowledgement of the burst\'s last delivery: the peer acknowledges at once and then waits the quiet period, so its latency is the start of the next node minus (acknowledgement + quiet period); ours holds the delivery through the quiet period and acknowledges it once its execution exists, so its latency is the start of the next node minus the acknowledgement. From the arrival: the start of the next node minus (the arrival of that delivery at the relay in front of n8n + the quiet period), which adds the time n8n took to take the delivery in. The other workflow: its acknowledgement (and its arrival) → its next node.',
		'',
		'| What | samples | from creation + quiet: median ms | p95 ms | from acknowledgement: median ms | p95 ms | max ms | from arrival: median ms | p95 ms |',
		'|---|---|---|---|---|---|---|---|---|',
		row(`ours, ${once.counts.bursts} conversations at once`, once.ours),
		row(`peer (Webhook → Wait node), ${peer.counts.messages} conversations at once`, peer.latency),
		row(`ours, ${bursts.counts.bursts} bursts of 3 over 2 s`, bursts.ours),
		row('the other workflow, idle', json.other_workflow_idle),
		row('the other workflow, during "at once"', once.other_workflow),
		row('the other workflow, during "bursts"', bursts.other_workflow),
		'',
		'Where ours spent the time from the acknowledgement to the next node (median, p95 ms): until the trigger\'s step started; the step (the rest of the quiet period, the read of the conversation, the ledger); then until the next node started.',
		'',
		'| Level | acknowledgement → step | step | step → next node |',
		'|---|---|---|---|',
		...[['at once', once.phases], ['bursts', bursts.phases]].map(
			([label, p]) => `| ${label} | ${p.acknowledgement_to_step.median_ms}, ${p.acknowledgement_to_step.p95_ms} | ${p.step.median_ms}, ${p.step.p95_ms} | ${p.step_to_next.median_ms}, ${p.step_to_next.p95_ms} |`,
		),
		'',
		`Counts, at once: ${JSON.stringify(once.counts)}. Peer: ${JSON.stringify(peer.counts)}. Bursts: ${JSON.stringify(bursts.counts)}.`,
		'',
		'## Goals',
		'',
		'| Goal | Value | Met |',
		'|---|---|---|',
		...json.goals.map((g) => `| ${g.goal} | ${g.value} | ${g.met ? 'yes' : '**no**'} |`),
		'',
	].join('\n');
}

const run = ({ log }) => measure({ name: 'burst-volume', queue: false, log });
const runInQueueMode = ({ log }) => measure({ name: 'burst-volume-queue', queue: true, log });
/** Every n8n process of the run with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true (webhooks.js says what it changes). */
const runWithLazyIsolates = ({ log }) => measure({ name: 'burst-volume-lazy', queue: false, log, n8nEnv: LAZY_ISOLATES });
const runInQueueModeWithLazyIsolates = ({ log }) => measure({ name: 'burst-volume-queue-lazy', queue: true, log, n8nEnv: LAZY_ISOLATES });

module.exports = { run, runInQueueMode, runWithLazyIsolates, runInQueueModeWithLazyIsolates, markdown };
