'use strict';
// Scenario `burst-cap` (regular mode) and `burst-cap-queue` (queue mode:
// PostgreSQL, Redis, main, 1 webhook process, 2 workers): Answer a Burst
// Once with Burst Max Wait, for customers who keep writing, beside n8n's own
// floor and the hand-built Redis flow people use, all in one n8n.
//
// Workflows, all published in one n8n:
// - ours: Omnichannel Trigger (customer messages of live chat conversations,
//   quiet period Q = 5 s, Burst Max Wait M = 20 s) → No Operation ("Next");
// - the floor: n8n's Webhook node → No Operation ("Next"): FLOOR requests
//   sent at the same moment, each timed from its sending to the start of
//   Next: what n8n itself takes to start that many empty executions at once;
// - the peer (n8n's published templates' pattern): Webhook → Redis (push the
//   message to the conversation's list) → Wait (Q s) → Redis (read the list) →
//   IF (this message is the newest of the list, or the list's first message
//   is M s old) → Redis (delete the list) → No Operation ("Next"), for the
//   customer messages of telegram conversations, through the burst bench's
//   filtering relay; Redis from Debian's package, started by the bench (the
//   cluster's own in queue mode).
//
// Load, the same for ours and the peer, one after the other: CONVERSATIONS
// conversations (default 20), started at the same moment, each a customer
// writing every WRITE_EVERY_MS (2 s) for WRITING_SECONDS (default 60).
// Per continuation (ours: an item reaching Next; the peer: an IF true item):
// its messages, and its lateness after the cap: the start of Next minus (its
// first message's created_at + M), for the bursts the cap ended (ours:
// burst.endedBy "maxWait"; the peer: the customer wrote on after it). Every
// message must be in exactly one continuation: lost (in none) and doubled (in
// more than one) are counted; executions per message too.
//
// CPU: each n8n process's CPU time (/proc, all threads, its task runner
// too) over the floor and over ours, per execution, all of it: the rate
// each burns in the 10 s before the floor is reported beside, not
// subtracted (measured soon after start-up it overstates idle, and
// subtracting it zeroed the workers' CPU in a 150 s phase). BENCH_PROFILE=1 also samples the executing
// processes (the workers; the one n8n in regular mode) and, in queue mode,
// the webhook process with V8's profiler over the inspector during the floor
// and during ours (BENCH_PROFILE_DIR keeps the raw .cpuprofile files): where
// a continuation's CPU goes beside an empty execution's, and a delivery's.
// Profiling slows what it samples: its run's latencies are not the bench's
// figures.
// Ours' executions are read once n8n has answered a delivery of every message
// (the sender's log) and the relay holds none: a busy webhook process creates
// executions minutes after the customers stop, and a read between two of them
// would count the rest as lost.
// Past BENCH_CAP_SETTLE_SECONDS (default 240) after the customers stop, the
// bench stops waiting for a peer's deliveries and executions and counts what
// is still unanswered or unfinished (its messages as not continued) instead
// of failing: the load can be above what n8n takes in on the machine.
//
//   npm run bench -- --only burst-cap
//   BENCH_CAP_CONVERSATIONS=20 BENCH_CAP_SECONDS=60 npm run bench -- --only burst-cap-queue
const crypto = require('crypto');
const os = require('os');

const { freePort, startN8n, omnichannelCredential, sandboxClient, sleep, waitFor, workflows: w, N8N_VERSION, startProcesses, startQueueCluster } = require('../../harness');
const { startRedis } = require('../../harness/services');
const { startSandboxProcess } = require('../../sandbox/process');
const { startRelay } = require('../lib/intakeRelay');
const { boundedInteger } = require('../lib/options');
const { quantile } = require('../lib/summary');
const { treeCpuSeconds } = require('../lib/processCpu');
const { startProfiling, summariseProfile } = require('../lib/cpuProfile');
const { startPeerRelay } = require('./burst');

const QUIET_SECONDS = 5;
const MAX_WAIT_SECONDS = 20;
const WRITE_EVERY_MS = 2000;
const SANDBOX_LATENCY_MS = 100;
const RATE_LIMIT = 60;
const SETTLE_MS = boundedInteger('BENCH_CAP_SETTLE_SECONDS', process.env.BENCH_CAP_SETTLE_SECONDS, 240, 900) * 1000;
const IDLE_MS = 10_000;
const profiling = () => process.env.BENCH_PROFILE === '1';

