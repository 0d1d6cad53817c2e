'use strict';
// Scenario `burst`: Answer a Burst Once (the trigger's burstQuietSeconds), in
// one real n8n (regular mode, SQLite), with n8n's own "wait Q seconds and
// continue" as the peer of the same run. What it checks is the requirement
// "the continuation starts within 1 s after the quiet period ends (median)".
//
// Ours: Omnichannel Trigger (message.created, customer messages of live chat
// conversations, quiet period Q) → No Operation ("Next"). The process that
// receives a burst's deliveries holds them for the quiet period; the newest
// message starts an execution that reads the conversation (one GET
// /messages) and continues; the others are answered without an execution.
// Peer: n8n's Webhook node → Wait node (After Time Interval, Q s) → No
// Operation ("Next"), in telegram conversations. Every message continues;
// the execution of the burst's last message is the one compared. Below 65 s
// the Wait node keeps its execution running on a timer, so this is the floor
// of "wait Q s, then continue" in n8n.
//
// The sandbox has no per-webhook filter, so each workflow's channel filter
// sits where its intake is: ours in the trigger (options.channelTypes), the
// peer's in a relay of the bench on 127.0.0.1, registered at the sandbox as a
// webhook for message.created, which checks the signature (as the trigger
// does) and forwards the customer messages of telegram conversations, byte
// for byte, to the Webhook node. Ours reaches n8n through the bench's
// transparent relay (WEBHOOK_URL, bench/lib/intakeRelay.js): one bench hop
// each, and both note when a delivery arrived.
//
// A sample: a new conversation, MESSAGES customer messages SPACING_MS apart
// (control POST /inbound), then every execution they started finishing.
// Latency: the start of "Next" in the run data (startTime) minus (the last
// message's created_at at the sandbox + Q). BENCH_SAMPLES samples each
// (default 30), alternating, after one uncounted round. Each of ours must have
// exactly one continuation carrying the three texts, the other executions
// ending without output; after the last round the bench waits once more for
// any late execution.
//
// `burst-queue` measures the same in queue mode (PostgreSQL, Redis, main,
// deliveries on the webhook process, the executions on 2 workers).
//
//   BENCH_SAMPLES=30 BENCH_BURST_QUIET=2 npm run bench -- --only burst
//   npm run bench -- --only burst-queue
const crypto = require('crypto');
const http = require('http');
const os = require('os');

const { freePort, startN8n, omnichannelCredential, sandboxClient, sleep, waitFor, workflows: w, N8N_VERSION, startProcesses, startQueueCluster } = require('../../harness');
const { startSandboxProcess } = require('../../sandbox/process');
const { startRelay } = require('../lib/intakeRelay');
const { boundedInteger } = require('../lib/options');
const { quantile } = require('../lib/summary');
const { hasValidSignature } = require('../../sandbox/webhooks/signing');

const MAX_SAMPLES = 500;
const DEFAULT_QUIET_SECONDS = 2;
/** The option's own range (nodes/OmnichannelTrigger/options/burst.ts, MAX_QUIET_SECONDS). */
const MAX_QUIET_SECONDS = 60;
const MESSAGES = 3;
const SPACING_MS = 200;
/** The requirement: the continuation starts within this long after the quiet period ends (median). */
const GOAL_MS = 1000;
/** The latency the other API scenarios give the sandbox: ours reads the conversation once after the quiet period. */
const SANDBOX_LATENCY_MS = 100;
const RATE_LIMIT = 60;
/** Time after the last round for a second continuation or a late retry to show up. */
const LATE_CHECK_MS = 3000;
const SAMPLE_TIMEOUT_MS = 120_000;

const TRIGGER = 'Customer writes';
const REQUEST = 'Request';
const WAIT = 'Wait';
const NEXT = 'Next';

const PEERS = {
	ours: { label: 'Omnichannel Trigger with Answer a Burst Once', id: 'benchBurstOurs01', channel: 'livechat' },
	waitNode: {
		label: "n8n's Webhook node → Wait node (After Time Interval, the same quiet period), reached through a filtering relay",
		id: 'benchBurstPeer01',
		channel: 'telegram',
		path: 'bench-burst-wait-node',
	},
};

