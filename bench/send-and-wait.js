#!/usr/bin/env node
'use strict';
// `npm run bench:send-and-wait`: Message > Send and Wait for Response beside
// n8n's own Wait node (resumed through its resume URL), in one real n8n
// (regular mode), in the same run. Not part of `npm test` (about 5 minutes).
//
// 1. Resume latency: from the answer's submit (the page's POST; for the Wait
//    node, a POST to $execution.resumeUrl) to the start of the node after the
//    waiting one, read from the execution's run data. Both workflows start
//    from a Webhook node and send one message through the sandbox before
//    they wait, so they differ only in the waiting node. Samples alternate.
// 2. Waiting executions: n8n's memory (lowest RSS of the main process over 5 s)
//    and database size before and after BENCH_WAITING executions of each wait
//    there, each peer in a freshly restarted n8n (after one warm-up run).
//
//   BENCH_SAMPLES=30 BENCH_WAITING=1000 npm run bench:send-and-wait
//   BENCH_SKIP_BUILD=1 ...      use the dist/ already built
//   BENCH_FILL_ORDER=reverse    fill with the Wait node's executions first
//   BENCH_MODE=queue            the latency part in queue mode (harness/queue.js: the
//                               links and the resume URL on the webhook process, the
//                               executions on 2 workers); writes the *-queue-* files
//
// Writes bench/send-and-wait-results.json and bench/SEND-AND-WAIT-RESULTS.md.
const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const WebSocket = require('ws');

const { freePort, startN8n, omnichannelCredential, sleep, waitFor, workflows: w, N8N_VERSION } = require('../test/e2e/harness');
const { startProcesses, startQueueCluster } = require('../test/e2e/harness/queue');
const { startSandboxProcess } = require('./lib/sandboxProcess');

const ROOT = path.join(__dirname, '..');
const SAMPLES = boundedInteger('BENCH_SAMPLES', 30, 5, 500);
const WAITING = boundedInteger('BENCH_WAITING', 1000, 10, 5000);
const QUEUE = process.env.BENCH_MODE === 'queue';
/** Executions started at once while filling n8n with waiting ones. */
const FILL_CONCURRENCY = 8;
/** Time for n8n to settle (garbage collection, database writes) before memory and size are read. */
const SETTLE_MS = 5000;

const log = (message) => process.stderr.write(`[bench:send-and-wait] ${message}\n`);

