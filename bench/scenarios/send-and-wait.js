'use strict';
// Scenarios `send-and-wait` and `send-and-wait-queue`: Message > Send and Wait
// for Response beside n8n's own Wait node (resumed through its resume URL), in
// one real n8n, in the same run. Both workflows start from a Webhook node and
// send one message through the sandbox before they wait, so they differ only
// in the waiting node.
// 1. Resume latency: from the answer's submit (the page's POST; for the Wait
//    node, a POST to $execution.resumeUrl) to the start of the node after the
//    waiting one, read from the execution's run data. Samples alternate.
// 2. Waiting executions (regular mode only): n8n's heap after a full garbage
//    collection, its memory (lowest RSS of the main process over 5 s) and
//    database size before and after BENCH_WAITING executions of each wait
//    there, each peer in a freshly restarted n8n (after one warm-up run).
// `send-and-wait-queue` measures the latency in queue mode (PostgreSQL, Redis,
// the links and the resume URL on the webhook process, the executions on 2
// workers). BENCH_RUNS does not apply: BENCH_SAMPLES sets the samples.
//
//   BENCH_SAMPLES=30 BENCH_WAITING=1000 npm run bench -- --only send-and-wait   (about 5 minutes)
//   BENCH_FILL_ORDER=reverse ...   fill with the Wait node's executions first
//   npm run bench -- --only send-and-wait-queue
const crypto = require('crypto');
const os = require('os');

const { freePort, startN8n, omnichannelCredential, waitFor, workflows: w, N8N_VERSION, startProcesses, startQueueCluster } = require('../../harness');
const { startSandboxProcess } = require('../../sandbox/process');
const { boundedInteger } = require('../lib/options');
const { quantile } = require('../lib/summary');
const { waitingMemory } = require('../lib/waitingMemory');

const MAX_SAMPLES = 500;
const MAX_WAITING = 5000;
/** Executions started at once while filling n8n with waiting ones. */
const FILL_CONCURRENCY = 8;
const GOAL_PERCENT = 110;

const PEERS = {
	sendAndWait: { label: 'Omnichannel Send and Wait for Response (Approval)', path: 'bench-send-and-wait', id: 'benchSendWait001' },
	waitNode: { label: "n8n's Wait node (On Webhook Call), resumed through $execution.resumeUrl", path: 'bench-wait-node', id: 'benchWaitNode001' },
};

function workflowsFor(credential) {
	const start = (flowPath) =>
		w.node('Request', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path: flowPath, responseMode: 'onReceived', options: {} }, {
			typeVersion: 2,
			webhookId: crypto.randomUUID(),
		});
	const next = () => w.node('Next', 'n8n-nodes-base.noOp');
	const conversationId = w.byId('={{ $json.body.conversation_id }}');
	const saw = w.workflow({
		id: PEERS.sendAndWait.id,
		name: 'Bench: Send and Wait',
		nodes: [
			start(PEERS.sendAndWait.path),
			w.omnichannelNode('Ask', credential, {
				resource: 'message',
				operation: 'sendAndWait',
				conversationId,
				message: '={{ $json.body.marker }}',
				approvalOptions: { values: { approvalType: 'single' } },
			}),
			next(),
		],
		connections: w.chain('Request', 'Ask', 'Next'),
	});
	const wait = w.workflow({
		id: PEERS.waitNode.id,
		name: 'Bench: Wait node',
		nodes: [
			start(PEERS.waitNode.path),
			w.omnichannelNode('Announce', credential, {
				resource: 'message',
				operation: 'sendText',
				conversationId,
				text: '={{ $json.body.marker + "\\n\\nResume: " + $execution.resumeUrl }}',
			}),
			w.node('Wait', 'n8n-nodes-base.wait', { resume: 'webhook', httpMethod: 'POST', options: {} }, { typeVersion: 1.1, webhookId: crypto.randomUUID() }),
			next(),
		],
		connections: w.chain('Request', 'Announce', 'Wait', 'Next'),
	});
	return [saw, wait];
}