function workflowsFor(credential, quietSeconds) {
	const next = () => w.node(NEXT, 'n8n-nodes-base.noOp');
	const ours = w.workflow({
		id: PEERS.ours.id,
		name: 'Bench: Answer a Burst Once',
		nodes: [
			w.omnichannelTrigger(TRIGGER, credential, {
				events: ['message.created'],
				options: { directions: ['customer'], channelTypes: [PEERS.ours.channel], burstQuietSeconds: quietSeconds },
			}),
			next(),
		],
		connections: w.chain(TRIGGER, NEXT),
	});
	const peer = w.workflow({
		id: PEERS.waitNode.id,
		name: 'Bench: Webhook then Wait for the quiet period',
		nodes: [
			w.node(REQUEST, 'n8n-nodes-base.webhook', { httpMethod: 'POST', path: PEERS.waitNode.path, responseMode: 'onReceived', options: {} }, {
				typeVersion: 2,
				webhookId: crypto.randomUUID(),
			}),
			w.node(WAIT, 'n8n-nodes-base.wait', { resume: 'timeInterval', amount: quietSeconds, unit: 'seconds' }, { typeVersion: 1.1, webhookId: crypto.randomUUID() }),
			next(),
		],
		connections: w.chain(REQUEST, WAIT, NEXT),
	});
	return [ours, peer];
}

/**
 * The peer's intake: a webhook receiver on 127.0.0.1 that checks the
 * sandbox's signature and forwards the customer messages of the peer's
 * channel to the Webhook node, answering the sandbox with n8n's answer; every
 * other event is answered 200 and goes nowhere.
 * @param {() => number} targetPort n8n's port (queue mode: the webhook process's, known later)
 */