function boundedInteger(name, fallback, min, max) {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, not "${raw}"`);
	return value;
}

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

async function post(url, { json, form } = {}) {
	const response = await fetch(url, {
		method: 'POST',
		headers: json ? { 'content-type': 'application/json' } : { 'content-type': 'application/x-www-form-urlencoded' },
		body: json ? JSON.stringify(json) : new URLSearchParams(form ?? {}).toString(),
		signal: AbortSignal.timeout(60_000),
	});
	await response.text();
	return response.status;
}

const quantile = (values, q) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const median = (values) => quantile(values, 0.5);

function rssKb(pid) {
	const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
	return Number(match[1]);
}

/** The lowest RSS over SETTLE_MS: what n8n keeps, with garbage not yet collected left out as far as possible. */
async function settledRssMb(pid) {
	let lowest = Infinity;
	for (let elapsed = 0; elapsed < SETTLE_MS; elapsed += 250) {
		lowest = Math.min(lowest, rssKb(pid));
		await sleep(250);
	}
	return Math.round(lowest / 1024);
}

/**
 * The V8 heap n8n still uses after a full garbage collection, read over the
 * inspector of the server (started with --inspect on 127.0.0.1): what the
 * waiting executions hold, without garbage not yet collected.
 */
async function heapAfterGcMb(inspectPort) {
	const targets = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json();
	const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
	await new Promise((resolve, reject) => {
		socket.once('open', resolve);
		socket.once('error', reject);
	});
	let nextId = 0;
	const pending = new Map();
	socket.on('message', (raw) => {
		const message = JSON.parse(raw.toString());
		pending.get(message.id)?.(message.result);
		pending.delete(message.id);
	});
	const send = (method) =>
		new Promise((resolve) => {
			const id = ++nextId;
			pending.set(id, resolve);
			socket.send(JSON.stringify({ id, method, params: {} }));
		});
	try {
		await send('HeapProfiler.collectGarbage');
		await send('HeapProfiler.collectGarbage');
		const { usedSize } = await send('Runtime.getHeapUsage');
		return Math.round(usedSize / 2 ** 20);
	} finally {
		socket.close();
	}
}

function databaseMb(n8n) {
	const folder = path.join(n8n.userFolder, '.n8n');
	const bytes = fs
		.readdirSync(folder)
		.filter((name) => name.startsWith('database.sqlite'))
		.reduce((sum, name) => sum + fs.statSync(path.join(folder, name)).size, 0);
	return Math.round((bytes / 2 ** 20) * 10) / 10;
}

async function main() {
	if (process.env.BENCH_SKIP_BUILD !== '1') {
		log('npm run build');
		execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 });
	}
	const sandbox = await startSandboxProcess();
	let n8n;
	let cluster;
	try {
		const { client } = sandbox;
		const credential = omnichannelCredential({ id: 'benchSawCred0001', name: 'Bench sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
		const inspectPort = await freePort();
		if (QUEUE) {
			cluster = await startQueueCluster({ start: false });
			n8n = cluster.main;
		} else {
			n8n = await startN8n({ start: false, nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`] });
		}
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows(workflowsFor(credential));
		await (cluster ? startProcesses(cluster) : n8n.start());
		await n8n.setupOwnerAndApiKey();
		// Production webhooks, the links and the resume URL: the webhook process in queue mode.
		const webhookBaseUrl = (cluster?.webhook ?? n8n).baseUrl;
		for (const peer of Object.values(PEERS)) await n8n.publishWorkflow(peer.id);
		const channels = await client.listAll('/channels');
		const channel = channels.find((c) => c.type === 'livechat' && c.is_active);
		const conversation = await client.control('POST', '/conversations', { channel_id: channel.id });

		const startFlow = async (peer, marker, conversationId = conversation.id) => {
			await waitFor(async () => ((await post(`${webhookBaseUrl}/webhook/${peer.path}`, { json: { conversation_id: conversationId, marker } })) === 200 ? true : undefined), {
				what: `${peer.path} to accept a request`,
				timeoutMs: 60_000,
				intervalMs: 250,
			});
		};
		const linkOf = async (marker) =>
			await waitFor(
				async () => {
					const { data } = await client.api('GET', `/messages?conversation_id=${conversation.id}&per_page=50`);
					const message = data.find((m) => m.content.startsWith(marker));
					return message ? /(https?:\/\/\S+)\s*$/.exec(message.content)[1] : undefined;
				},
				{ what: `the message of ${marker}`, timeoutMs: 60_000, intervalMs: 50 },
			);
		const nextNodeStart = async (executionId) =>
			await waitFor(
				async () => {
					const execution = await n8n.api.getExecution(executionId);
					if (execution.status !== 'success') return undefined;
					return execution.data.resultData.runData.Next[0].startTime;
				},
				{ what: `execution ${executionId} to finish`, timeoutMs: 60_000, intervalMs: 100 },
			);

		// 1. Resume latency, alternating peers; the first two runs warm n8n up and are not counted.
		const latency = { sendAndWait: [], waitNode: [] };
		const submit = { sendAndWait: [], waitNode: [] };
		for (let round = -1; round < SAMPLES; round++) {
			for (const [key, peer] of Object.entries(PEERS)) {
				const marker = `bench ${key} ${round} ${crypto.randomUUID()}`;
				await startFlow(peer, marker);
				const link = await linkOf(marker);
				const executionId = new URL(link).pathname.split('/')[2];
				// The message can arrive a moment before n8n has saved the execution as waiting (n8n answers 409 until then).
				await waitFor(async () => (await n8n.api.getExecution(executionId, { includeData: false })).status === 'waiting', {
					what: `execution ${executionId} to be saved as waiting`,
					timeoutMs: 30_000,
					intervalMs: 50,
				});
				const submittedAt = Date.now();
				const status = await post(link);
				const answeredAt = Date.now();
				if (status !== 200) throw new Error(`${key}: the submit answered ${status}`);
				const startedAt = await nextNodeStart(executionId);
				if (round >= 0) {
					latency[key].push(startedAt - submittedAt);
					submit[key].push(answeredAt - submittedAt);
				}
			}
			if (round >= 0 && (round + 1) % 10 === 0) log(`latency: ${round + 1}/${SAMPLES} rounds`);
		}

		// 2. Waiting executions: each peer fills a freshly restarted n8n with WAITING executions, in its own conversation.
		const capacity = {};
		// BENCH_FILL_ORDER=reverse fills the Wait node's first, to tell the peers' times apart from their order.
		const fillOrder = QUEUE ? [] : Object.entries(PEERS);
		if (process.env.BENCH_FILL_ORDER === 'reverse') fillOrder.reverse();
		for (const [key, peer] of fillOrder) {
			const target = await client.control('POST', '/conversations', { channel_id: channel.id });
			await n8n.stop();
			await n8n.start();
			await startFlow(peer, `warm-up ${key}`, target.id);
			await sleep(SETTLE_MS);
			const before = { heapMb: await heapAfterGcMb(inspectPort), rssMb: await settledRssMb(n8n.pid), databaseMb: databaseMb(n8n) };
			const fillStarted = Date.now();
			let next = 0;
			const worker = async () => {
				while (next < WAITING) {
					const index = next++;
					await startFlow(peer, `fill ${key} ${index}`, target.id);
				}
			};
			await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
			await waitFor(
				async () => {
					const waiting = await n8n.api.listExecutions({ workflowId: peer.id, status: 'waiting' });
					return waiting.length >= WAITING + 1 ? true : undefined;
				},
				{ what: `${WAITING} waiting executions of ${key}`, timeoutMs: 15 * 60_000, intervalMs: 2000 },
			);
			const fillSeconds = (Date.now() - fillStarted) / 1000;
			await sleep(SETTLE_MS);
			const after = { heapMb: await heapAfterGcMb(inspectPort), rssMb: await settledRssMb(n8n.pid), databaseMb: databaseMb(n8n) };
			capacity[key] = {
				before,
				after,
				heap_kb_per_waiting: Math.round(((after.heapMb - before.heapMb) * 1024) / WAITING),
				rss_kb_per_waiting: Math.round(((after.rssMb - before.rssMb) * 1024) / WAITING),
				database_kb_per_waiting: Math.round(((after.databaseMb - before.databaseMb) * 1024) / WAITING),
				fill_seconds: Math.round(fillSeconds),
				fill_order: fillOrder.findIndex(([name]) => name === key) + 1,
			};
			log(`${key}: ${WAITING} waiting, heap after GC ${before.heapMb} -> ${after.heapMb} MB, RSS ${before.rssMb} -> ${after.rssMb} MB, database ${before.databaseMb} -> ${after.databaseMb} MB`);
		}

		const summary = Object.fromEntries(
			Object.keys(PEERS).map((key) => [
				key,
				{ median_ms: median(latency[key]), p90_ms: quantile(latency[key], 0.9), submit_answer_median_ms: median(submit[key]) },
			]),
		);
		const ratio = Math.round((summary.sendAndWait.median_ms / summary.waitNode.median_ms) * 1000) / 10;
		const results = {
			measured_at: new Date().toISOString(),
			n8n: N8N_VERSION,
			mode: QUEUE ? 'queue (PostgreSQL, Redis, main, 2 workers, a webhook process)' : 'regular (SQLite)',
			machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30) },
			samples: SAMPLES,
			waiting: WAITING,
			peers: Object.fromEntries(Object.entries(PEERS).map(([key, peer]) => [key, { label: peer.label, latency_ms: latency[key], ...summary[key], capacity: capacity[key] }])),
			latency_ratio_percent: ratio,
			goal: 'median latency within 10% of the Wait node (ratio at most 110%)',
			goal_met: ratio <= 110,
		};
		const suffix = QUEUE ? '-queue' : '';
		fs.writeFileSync(path.join(__dirname, `send-and-wait${suffix}-results.json`), `${JSON.stringify(results, null, 2)}\n`);
		fs.writeFileSync(path.join(__dirname, `SEND-AND-WAIT${suffix.toUpperCase()}-RESULTS.md`), report(results));
		process.stdout.write(report(results));
	} finally {
		await (cluster ?? n8n)?.dispose();
		await sandbox.close();
	}
}