async function post(url, json) {
	const response = await fetch(url, {
		method: 'POST',
		// Without JSON, the approval page's button as a browser sends it: an empty multipart form (the page's enctype).
		headers: json ? { 'content-type': 'application/json' } : {},
		body: json ? JSON.stringify(json) : new FormData(),
		signal: AbortSignal.timeout(60_000),
	});
	await response.text();
	return response.status;
}

/**
 * n8n (regular: one server with its inspector open; queue: main, webhook
 * process, 2 workers) with both workflows published, and one conversation.
 */
async function setUp(sandbox, queue) {
	const credential = omnichannelCredential({ id: 'benchSawCred0001', name: 'Bench sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
	const tarball = process.env.BENCH_TARBALL || undefined;
	const inspectPort = queue ? undefined : await freePort();
	const cluster = queue ? await startQueueCluster({ start: false, tarball }) : undefined;
	const n8n = cluster ? cluster.main : await startN8n({ start: false, tarball, nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`] });
	const dispose = () => (cluster ?? n8n).dispose();
	try {
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows(workflowsFor(credential));
		await (cluster ? startProcesses(cluster) : n8n.start());
		await n8n.setupOwnerAndApiKey();
		for (const peer of Object.values(PEERS)) await n8n.publishWorkflow(peer.id);
		const channel = (await sandbox.client.listAll('/channels')).find((c) => c.type === 'livechat' && c.is_active);
		const conversation = await sandbox.client.control('POST', '/conversations', { channel_id: channel.id });
		// Production webhooks, the links and the resume URL: the webhook process in queue mode.
		const webhookBaseUrl = (cluster?.webhook ?? n8n).baseUrl;
		return { n8n, inspectPort, dispose, client: sandbox.client, channel, conversationId: conversation.id, webhookBaseUrl };
	} catch (error) {
		await dispose();
		throw error;
	}
}

async function startFlow(context, peer, marker, conversationId = context.conversationId) {
	const url = `${context.webhookBaseUrl}/webhook/${peer.path}`;
	await waitFor(async () => ((await post(url, { conversation_id: conversationId, marker })) === 200 ? true : undefined), {
		what: `${peer.path} to accept a request`,
		timeoutMs: 60_000,
		intervalMs: 250,
	});
}

/** The link at the end of the message that starts with `marker`. */
async function linkOf(context, marker) {
	return await waitFor(
		async () => {
			const { data } = await context.client.api('GET', `/messages?conversation_id=${context.conversationId}&per_page=50`);
			const message = data.find((m) => m.content.startsWith(marker));
			return message ? /(https?:\/\/\S+)\s*$/.exec(message.content)[1] : undefined;
		},
		{ what: `the message of ${marker}`, timeoutMs: 60_000, intervalMs: 50 },
	);
}

async function nextNodeStart(n8n, executionId) {
	return await waitFor(
		async () => {
			const execution = await n8n.api.getExecution(executionId);
			if (execution.status !== 'success') return undefined;
			return execution.data.resultData.runData.Next[0].startTime;
		},
		{ what: `execution ${executionId} to finish`, timeoutMs: 60_000, intervalMs: 100 },
	);
}

/** One answered wait: ms from the submit to the next node's start, and to the submit's answer. */
async function sampleResume(context, key, peer, round) {
	const marker = `bench ${key} ${round} ${crypto.randomUUID()}`;
	await startFlow(context, peer, marker);
	const link = await linkOf(context, marker);
	const executionId = new URL(link).pathname.split('/')[2];
	// The message can arrive a moment before n8n has saved the execution as waiting (n8n answers 409 until then).
	await waitFor(async () => (await context.n8n.api.getExecution(executionId, { includeData: false })).status === 'waiting', {
		what: `execution ${executionId} to be saved as waiting`,
		timeoutMs: 30_000,
		intervalMs: 50,
	});
	const submittedAt = Date.now();
	const status = await post(link);
	const answeredAt = Date.now();
	if (status !== 200) throw new Error(`${key}: the submit answered ${status}`);
	const startedAt = await nextNodeStart(context.n8n, executionId);
	return { latencyMs: startedAt - submittedAt, submitMs: answeredAt - submittedAt };
}

/** Resume latency, alternating peers; the first round warms n8n up and is not counted. */
async function measureLatency(context, samples, log) {
	const latency = { sendAndWait: [], waitNode: [] };
	const submit = { sendAndWait: [], waitNode: [] };
	for (let round = -1; round < samples; round++) {
		for (const [key, peer] of Object.entries(PEERS)) {
			const sample = await sampleResume(context, key, peer, round);
			if (round < 0) continue;
			latency[key].push(sample.latencyMs);
			submit[key].push(sample.submitMs);
		}
		if (round >= 0 && (round + 1) % 10 === 0) log(`latency: ${round + 1}/${samples} rounds`);
	}
	return { latency, submit };
}

/** One peer fills a freshly restarted n8n with `waiting` executions, in a conversation of its own. */
async function measureWaiting(context, key, peer, waiting, log) {
	const { n8n, inspectPort, client, channel } = context;
	const target = await client.control('POST', '/conversations', { channel_id: channel.id });
	await n8n.stop();
	await n8n.start();
	await startFlow(context, peer, `warm-up ${key}`, target.id);
	const before = await waitingMemory(n8n, inspectPort);
	const fillStarted = Date.now();
	let next = 0;
	const filler = async () => {
		while (next < waiting) await startFlow(context, peer, `fill ${key} ${next++}`, target.id);
	};
	await Promise.all(Array.from({ length: FILL_CONCURRENCY }, filler));
	await waitFor(async () => ((await n8n.api.listExecutions({ workflowId: peer.id, status: 'waiting' })).length >= waiting + 1 ? true : undefined), {
		what: `${waiting} waiting executions of ${key}`,
		timeoutMs: 15 * 60_000,
		intervalMs: 2000,
	});
	const fillSeconds = (Date.now() - fillStarted) / 1000;
	const after = await waitingMemory(n8n, inspectPort);
	log(`${key}: ${waiting} waiting, heap after GC ${before.heapMb} -> ${after.heapMb} MB, RSS ${before.rssMb} -> ${after.rssMb} MB, database ${before.databaseMb} -> ${after.databaseMb} MB`);
	const perWaiting = (mb) => Math.round((mb * 1024) / waiting);
	return {
		before,
		after,
		heap_kb_per_waiting: perWaiting(after.heapMb - before.heapMb),
		rss_kb_per_waiting: perWaiting(after.rssMb - before.rssMb),
		database_kb_per_waiting: perWaiting(after.databaseMb - before.databaseMb),
		fill_seconds: Math.round(fillSeconds),
	};
}

function resultsOf({ queue, samples, waiting, latency, submit, capacity }) {
	const summary = Object.fromEntries(
		Object.keys(PEERS).map((key) => [
			key,
			{ median_ms: quantile(latency[key], 0.5), p90_ms: quantile(latency[key], 0.9), submit_answer_median_ms: quantile(submit[key], 0.5) },
		]),
	);
	const ratio = Math.round((summary.sendAndWait.median_ms / summary.waitNode.median_ms) * 1000) / 10;
	return {
		measured_at: new Date().toISOString(),
		n8n: N8N_VERSION,
		mode: queue ? 'queue (PostgreSQL, Redis, main, 2 workers, a webhook process)' : 'regular (SQLite)',
		machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30) },
		samples,
		waiting,
		peers: Object.fromEntries(Object.entries(PEERS).map(([key, peer]) => [key, { label: peer.label, latency_ms: latency[key], ...summary[key], capacity: capacity[key] }])),
		latency_ratio_percent: ratio,
		goal: `median latency within ${GOAL_PERCENT - 100}% of the Wait node (ratio at most ${GOAL_PERCENT}%)`,
		goal_met: ratio <= GOAL_PERCENT,
	};
}

function capacitySection(results) {
	const rows = Object.values(results.peers)
		.filter((p) => p.capacity)
		.map((p) => {
			const c = p.capacity;
			return `| ${p.label} | ${c.before.heapMb} → ${c.after.heapMb} (${c.heap_kb_per_waiting} KB each) | ${c.before.rssMb} → ${c.after.rssMb} | ${c.before.databaseMb} → ${c.after.databaseMb} (${c.database_kb_per_waiting} KB each) | ${c.fill_seconds} |`;
		});
	if (rows.length === 0) return [];
	return [
		'',
		`## ${results.waiting} waiting executions`,
		'',
		"| Waiting node | n8n's heap after a full GC, MB | n8n main RSS (lowest over 5 s), MB | database, MB | seconds to start them |",
		'|---|---|---|---|---|',
		...rows,
		'',
		'Each peer fills a freshly restarted n8n, in the order shown in `fill_order` of the JSON. The first one also',
		"pays for the database file's growth, so its seconds and database size come out higher whichever peer it is",
		'(run with `BENCH_FILL_ORDER=reverse` to swap them); the heap is the figure to compare.',
	];
}

/** The results file's markdown, from its JSON alone. */
function markdown(name, results) {
	return [
		'# Send and Wait benchmark',
		'',
		`Measured ${results.measured_at} in n8n ${results.n8n}, ${results.mode} mode, ${results.machine.cpus} CPUs, by \`npm run bench -- --only ${name}\`.`,
		'Both workflows: Webhook → one message through the sandbox → the waiting node → No Operation ("Next").',
		'',
		`## From the answer's submit to the next node (${results.samples} samples each, alternating)`,
		'',
		'| Waiting node | median ms | p90 ms | submit answered, median ms |',
		'|---|---|---|---|',
		...Object.values(results.peers).map((p) => `| ${p.label} | ${p.median_ms} | ${p.p90_ms} | ${p.submit_answer_median_ms} |`),
		'',
		`Send and Wait's median is **${results.latency_ratio_percent}%** of the Wait node's. Goal: ${results.goal}: **${results.goal_met ? 'met' : 'not met'}**.`,
		...capacitySection(results),
		'',
	].join('\n');
}

async function measure({ name, queue, log }) {
	const samples = boundedInteger('BENCH_SAMPLES', process.env.BENCH_SAMPLES, 30, MAX_SAMPLES);
	const waiting = boundedInteger('BENCH_WAITING', process.env.BENCH_WAITING, 1000, MAX_WAITING);
	const sandbox = await startSandboxProcess();
	try {
		const context = await setUp(sandbox, queue);
		try {
			const { latency, submit } = await measureLatency(context, samples, log);
			const capacity = {};
			// BENCH_FILL_ORDER=reverse fills the Wait node's first, to tell the peers' times apart from their order.
			const fillOrder = queue ? [] : Object.entries(PEERS);
			if (process.env.BENCH_FILL_ORDER === 'reverse') fillOrder.reverse();
			for (const [index, [key, peer]] of fillOrder.entries()) {
				capacity[key] = { ...(await measureWaiting(context, key, peer, waiting, log)), fill_order: index + 1 };
			}
			const results = resultsOf({ queue, samples, waiting, latency, submit, capacity });
			log(`Send and Wait's median resume latency: ${results.latency_ratio_percent}% of the Wait node's (goal at most ${GOAL_PERCENT}%): ${results.goal_met ? 'met' : 'MISSED'}`);
			return { json: results, markdown: markdown(name, results) };
		} finally {
			await context.dispose();
		}
	} finally {
		await sandbox.close();
	}
}

/** @param {{ log: (message: string) => void }} options */
const run = ({ log }) => measure({ name: 'send-and-wait', queue: false, log });
const runInQueueMode = ({ log }) => measure({ name: 'send-and-wait-queue', queue: true, log });

module.exports = { run, runInQueueMode, markdown };