const TRIGGER = 'Customer writes';
const REQUEST = 'Request';
const NEXT = 'Next';
const OURS = { id: 'benchCapOurs0001', channel: 'livechat', label: 'Omnichannel Trigger, Answer a Burst Once (5 s) with Burst Max Wait (20 s)' };
const FLOOR = { id: 'benchCapFloor001', path: 'bench-cap-floor', label: "n8n's floor: Webhook → No Operation, started at the same moment" };
const PEER = {
	id: 'benchCapRedis001',
	channel: 'telegram',
	path: 'bench-cap-redis',
	label: 'Hand-built: Webhook → Redis push → Wait 5 s → Redis read → IF newest or 20 s old → Redis delete → No Operation',
};

function workflowsFor(credential, redisCredential) {
	const next = () => w.node(NEXT, 'n8n-nodes-base.noOp');
	const webhook = (path) =>
		w.node(REQUEST, 'n8n-nodes-base.webhook', { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} }, { typeVersion: 2, webhookId: crypto.randomUUID() });
	const redis = (name, parameters) => w.node(name, 'n8n-nodes-base.redis', parameters, { credentials: { redis: { id: redisCredential.id, name: redisCredential.name } } });
	const key = "=bench-cap:{{ $('Request').item.json.body.data.conversation_id }}";
	const newestOrCapped =
		"={{ (() => { const list = ($json.list || []).map((entry) => JSON.parse(entry)); const me = $('Request').item.json.body.data.id; " +
		`return list.length > 0 && (list[list.length - 1].id === me || Date.now() - Date.parse(list[0].t) >= ${MAX_WAIT_SECONDS * 1000}); })() }}`;
	return [
		w.workflow({
			id: OURS.id,
			name: 'Bench: Answer a Burst Once with Max Wait',
			nodes: [
				w.omnichannelTrigger(TRIGGER, credential, {
					events: ['message.created'],
					options: { directions: ['customer'], channelTypes: [OURS.channel], burstQuietSeconds: QUIET_SECONDS, burstMaxWaitSeconds: MAX_WAIT_SECONDS },
				}),
				next(),
			],
			connections: w.chain(TRIGGER, NEXT),
		}),
		w.workflow({ id: FLOOR.id, name: 'Bench: Webhook then No Operation', nodes: [webhook(FLOOR.path), next()], connections: w.chain(REQUEST, NEXT) }),
		w.workflow({
			id: PEER.id,
			name: 'Bench: Redis list, Wait, IF newest or capped',
			nodes: [
				webhook(PEER.path),
				redis('Push', { operation: 'push', list: key, messageData: "={{ JSON.stringify({ id: $json.body.data.id, t: $json.body.data.created_at }) }}", tail: true }),
				w.node('Wait', 'n8n-nodes-base.wait', { resume: 'timeInterval', amount: QUIET_SECONDS, unit: 'seconds' }, { typeVersion: 1.1, webhookId: crypto.randomUUID() }),
				redis('Read', { operation: 'get', propertyName: 'list', key, keyType: 'list' }),
				w.node('Newest or capped', 'n8n-nodes-base.if', { conditions: { boolean: [{ value1: newestOrCapped, value2: true }] } }),
				redis('Clear', { operation: 'delete', key }),
				next(),
			],
			connections: [
				[REQUEST, 'Push'],
				['Push', 'Wait'],
				['Wait', 'Read'],
				['Read', 'Newest or capped'],
				['Newest or capped', 'Clear'],
				['Clear', NEXT],
			],
		}),
	];
}