async function startPeerRelay(targetPort, path, channel) {
	let secret;
	const agent = new http.Agent({ keepAlive: true });
	const arrivals = new Map();
	const acknowledgements = new Map();
	let passedBy = 0;
	const server = http.createServer((request, response) => {
		const arrivedAt = Date.now();
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('error', () => response.destroy());
		request.on('end', () => {
			const body = Buffer.concat(chunks);
			if (!hasValidSignature(secret, request.headers, body)) {
				response.writeHead(401).end();
				return;
			}
			const event = JSON.parse(body.toString('utf8'));
			const message = event.data;
			if (event.type !== 'message.created' || message?.from_customer !== true || message.channel !== channel) {
				passedBy++;
				response.writeHead(200).end();
				return;
			}
			// The first delivery's: a retry after the sender's timeout arrives later.
			if (!arrivals.has(message.id)) arrivals.set(message.id, arrivedAt);
			const headers = { 'content-type': 'application/json', 'content-length': body.length };
			const forward = http.request({ host: '127.0.0.1', port: targetPort(), method: 'POST', path: `/webhook/${path}`, headers, agent }, (answer) => {
				answer.resume();
				answer.on('end', () => {
					if (answer.statusCode < 300 && !acknowledgements.has(message.id)) acknowledgements.set(message.id, Date.now());
					response.writeHead(answer.statusCode).end();
				});
			});
			forward.on('error', () => response.writeHead(502).end());
			forward.end(body);
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}/`,
		setSecret: (value) => (secret = value),
		/** When the delivery of a message reached the relay. */
		arrivalOf: (messageId) => arrivals.get(messageId),
		/** When n8n first answered a delivery of a message with a 2xx. */
		acknowledgementOf: (messageId) => acknowledgements.get(messageId),
		passedBy: () => passedBy,
		async close() {
			agent.destroy();
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

/**
 * n8n (regular: one server; queue: main, webhook process, 2 workers) behind
 * the bench relay, both workflows published, the trigger's webhook and the
 * peer relay's registered at the sandbox.
 */
async function setUp(sandbox, queue, quietSeconds) {
	await sandbox.client.control('PUT', '/faults', { latency_ms: SANDBOX_LATENCY_MS, rate_limit_per_second: RATE_LIMIT });
	const credential = omnichannelCredential({ id: 'benchBurstCred01', name: 'Bench sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
	const tarball = process.env.BENCH_TARBALL || undefined;
	const port = queue ? undefined : await freePort();
	let cluster;
	// Deliveries go to the process that serves /webhook/: the webhook process in queue mode.
	const n8nPort = () => (queue ? cluster.webhook.port : port);
	const relay = await startRelay(n8nPort);
	const peerRelay = await startPeerRelay(n8nPort, PEERS.waitNode.path, PEERS.waitNode.channel);
	const env = { WEBHOOK_URL: `${relay.url}/` };
	let n8n;
	const dispose = async () => {
		await (cluster ?? n8n)?.dispose();
		await peerRelay.close();
		await relay.close();
	};
	try {
		cluster = queue ? await startQueueCluster({ start: false, tarball, env }) : undefined;
		n8n = cluster ? cluster.main : await startN8n({ start: false, port, tarball, env });
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows(workflowsFor(credential, quietSeconds));
		await (cluster ? startProcesses(cluster) : n8n.start());
		await n8n.setupOwnerAndApiKey();
		// The bench uses a key of its own, so that n8n's key keeps the whole rate.
		const { key } = await sandbox.client.control('POST', '/keys', { mode: 'test', scopes: ['channels:read', 'webhooks:read', 'webhooks:write'] });
		const client = sandboxClient(sandbox, key);
		for (const peer of Object.values(PEERS)) await n8n.publishWorkflow(peer.id);
		await waitFor(async () => (await client.listAll('/webhooks')).find((hook) => hook.url.startsWith(relay.url)), {
			what: 'the trigger to register its webhook',
			timeoutMs: 60_000,
		});
		// A published Webhook node is served a moment after publishing returns. The probe's execution is not
		// counted: it is listed (n8n answers the request before it saves the execution) before the samples start.
		await waitFor(async () => ((await probe(n8nPort())) === 200 ? true : undefined), {
			what: `${PEERS.waitNode.path} to accept a request`,
			timeoutMs: 60_000,
			intervalMs: 250,
		});
		await waitFor(async () => ((await n8n.api.listExecutions({ workflowId: PEERS.waitNode.id })).length > 0 ? true : undefined), {
			what: "the probe's execution",
			timeoutMs: 60_000,
			intervalMs: 250,
		});
		const hook = await client.api('POST', '/webhooks', { url: peerRelay.url, events: ['message.created'], description: 'bench burst peer relay' });
		peerRelay.setSecret(hook.secret);
		const channels = await client.listAll('/channels');
		const channelOf = (type) => {
			const found = channels.find((c) => c.type === type && c.is_active);
			if (!found) throw new Error(`the sandbox has no active ${type} channel`);
			return found;
		};
		return { n8n, relay, peerRelay, control: sandbox.client.control, channelOf, dispose };
	} catch (error) {
		await dispose();
		throw error;
	}
}

async function probe(port) {
	const response = await fetch(`http://127.0.0.1:${port}/webhook/${PEERS.waitNode.path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ probe: true }),
		signal: AbortSignal.timeout(30_000),
	});
	await response.text();
	return response.status;
}

/** Ids of every execution of the workflow, once none of them is running any more. */
async function settledIds(context, workflowId) {
	const executions = await waitFor(
		async () => {
			const list = await context.n8n.api.listExecutions({ workflowId });
			return list.every((e) => e.finished || e.stoppedAt) ? list : undefined;
		},
		{ what: `the executions of ${workflowId} to finish`, timeoutMs: SAMPLE_TIMEOUT_MS, intervalMs: 250 },
	);
	return new Set(executions.map((e) => String(e.id)));
}

/** A new conversation on the peer's channel, and MESSAGES customer messages SPACING_MS apart. */
async function sendBurst(context, peer, round) {
	const conversationId = (await context.control('POST', '/conversations', { channel_id: context.channelOf(peer.channel).id })).id;
	const sent = [];
	const start = Date.now();
	for (let index = 0; index < MESSAGES; index++) {
		const due = start + index * SPACING_MS;
		if (due > Date.now()) await sleep(due - Date.now());
		sent.push(await context.control('POST', '/inbound', { conversation_id: conversationId, text: `Burst ${round} message ${index + 1}` }));
	}
	return sent;
}

/**
 * The executions the burst started (at least `minimum`), once all have
 * finished, with their data. Ours starts one per burst when its messages
 * reach one n8n process: the others are answered without an execution.
 */
async function executionsOf(context, peer, round, quietSeconds, minimum) {
	const seen = context.seen[peer.id];
	// Nothing can finish before the quiet period: no polling of n8n while the executions wait.
	await sleep(quietSeconds * 1000);
	const fresh = await waitFor(
		async () => {
			const list = (await context.n8n.api.listExecutions({ workflowId: peer.id })).filter((e) => !seen.has(String(e.id)));
			return list.length >= minimum && list.every((e) => e.finished || e.stoppedAt) ? list : undefined;
		},
		{ what: `the executions of ${peer.id}'s burst ${round}`, timeoutMs: SAMPLE_TIMEOUT_MS, intervalMs: 100 },
	);
	const executions = [];
	for (const summary of fresh) {
		seen.add(String(summary.id));
		executions.push(await context.n8n.api.getExecution(summary.id));
	}
	return executions;
}

/** Where the time of one sample went, ms (n8n's clock and the sandbox's are the same machine's). */
function timing({ createdAt, deliveredAt, stepStartedAt, nextStartedAt, quietSeconds }) {
	const quietMs = quietSeconds * 1000;
	return {
		total: nextStartedAt - (createdAt + quietMs),
		toDelivery: deliveredAt === undefined ? null : deliveredAt - createdAt,
		toWaitingStep: stepStartedAt - createdAt,
		afterQuietInStep: nextStartedAt - (stepStartedAt + quietMs),
	};
}

/** One burst to ours: one continuation with every message, the others end without output. */
async function sampleOurs(context, round, quietSeconds) {
	const sent = await sendBurst(context, PEERS.ours, round);
	const last = sent.at(-1);
	const executions = await executionsOf(context, PEERS.ours, round, quietSeconds, 1);
	const problems = [];
	const continued = [];
	let endedInBurst = 0;
	for (const execution of executions) {
		const runData = execution.data?.resultData?.runData ?? {};
		const task = runData[TRIGGER]?.[0];
		const items = task?.data?.main?.[0] ?? [];
		const hints = (task?.hints ?? []).map((hint) => hint.message).join(' ');
		if (execution.status !== 'success') problems.push(`execution ${execution.id} ended ${execution.status}`);
		else if (items.length > 0 && runData[NEXT]) continued.push({ execution, task, item: items[0].json });
		else if (items.length === 0 && !runData[NEXT] && hints.includes('is part of a burst')) endedInBurst++;
		else problems.push(`execution ${execution.id}: ${items.length} items, Next ${runData[NEXT] ? 'ran' : 'did not run'}, hints ${JSON.stringify(hints)}`);
	}
	if (executions.length > MESSAGES) problems.push(`${executions.length} executions for ${MESSAGES} messages`);
	if (continued.length !== 1) problems.push(`${continued.length} continuations`);
	if (endedInBurst !== executions.length - 1) problems.push(`${endedInBurst} of ${executions.length} executions ended as part of the burst`);
	const [continuation] = continued;
	if (continuation) {
		const { burst, data } = continuation.item;
		const texts = sent.map((message) => message.content);
		if (data?.id !== last.id) problems.push(`the continuation is message ${data?.id}'s, not the last message's (${last.id})`);
		if (burst?.count !== MESSAGES || burst?.text !== texts.join('\n')) problems.push(`the continuation carries ${JSON.stringify(burst).slice(0, 300)}`);
	}
	if (continued.length !== 1) return { round, ok: false, problems };
	const delivery = context.relay.responses().find((r) => r.messageId === last.id && r.path.startsWith('/webhook/'));
	return {
		round,
		ok: problems.length === 0,
		problems,
		...timing({
			createdAt: Date.parse(last.created_at),
			deliveredAt: delivery?.arrivedAt,
			stepStartedAt: continuation.task.startTime,
			nextStartedAt: continuation.execution.data.resultData.runData[NEXT][0].startTime,
			quietSeconds,
		}),
	};
}

/** One burst to the peer: every message continues; the last message's execution is timed. */
async function sampleWaitNode(context, round, quietSeconds) {
	const sent = await sendBurst(context, PEERS.waitNode, round);
	const last = sent.at(-1);
	const executions = await executionsOf(context, PEERS.waitNode, round, quietSeconds, MESSAGES);
	const problems = [];
	const byMessage = new Map();
	for (const execution of executions) {
		const runData = execution.data?.resultData?.runData ?? {};
		const messageId = runData[REQUEST]?.[0]?.data?.main?.[0]?.[0]?.json?.body?.data?.id;
		if (execution.status !== 'success' || !runData[NEXT]) problems.push(`execution ${execution.id} ended ${execution.status} ${runData[NEXT] ? 'after' : 'before'} Next`);
		else byMessage.set(messageId, execution);
	}
	if (executions.length !== MESSAGES || !sent.every((message) => byMessage.has(message.id))) {
		problems.push(`${executions.length} executions, for messages ${JSON.stringify([...byMessage.keys()])}`);
	}
	const execution = byMessage.get(last.id);
	if (!execution) return { round, ok: false, problems };
	const runData = execution.data.resultData.runData;
	return {
		round,
		ok: problems.length === 0,
		problems,
		...timing({
			createdAt: Date.parse(last.created_at),
			deliveredAt: context.peerRelay.arrivalOf(last.id),
			stepStartedAt: runData[WAIT][0].startTime,
			nextStartedAt: runData[NEXT][0].startTime,
			quietSeconds,
		}),
	};
}

async function measureSamples(context, samples, quietSeconds, log) {
	context.seen = {};
	for (const peer of Object.values(PEERS)) context.seen[peer.id] = await settledIds(context, peer.id);
	const results = { ours: [], waitNode: [] };
	// Round -1 warms n8n up and is not counted; the peer that goes first alternates.
	for (let round = -1; round < samples; round++) {
		const order = round % 2 === 0 ? ['ours', 'waitNode'] : ['waitNode', 'ours'];
		for (const key of order) {
			const sample = key === 'ours' ? await sampleOurs(context, round, quietSeconds) : await sampleWaitNode(context, round, quietSeconds);
			if (!sample.ok) log(`${key} round ${round}: ${sample.problems.join('; ')}`);
			if (round >= 0) results[key].push(sample);
		}
		if (round >= 0 && (round + 1) % 10 === 0) log(`${round + 1}/${samples} rounds`);
	}
	// A second continuation or a late redelivery would start an execution after its round was counted.
	await sleep(quietSeconds * 1000 + LATE_CHECK_MS);
	const late = {};
	for (const peer of Object.values(PEERS)) {
		const ids = await settledIds(context, peer.id);
		late[peer.id === PEERS.ours.id ? 'ours' : 'waitNode'] = [...ids].filter((id) => !context.seen[peer.id].has(id));
	}
	return { results, late };
}

function summaryOf(samples) {
	const timed = samples.filter((sample) => typeof sample.total === 'number');
	const values = (part) => timed.map((sample) => sample[part]).filter((value) => typeof value === 'number');
	const total = values('total');
	if (total.length === 0) return { timed_samples: 0, median_ms: null, p90_ms: null, min_ms: null, max_ms: null };
	return {
		timed_samples: total.length,
		median_ms: quantile(total, 0.5),
		p90_ms: quantile(total, 0.9),
		min_ms: Math.min(...total),
		max_ms: Math.max(...total),
		median_to_delivery_ms: quantile(values('toDelivery'), 0.5),
		median_to_waiting_step_ms: quantile(values('toWaitingStep'), 0.5),
		median_after_quiet_in_step_ms: quantile(values('afterQuietInStep'), 0.5),
	};
}

function goalsOf(summary, ratio, results, late) {
	const oursOk = results.ours.filter((sample) => sample.ok).length;
	const peerOk = results.waitNode.filter((sample) => sample.ok).length;
	return [
		{
			goal: `the continuation starts within ${GOAL_MS} ms after the quiet period ends (median, ours)`,
			value: `${summary.ours.median_ms} ms`,
			met: summary.ours.median_ms !== null && summary.ours.median_ms <= GOAL_MS,
		},
		{
			goal: `every burst continued once, with its ${MESSAGES} messages; the other executions ended without output; no late execution`,
			value: `${oursOk}/${results.ours.length} bursts; ${late.ours.length} late`,
			met: oursOk === results.ours.length && late.ours.length === 0,
		},
		{ goal: "ours' median as a share of the Wait node's (information, no goal)", value: ratio === null ? 'n/a' : `${ratio}%`, met: null },
		{
			goal: 'the peer: every message continued once (a check of the bench)',
			value: `${peerOk}/${results.waitNode.length} bursts; ${late.waitNode.length} late`,
			met: peerOk === results.waitNode.length && late.waitNode.length === 0,
		},
	];
}

const metText = (met) => (met === null ? 'info' : met ? 'yes' : '**no**');

function markdown(results) {
	const p = results.peers;
	const load = (values) => values.map((value) => value.toFixed(2)).join(', ');
	const lines = [
		'# Answer a Burst Once benchmark',
		'',
		`Measured ${results.measured_at} in n8n ${results.n8n}, ${results.mode} mode, ${results.machine.cpus} CPUs, by \`${results.command}\`.`,
		`Load average (1, 5, 15 min) at the start: ${load(results.machine.load_average_start)}; at the end: ${load(results.machine.load_average_end)}.`,
		`n8n's expression engine: ${Object.keys(results.n8n_expression_engine_settings ?? {}).length ? Object.entries(results.n8n_expression_engine_settings).map(([k, v]) => `${k}=${v}`).join(', ') : "n8n's defaults"}.`,
		`Sandbox latency ${results.sandbox.latency_ms} ms (jitter ${results.sandbox.jitter_ms} ms), rate limit ${results.sandbox.rate_limit_per_second} requests/s per key, the same for both peers.`,
		'',
		`## From the quiet period's end to the next node (${results.samples} samples each, alternating)`,
		'',
		`Each sample: a new conversation, ${results.messages_per_burst} customer messages ${results.spacing_ms} ms apart, quiet period ${results.quiet_seconds} s. Latency: the start of "Next" minus (the last message's created_at + ${results.quiet_seconds} s).`,
		'',
		'| Peer | median ms | p90 ms | min ms | max ms | median: created → delivered | created → waiting step starts | after the quiet period in the step |',
		'|---|---|---|---|---|---|---|---|',
		...Object.values(p).map(
			(peer) =>
				`| ${peer.label} | ${peer.median_ms} | ${peer.p90_ms} | ${peer.min_ms} | ${peer.max_ms} | ${peer.median_to_delivery_ms} | ${peer.median_to_waiting_step_ms} | ${peer.median_after_quiet_in_step_ms} |`,
		),
		'',
		`Ours is **${results.latency_ratio_percent === null ? 'n/a' : `${results.latency_ratio_percent}%`}** of the Wait node's median.`,
		'',
		'Ours: sandbox → bench relay → n8n (Omnichannel Trigger: signature, filters, the ledger check, the quiet period, one GET /messages, the burst claim in the ledger) → Next.',
		'Peer: sandbox → peer relay (signature, channel filter) → n8n (Webhook node) → Wait node (timer) → Next.',
		'"Delivered": the delivery of the last message reached the bench relay (ours) or the peer relay. "Waiting step": the trigger step (ours; its quiet period starts after the ledger check) or the Wait node, by its startTime in the run data. "After the quiet period in the step": the start of Next minus (the step\'s start + the quiet period). The parts are medians of their own, so they need not add up to the median.',
		'',
		'## Goals',
		'',
		'| Goal | Value | Met |',
		'|---|---|---|',
		...results.goals.map((g) => `| ${g.goal} | ${g.value} | ${metText(g.met)} |`),
		'',
	];
	const problems = Object.entries(p).flatMap(([key, peer]) => peer.samples.filter((s) => !s.ok).map((s) => `- ${key}, round ${s.round}: ${s.problems.join('; ')}`));
	if (problems.length > 0) lines.push('## Samples that failed a check', '', ...problems, '');
	return lines.join('\n');
}

async function measure({ name, queue, log }) {
	const samples = boundedInteger('BENCH_SAMPLES', process.env.BENCH_SAMPLES, 30, MAX_SAMPLES);
	const quietSeconds = boundedInteger('BENCH_BURST_QUIET', process.env.BENCH_BURST_QUIET, DEFAULT_QUIET_SECONDS, MAX_QUIET_SECONDS);
	const sandbox = await startSandboxProcess();
	try {
		const context = await setUp(sandbox, queue, quietSeconds);
		try {
			const faults = await sandbox.client.control('GET', '/faults');
			const loadStart = os.loadavg();
			const { results, late } = await measureSamples(context, samples, quietSeconds, log);
			const loadEnd = os.loadavg();
			const summary = { ours: summaryOf(results.ours), waitNode: summaryOf(results.waitNode) };
			const ratio = summary.ours.median_ms !== null && summary.waitNode.median_ms > 0 ? Math.round((summary.ours.median_ms / summary.waitNode.median_ms) * 1000) / 10 : null;
			const json = {
				measured_at: new Date().toISOString(),
				n8n: N8N_VERSION,
				mode: queue ? 'queue (PostgreSQL, Redis, main, 2 workers, a webhook process)' : 'regular (SQLite)',
				machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30), load_average_start: loadStart, load_average_end: loadEnd },
				command: `BENCH_SAMPLES=${samples} BENCH_BURST_QUIET=${quietSeconds} npm run bench -- --only ${name}`,
				// n8n takes its settings from the bench's environment; the expression engine's decide much of a webhook's cost.
				n8n_expression_engine_settings: Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('N8N_EXPRESSION_ENGINE'))),
				sandbox: { latency_ms: faults.latency_ms, jitter_ms: faults.jitter_ms, rate_limit_per_second: faults.rate_limit_per_second },
				quiet_seconds: quietSeconds,
				messages_per_burst: MESSAGES,
				spacing_ms: SPACING_MS,
				samples,
				peers: Object.fromEntries(
					Object.entries(PEERS).map(([key, peer]) => [key, { label: peer.label, latency_ms: results[key].map((s) => s.total ?? null), ...summary[key], samples: results[key] }]),
				),
				latency_ratio_percent: ratio,
				late_executions: late,
				peer_relay_passed_by: context.peerRelay.passedBy(),
				goals: goalsOf(summary, ratio, results, late),
			};
			log(
				`${name}: ours median ${summary.ours.median_ms} ms (p90 ${summary.ours.p90_ms}), Wait node median ${summary.waitNode.median_ms} ms (p90 ${summary.waitNode.p90_ms}) after the quiet period: ours ${ratio}% of the peer; load ${loadStart[0].toFixed(2)} → ${loadEnd[0].toFixed(2)}`,
			);
			for (const goal of json.goals) log(`${goal.met === null ? 'info  ' : goal.met ? 'met   ' : 'MISSED'} ${goal.goal}: ${goal.value}`);
			return { json, markdown: markdown(json) };
		} finally {
			await context.dispose();
		}
	} finally {
		await sandbox.close();
	}
}

/** @param {{ log: (message: string) => void }} options */
const run = ({ log }) => measure({ name: 'burst', queue: false, log });
const runInQueueMode = ({ log }) => measure({ name: 'burst-queue', queue: true, log });

module.exports = { run, runInQueueMode, markdown, startPeerRelay };