function report(results) {
	const rows = Object.values(results.peers)
		.map((p) => `| ${p.label} | ${p.median_ms} | ${p.p90_ms} | ${p.submit_answer_median_ms} |`)
		.join('\n');
	const capacityRows = Object.values(results.peers)
		.filter((p) => p.capacity)
		.map((p) => {
			const c = p.capacity;
			return `| ${p.label} | ${c.before.heapMb} → ${c.after.heapMb} (${c.heap_kb_per_waiting} KB each) | ${c.before.rssMb} → ${c.after.rssMb} | ${c.before.databaseMb} → ${c.after.databaseMb} (${c.database_kb_per_waiting} KB each) | ${c.fill_seconds} |`;
		})
		.join('\n');
	return `# Send and Wait benchmark

Measured ${results.measured_at} in n8n ${results.n8n}, ${results.mode} mode, ${results.machine.cpus} CPUs, by \`npm run bench:send-and-wait\`.
Both workflows: Webhook → one message through the sandbox → the waiting node → No Operation ("Next").

## From the answer's submit to the next node (${results.samples} samples each, alternating)

| Waiting node | median ms | p90 ms | submit answered, median ms |
|---|---|---|---|
${rows}

Send and Wait's median is **${results.latency_ratio_percent}%** of the Wait node's. Goal: ${results.goal}: **${results.goal_met ? 'met' : 'not met'}**.
${capacityRows ? capacitySection(results, capacityRows) : ''}`;
}

function capacitySection(results, capacityRows) {
	return `
## ${results.waiting} waiting executions

| Waiting node | n8n's heap after a full GC, MB | n8n main RSS (lowest over 5 s), MB | database, MB | seconds to start them |
|---|---|---|---|---|
${capacityRows}

Each peer fills a freshly restarted n8n, in the order shown in \`fill_order\` of the JSON. The first one also
pays for the database file's growth, so its seconds and database size come out higher whichever peer it is
(run with \`BENCH_FILL_ORDER=reverse\` to swap them); the heap is the figure to compare.
`;
}

main().catch((error) => {
	process.stderr.write(`${error.stack}\n`);
	process.exitCode = 1;
});