async function setUp(sandbox, queue) {
	await sandbox.client.control('PUT', '/faults', { latency_ms: SANDBOX_LATENCY_MS, rate_limit_per_second: RATE_LIMIT });
	const credential = omnichannelCredential({ id: 'benchCapCred0001', name: 'Bench sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
	const tarball = process.env.BENCH_TARBALL || undefined;
	const port = queue ? undefined : await freePort();
	let cluster;
	let n8n;
	let redis;
	const n8nPort = () => (queue ? cluster.webhook.port : port);
	const relay = await startRelay(n8nPort);
	const peerRelay = await startPeerRelay(n8nPort, PEER.path, PEER.channel);
	const env = { WEBHOOK_URL: `${relay.url}/` };
	const dispose = async () => {
		await (cluster ?? n8n)?.dispose();
		await redis?.stop();
		await peerRelay.close();
		await relay.close();
	};
	try {
		// The processes that run executions: sampled over their inspector when profiling.
		const inspectPorts = {};
		const inspectArgs = async (role) => {
			if (!profiling()) return [];
			const inspectPort = await freePort();
			inspectPorts[role] = inspectPort;
			return [`--inspect=127.0.0.1:${inspectPort}`];
		};
		cluster = queue ? await startQueueCluster({ start: false, tarball, env }) : undefined;
		if (cluster) for (const [index, worker] of cluster.workers.entries()) worker.nodeArgs = await inspectArgs(`worker${index + 1}`);
		if (cluster) cluster.webhook.nodeArgs = await inspectArgs('webhook');
		n8n = cluster ? cluster.main : await startN8n({ start: false, port, tarball, env, nodeArgs: await inspectArgs('n8n') });
		if (!cluster) redis = await startRedis();
		const redisPort = cluster ? cluster.redis.port : redis.port;
		const redisCredential = { id: 'benchCapRedisCr1', name: 'Bench Redis', type: 'redis', data: { host: '127.0.0.1', port: redisPort, database: 0, password: '', ssl: false } };
		await n8n.importCredentials([credential, redisCredential]);
		await n8n.importWorkflows(workflowsFor(credential, redisCredential));
		await (cluster ? startProcesses(cluster) : n8n.start());
		await n8n.setupOwnerAndApiKey();
		const { key } = await sandbox.client.control('POST', '/keys', { mode: 'test', scopes: ['channels:read', 'webhooks:read', 'webhooks:write'] });
		const client = sandboxClient(sandbox, key);
		for (const id of [OURS.id, FLOOR.id, PEER.id]) await n8n.publishWorkflow(id);
		const oursHook = await waitFor(async () => (await client.listAll('/webhooks')).find((hook) => hook.url.startsWith(relay.url)), { what: 'the trigger to register its webhook', timeoutMs: 60_000 });
		await waitFor(async () => ((await post(n8nPort(), FLOOR.path, { probe: true })) === 200 ? true : undefined), { what: 'the floor webhook', timeoutMs: 60_000, intervalMs: 250 });
		const hook = await client.api('POST', '/webhooks', { url: peerRelay.url, events: ['message.created'], description: 'bench burst-cap peer relay' });
		peerRelay.setSecret(hook.secret);
		const channels = await client.listAll('/channels');
		const channelOf = (type) => channels.find((c) => c.type === type && c.is_active);
		await sleep(3000);
		const processes = cluster
			? { main: cluster.main, webhook: cluster.webhook, ...Object.fromEntries(cluster.workers.map((worker, index) => [`worker${index + 1}`, worker])) }
			: { n8n };
		const executing = cluster ? cluster.workers.map((_, index) => `worker${index + 1}`) : ['n8n'];
		return { n8n, n8nPort, control: sandbox.client.control, channelOf, dispose, processes, executing, inspectPorts, relay, oursWebhookId: oursHook.id };
	} catch (error) {
		await dispose();
		throw error;
	}
}

async function post(port, path, body) {
	const response = await fetch(`http://127.0.0.1:${port}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(60_000),
	});
	await response.text();
	return response.status;
}

/**
 * Every execution of a workflow not in `seen`, once all have finished, with its data.
 * With `partial`, past SETTLE_MS the finished ones and how many are not (else it throws).
 */
async function finishedExecutions(context, workflowId, seen, minimum, { partial = false } = {}) {
	const fresh = () => context.n8n.api.listExecutions({ workflowId }).then((list) => list.filter((e) => !seen.has(String(e.id))));
	const done = (e) => e.finished || e.stoppedAt;
	let list;
	// The same count twice in a row: n8n answers a delivery before it creates its execution.
	let before = -1;
	try {
		list = await waitFor(
			async () => {
				const now = await fresh();
				const steady = now.length === before;
				before = now.length;
				return steady && now.length >= minimum && now.every(done) ? now : undefined;
			},
			{ what: `the executions of ${workflowId}`, timeoutMs: SETTLE_MS, intervalMs: 1000 },
		);
	} catch (error) {
		if (!partial) throw error;
		list = await fresh();
	}
	const executions = [];
	for (const summary of list.filter(done)) executions.push(await context.n8n.api.getExecution(summary.id));
	executions.unfinished = Math.max(minimum, list.length) - executions.length;
	return executions;
}

/** CPU seconds of every n8n process now. */
const cpuNow = (context) => Object.fromEntries(Object.entries(context.processes).map(([role, n8n]) => [role, treeCpuSeconds(n8n.pid)]));

/** Runs `fn` and the CPU each process spent meanwhile (and, when profiling, the sampled processes' profiles). */
async function withCpu(context, fn) {
	const profilers = [];
	for (const [role, port] of Object.entries(context.inspectPorts)) profilers.push([role, await startProfiling(port)]);
	const before = cpuNow(context);
	const startedAt = Date.now();
	const value = await fn();
	const seconds = (Date.now() - startedAt) / 1000;
	const after = cpuNow(context);
	const profiles = {};
	for (const [role, profiler] of profilers) profiles[role] = await profiler.stop();
	const cpu = Object.fromEntries(Object.keys(after).map((role) => [role, after[role] - before[role]]));
	return { value, cpu, seconds, profiles };
}

/** What every process burns idle, per second, over IDLE_MS. */
async function idleRates(context) {
	const before = cpuNow(context);
	await sleep(IDLE_MS);
	const after = cpuNow(context);
	return Object.fromEntries(Object.keys(after).map((role) => [role, (after[role] - before[role]) / (IDLE_MS / 1000)]));
}

/** CPU ms per execution of each process, of the executing ones together, and of all. */
function cpuPer(context, cpu, executions) {
	const per = (seconds) => Math.round((seconds * 1000) / Math.max(1, executions));
	const sum = (roles) => roles.reduce((total, role) => total + cpu[role], 0);
	return {
		executions,
		executing_ms: per(sum(context.executing)),
		all_processes_ms: per(sum(Object.keys(cpu))),
		by_process_ms: Object.fromEntries(Object.entries(cpu).map(([role, seconds]) => [role, per(seconds)])),
	};
}

/** The executing processes' profiles, pooled, per execution: busy time, by bucket, the busiest functions and ours. */
function profilePer(profiles, executions) {
	if (profiles.length === 0) return null;
	const per = (ms) => Math.round((ms / Math.max(1, executions)) * 10) / 10;
	const pooled = { busy: 0, buckets: new Map(), top: new Map(), ours: new Map(), activities: new Map() };
	const add = (map, entries) => {
		for (const { name, ms } of entries) map.set(name, (map.get(name) ?? 0) + ms);
	};
	for (const profile of profiles) {
		const summary = summariseProfile(profile, { topFunctions: 400 });
		pooled.busy += summary.busyMs;
		add(pooled.buckets, summary.buckets);
		add(pooled.top, summary.top.slice(0, 15));
		add(pooled.ours, summary.top.filter(({ name }) => name.includes('n8n-nodes-omnichannel/')));
		add(pooled.activities, summary.activities);
	}
	const list = (map, count) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, ms]) => ({ name, ms: per(ms) }));
	return { busy_ms: per(pooled.busy), buckets: list(pooled.buckets, 12), top: list(pooled.top, 10), ours: list(pooled.ours, 10), activities: list(pooled.activities, 10) };
}

const stats = (values) => {
	const numbers = values.filter((value) => Number.isFinite(value));
	if (numbers.length === 0) return { n: 0, median_ms: null, p95_ms: null, max_ms: null };
	return { n: numbers.length, median_ms: Math.round(quantile(numbers, 0.5)), p95_ms: Math.round(quantile(numbers, 0.95)), max_ms: Math.round(Math.max(...numbers)) };
};

async function measureFloor(context, count) {
	const seen = new Set((await context.n8n.api.listExecutions({ workflowId: FLOOR.id })).map((e) => String(e.id)));
	const sentAt = Date.now();
	const statuses = await Promise.all(Array.from({ length: count }, async (_, index) => await post(context.n8nPort(), FLOOR.path, { index })));
	const executions = await finishedExecutions(context, FLOOR.id, seen, count);
	const lateness = executions.map((execution) => execution.data?.resultData?.runData?.[NEXT]?.[0]?.startTime - sentAt);
	return { requests: count, answered_200: statuses.filter((status) => status === 200).length, executions: executions.length, ...stats(lateness) };
}

/** CONVERSATIONS customers on `channel`, all starting at once, each writing every WRITE_EVERY_MS for `seconds`. */
async function write(context, channel, conversations, seconds, tag) {
	const ids = await Promise.all(Array.from({ length: conversations }, async () => (await context.control('POST', '/conversations', { channel_id: context.channelOf(channel).id })).id));
	const perConversation = Math.floor((seconds * 1000) / WRITE_EVERY_MS) + 1;
	const start = Date.now() + 500;
	const sent = new Map(ids.map((id) => [id, []]));
	await Promise.all(
		ids.map(async (conversationId) => {
			for (let index = 0; index < perConversation; index++) {
				const due = start + index * WRITE_EVERY_MS;
				if (due > Date.now()) await sleep(due - Date.now());
				sent.get(conversationId).push(await context.control('POST', '/inbound', { conversation_id: conversationId, text: `${tag} line ${index + 1}` }));
			}
		}),
	);
	return sent;
}

/** Lost, doubled, out of order, executions per message and the capped continuations' lateness, from the continuations. */
function account(sent, continuations, executions) {
	const all = [...sent.values()].flat();
	const times = new Map();
	for (const continuation of continuations) for (const id of continuation.ids) times.set(id, (times.get(id) ?? 0) + 1);
	const lost = all.filter((m) => !times.has(m.id)).length;
	const doubled = all.filter((m) => (times.get(m.id) ?? 0) > 1).length;
	const created = new Map(all.map((m) => [m.id, Date.parse(m.created_at)]));
	const cappedLateness = continuations.filter((c) => c.capped).map((c) => c.nextStartedAt - (created.get(c.ids[0]) + MAX_WAIT_SECONDS * 1000));
	const firstCapped = continuations.filter((c) => c.capped).map((c) => c.nextStartedAt - created.get(c.ids[0]));
	return {
		messages: all.length,
		continuations: continuations.length,
		capped_continuations: cappedLateness.length,
		lost,
		doubled,
		executions,
		executions_per_message: Math.round((executions / all.length) * 100) / 100,
		after_cap: stats(cappedLateness),
		since_first_message: stats(firstCapped),
	};
}

/**
 * Waits until n8n has answered a delivery of every sent message and holds none: a busy webhook process turns
 * deliveries into executions minutes late, and executions read before then count the rest as lost. Past
 * SETTLE_MS, how many messages have no answered delivery yet.
 */
async function deliveriesAnswered(context, sent) {
	const ids = [...sent.values()].flat().map((m) => m.id);
	const answered = async () => {
		const attempts = await context.control('GET', `/deliveries?webhook_id=${context.oursWebhookId}`);
		const ok = new Set(attempts.filter((a) => a.ok).map((a) => a.data_id));
		return ids.filter((id) => !ok.has(id)).length;
	};
	try {
		// Every message's delivery chain ended (the sender retries nothing more) and nothing is on its way through n8n.
		await waitFor(async () => (context.relay.pending() === 0 && (await answered()) === 0 ? true : undefined), {
			what: 'an answered delivery of every message of ours',
			timeoutMs: SETTLE_MS,
			intervalMs: 1000,
		});
		return 0;
	} catch {
		return await answered();
	}
}

async function measureOurs(context, conversations, seconds) {
	const seen = new Set((await context.n8n.api.listExecutions({ workflowId: OURS.id })).map((e) => String(e.id)));
	const sent = await write(context, OURS.channel, conversations, seconds, 'ours');
	await sleep((QUIET_SECONDS + 5) * 1000);
	const unanswered = await deliveriesAnswered(context, sent);
	const executions = await finishedExecutions(context, OURS.id, seen, conversations, { partial: true });
	const continuations = [];
	// Items that reached Next without a burst: none expected; kept (their shape, not their text) to say what they were.
	const withoutBurst = [];
	for (const execution of executions) {
		const runData = execution.data?.resultData?.runData ?? {};
		if (!runData[NEXT]) continue;
		const nextStartedAt = runData[NEXT][0].startTime;
		for (const item of runData[TRIGGER]?.[0]?.data?.main?.[0] ?? []) {
			const burst = item.json?.burst;
			if (!burst?.messages) {
				// The keys tell a plain event (type, data, …, quietWaitedMs) from n8n's crash-recovery placeholder (isArtificialRecoveredEventItem).
				withoutBurst.push({
					execution: execution.id,
					status: execution.status,
					mode: execution.mode,
					trigger_status: runData[TRIGGER]?.[0]?.executionStatus,
					keys: Object.keys(item.json ?? {}),
					type: item.json?.type,
					from_customer: item.json?.data?.from_customer,
				});
				continue;
			}
			continuations.push({ ids: burst.messages.map((m) => m.id), capped: burst.endedBy === 'maxWait', nextStartedAt });
		}
	}
	return {
		...account(sent, continuations, executions.length),
		executions_unfinished_at_bound: executions.unfinished,
		deliveries_unanswered_at_bound: unanswered,
		items_without_burst: withoutBurst.length,
		items_without_burst_examples: withoutBurst.slice(0, 5),
	};
}

async function measurePeer(context, conversations, seconds) {
	const seen = new Set((await context.n8n.api.listExecutions({ workflowId: PEER.id })).map((e) => String(e.id)));
	const sent = await write(context, PEER.channel, conversations, seconds, 'peer');
	await sleep((QUIET_SECONDS + 5) * 1000);
	const total = [...sent.values()].flat().length;
	const executions = await finishedExecutions(context, PEER.id, seen, total, { partial: true });
	const lastCreated = new Map();
	for (const messages of sent.values()) lastCreated.set(messages[0].conversation_id, Date.parse(messages.at(-1).created_at));
	const continuations = [];
	// Continuations whose IF item holds no list (as read): counted, in no continuation above.
	let withoutList = 0;
	for (const execution of executions) {
		const runData = execution.data?.resultData?.runData ?? {};
		if (!runData[NEXT]) continue;
		const nextStartedAt = runData[NEXT][0].startTime;
		const item = runData['Newest or capped']?.[0]?.data?.main?.[0]?.[0]?.json;
		if (!Array.isArray(item?.list)) {
			withoutList++;
			continue;
		}
		const list = item.list.map((entry) => JSON.parse(entry));
		const conversationId = runData[REQUEST][0].data.main[0][0].json.body.data.conversation_id;
		// Capped: the customer wrote on after this continuation.
		continuations.push({ ids: list.map((entry) => entry.id), capped: lastCreated.get(conversationId) > nextStartedAt, nextStartedAt });
	}
	return { ...account(sent, continuations, executions.length), executions_unfinished_at_bound: executions.unfinished, continuations_without_list: withoutList };
}

function markdown(json) {
	const load = (values) => values.map((value) => value.toFixed(2)).join(', ');
	const row = (label, r) =>
		`| ${label} | ${r.messages} | ${r.continuations} (${r.capped_continuations} capped) | ${r.lost} | ${r.doubled} | ${r.executions_per_message} | ${r.after_cap.median_ms} | ${r.after_cap.p95_ms} | ${r.after_cap.max_ms} |`;
	return [
		'# Answer a Burst Once with Burst Max Wait benchmark',
		'',
		`Measured ${json.measured_at} in n8n ${json.n8n}, ${json.mode} mode, ${json.machine.cpus} CPUs, by \`${json.command}\`.`,
		`Load average (1, 5, 15 min) at the start: ${load(json.machine.load_average_start)}; at the end: ${load(json.machine.load_average_end)}.`,
		`n8n's expression engine: ${Object.keys(json.n8n_expression_engine_settings).length ? Object.entries(json.n8n_expression_engine_settings).map(([k, v]) => `${k}=${v}`).join(', ') : "n8n's defaults"}.`,
		`Sandbox latency ${SANDBOX_LATENCY_MS} ms, rate limit ${RATE_LIMIT} requests/s per key. Quiet period ${QUIET_SECONDS} s, Max Wait ${MAX_WAIT_SECONDS} s.`,
		'',
		`## n8n's floor: ${json.floor.requests} Webhook → No Operation executions started at the same moment`,
		'',
		`From sending to the start of No Operation: median ${json.floor.median_ms} ms, p95 ${json.floor.p95_ms} ms, max ${json.floor.max_ms} ms (${json.floor.executions} executions).`,
		'',
		`## ${json.conversations} customers writing every ${WRITE_EVERY_MS / 1000} s for ${json.writing_seconds} s, all starting at once`,
		'',
		'Lateness after the cap: the start of Next minus (the burst\'s first message\'s created_at + Max Wait), for the bursts the cap ended.',
		'',
		'| Peer | Messages | Continuations | Lost | Doubled | Executions per message | After the cap: median ms | p95 ms | max ms |',
		'|---|---|---|---|---|---|---|---|---|',
		row(OURS.label, json.ours),
		row(PEER.label, json.peer),
		'',
		`Ours' capped continuations after the cap, beside the floor: median ${json.ours.after_cap.median_ms - json.floor.median_ms} ms above the floor's median, p95 ${json.ours.after_cap.p95_ms - json.floor.p95_ms} ms above its p95.`,
		...(json.ours.items_without_burst ? ['', `Ours: ${json.ours.items_without_burst} items reached Next without a burst (examples in the JSON); they are in no continuation above.`] : []),
		...[['Ours', json.ours], ['The peer', json.peer]]
			.filter(([, r]) => r.executions_unfinished_at_bound)
			.flatMap(([label, r]) => ['', `${label}: ${r.executions_unfinished_at_bound} executions had not finished ${SETTLE_MS / 1000} s after its customers stopped (the bench stopped waiting); the messages of none finished count as lost above.`]),
		...(json.cpu ? cpuMarkdown(json) : []),
		'',
	].join('\n');
}

function cpuMarkdown(json) {
	const roles = Object.keys(json.cpu.floor.by_process_ms);
	const row = (label, c) => `| ${label} | ${c.executions} | **${c.executing_ms}** | ${c.all_processes_ms} | ${roles.map((role) => c.by_process_ms[role]).join(' | ')} |`;
	const lines = [
		'',
		'## CPU per execution',
		'',
		`Each n8n process's CPU time (/proc: all its threads and its task runner) over the phase, divided by the phase's executions (the floor: ${json.cpu.floor_seconds} s; ours: ${json.cpu.ours_seconds} s, its customers' deliveries included). Beside, not subtracted, what each burned per second in the ${IDLE_MS / 1000} s before the floor: ${Object.entries(json.cpu.idle_cpu_ms_per_s).map(([role, ms]) => `${role} ${ms} ms`).join(', ')}. Executing: ${json.cpu.executing.join(', ')}.`,
		'',
		`| Phase | Executions | Executing processes, ms per execution | All processes, ms per execution | ${roles.join(' | ')} |`,
		`|---|---:|---:|---:|${roles.map(() => '---:').join('|')}|`,
		row("n8n's floor (Webhook → No Operation)", json.cpu.floor),
		row('Ours (the whole phase: every delivery, held or not, and the continuations)', json.cpu.ours),
	];
	if (json.cpu.profile_floor && json.cpu.profile_ours) {
		const f = json.cpu.profile_floor;
		const o = json.cpu.profile_ours;
		const format = (entries) => entries.map(({ name, ms }) => `\`${name}\` ${ms}`).join('; ');
		const buckets = [...new Set([...o.buckets, ...f.buckets].map(({ name }) => name))];
		const at = (entries, name) => entries.find((entry) => entry.name === name)?.ms ?? 0;
		lines.push(
			'',
			"V8's profile of the executing processes' main threads (BENCH_PROFILE=1), busy self time in ms per execution:",
			'',
			'| Where | Floor | Ours |',
			'|---|---:|---:|',
			`| **all** | **${f.busy_ms}** | **${o.busy_ms}** |`,
			...buckets.map((name) => `| ${name} | ${at(f.buckets, name)} | ${at(o.buckets, name)} |`),
			...o.activities.filter(({ ms }) => ms > 0).map(({ name, ms }) => `| ${name} (inclusive) | ${at(f.activities, name)} | ${ms} |`),
			'',
			`Ours, busiest functions (ms per execution): ${format(o.top)}.`,
			'',
			`Ours, this package's busiest functions (self, ms per execution): ${format(o.ours)}.`,
			'',
			`Floor, busiest functions (ms per execution): ${format(f.top)}.`,
		);
	}
	const wf = json.cpu.profile_webhook_floor;
	const wo = json.cpu.profile_webhook_ours;
	if (wf && wo) {
		const format = (entries) => entries.map(({ name, ms }) => `\`${name}\` ${ms}`).join('; ');
		const at = (entries, name) => entries.find((entry) => entry.name === name)?.ms ?? 0;
		const buckets = [...new Set([...wo.buckets, ...wf.buckets].map(({ name }) => name))];
		lines.push(
			'',
			"V8's profile of the webhook process's main thread (BENCH_PROFILE=1), busy self time in ms per request (the floor) and per customer message (ours):",
			'',
			'| Where | Floor, per request | Ours, per message |',
			'|---|---:|---:|',
			`| **all** | **${wf.busy_ms}** | **${wo.busy_ms}** |`,
			...buckets.map((name) => `| ${name} | ${at(wf.buckets, name)} | ${at(wo.buckets, name)} |`),
			...wo.activities.filter(({ ms }) => ms > 0).map(({ name, ms }) => `| ${name} (inclusive) | ${at(wf.activities, name)} | ${ms} |`),
			'',
			`Ours, the webhook process's busiest functions (ms per message): ${format(wo.top)}.`,
			'',
			`Ours, this package's busiest functions there (self, ms per message): ${format(wo.ours)}.`,
		);
	}
	return lines;
}

async function measure({ name, queue, log }) {
	const conversations = boundedInteger('BENCH_CAP_CONVERSATIONS', process.env.BENCH_CAP_CONVERSATIONS, 20, 60);
	const seconds = boundedInteger('BENCH_CAP_SECONDS', process.env.BENCH_CAP_SECONDS, 60, 300);
	const floorCount = boundedInteger('BENCH_CAP_FLOOR', process.env.BENCH_CAP_FLOOR, 60, 200);
	const sandbox = await startSandboxProcess();
	try {
		const context = await setUp(sandbox, queue);
		try {
			const loadStart = os.loadavg();
			const idle = await idleRates(context);
			log(`${name}: the floor, ${floorCount} at once`);
			const floorRun = await withCpu(context, () => measureFloor(context, floorCount));
			const floor = floorRun.value;
			log(`${name}: ours, ${conversations} customers writing for ${seconds} s`);
			const oursRun = await withCpu(context, () => measureOurs(context, conversations, seconds));
			const ours = oursRun.value;
			// Logged at once: a failure in the peer's phase keeps these.
			log(`${name}: floor ${JSON.stringify(floor)}; ours ${JSON.stringify(ours)}; CPU s floor ${JSON.stringify(floorRun.cpu)}, ours ${JSON.stringify(oursRun.cpu)}`);
			const executingProfiles = (run) => context.executing.filter((role) => run.profiles[role]).map((role) => run.profiles[role]);
			const cpu = {
				idle_cpu_ms_per_s: Object.fromEntries(Object.entries(idle).map(([role, rate]) => [role, Math.round(rate * 1000)])),
				floor_seconds: Math.round(floorRun.seconds),
				ours_seconds: Math.round(oursRun.seconds),
				executing: context.executing,
				floor: cpuPer(context, floorRun.cpu, floor.executions),
				ours: cpuPer(context, oursRun.cpu, ours.executions),
				profile_floor: profilePer(executingProfiles(floorRun), floor.executions),
				profile_ours: profilePer(executingProfiles(oursRun), ours.executions),
				// The webhook process, per request of the floor and per customer message of ours.
				profile_webhook_floor: profilePer(floorRun.profiles.webhook ? [floorRun.profiles.webhook] : [], floor.requests),
				profile_webhook_ours: profilePer(oursRun.profiles.webhook ? [oursRun.profiles.webhook] : [], ours.messages),
			};
			log(`${name}: the Redis peer, ${conversations} customers writing for ${seconds} s`);
			const peer = await measurePeer(context, conversations, seconds);
			const loadEnd = os.loadavg();
			const json = {
				measured_at: new Date().toISOString(),
				n8n: N8N_VERSION,
				mode: queue ? 'queue (PostgreSQL, Redis, main, 2 workers, a webhook process)' : 'regular (SQLite)',
				machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30), load_average_start: loadStart, load_average_end: loadEnd },
				command: `BENCH_CAP_CONVERSATIONS=${conversations} BENCH_CAP_SECONDS=${seconds} BENCH_CAP_FLOOR=${floorCount} npm run bench -- --only ${name}`,
				// n8n takes its settings from the bench's environment; the expression engine's decide much of a webhook's cost.
				n8n_expression_engine_settings: Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('N8N_EXPRESSION_ENGINE'))),
				conversations,
				writing_seconds: seconds,
				floor,
				ours,
				peer,
				cpu,
			};
			log(`${name}: floor ${JSON.stringify(floor)}; ours ${JSON.stringify(ours)}; peer ${JSON.stringify(peer)}; load ${loadStart[0].toFixed(2)} → ${loadEnd[0].toFixed(2)}`);
			return { json, markdown: markdown(json) };
		} finally {
			await context.dispose();
		}
	} finally {
		await sandbox.close();
	}
}

const run = ({ log }) => measure({ name: 'burst-cap', queue: false, log });
const runInQueueMode = ({ log }) => measure({ name: 'burst-cap-queue', queue: true, log });

module.exports = { run, runInQueueMode, markdown };
