'use strict';
// Scenario "queue": n8n's queue mode with K workers sharing one API
// key. Every worker runs an execution of 3,000 text sends while a further
// execution runs Return All of 100,000 contacts; K = 2, then K = 3. The peer
// is the same package with the fixed token bucket it had before (its
// rateLimiter.ts and request.ts from the commit before the learned rate),
// built here into a tarball of its own and run in the same bench run.
//
// Each (peer, K) gets a fresh cluster (harness/queue.js: PostgreSQL,
// Redis, main, webhook process, K workers) and a fresh sandbox workspace and
// key: what the sandbox stored in a run's conversations is exactly what that
// run sent, and GET /stats counts only that run's requests.
const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { sandboxClient } = require('../../sandbox/client');
const { omnichannelCredential, startProcesses, startQueueCluster, waitFor, workflows: w } = require('../../harness');
const { MEASURED } = require('../lib/workflows');

const REPO = path.join(__dirname, '..', '..');
// BENCH_QUEUE_MESSAGES, BENCH_QUEUE_CONTACTS and BENCH_QUEUE_WORKERS (e.g. "2")
// shrink a run to check the scenario itself; the figures use the defaults.
const MESSAGES = Number(process.env.BENCH_QUEUE_MESSAGES) || 3_000;
const CONTACTS = Number(process.env.BENCH_QUEUE_CONTACTS) || 100_000;
const RATE_LIMIT = 60;
const WORKER_COUNTS = (process.env.BENCH_QUEUE_WORKERS || '2,3').split(',').map(Number);
/** The last commit with the fixed bucket (the parent of "Rate limit learned per process"). */
const FIXED_BUCKET_REVISION = '72267aa^';
/** The two transport files of FIXED_BUCKET_REVISION (`from`) and where the transport lives today (`to`). */
const FIXED_BUCKET_FILES = ['rateLimiter.ts', 'request.ts'].map((name) => ({
	from: `nodes/Omnichannel/transport/${name}`,
	to: `nodes/shared/transport/${name}`,
}));
/** A run of 3 × 3,000 sends takes about 3 minutes at 60/s; anything past this is a hang. */
const RUN_TIMEOUT_MS = 20 * 60 * 1000;
/** Queue runs are long (a cluster each): one per peer and K unless BENCH_QUEUE_RUNS says otherwise. */
const QUEUE_RUNS = Math.min(3, Math.max(1, Number(process.env.BENCH_QUEUE_RUNS) || 1));

const PEERS = Object.fromEntries(
	WORKER_COUNTS.flatMap((k) => [
		[`learned${k}`, { label: `K = ${k} workers: learned rate (this package)`, k, build: 'current' }],
		[`fixed${k}`, { label: `K = ${k} workers: fixed bucket (before, same run)`, k, build: 'fixed' }],
	]),
);

const COLUMNS = [
	{ key: 'k', label: 'Workers', digits: 0 },
	{ key: 'timeS', label: 'Run (s)', digits: 1 },
	{ key: 'okPerS', label: 'Answered requests/s', digits: 1 },
	{ key: 'pctOfLimit', label: '% of 60/s', digits: 1 },
	{ key: 'requests', label: 'Requests', digits: 0 },
	{ key: 'status429', label: '429s', digits: 0 },
	{ key: 'pct429', label: '429 % of requests', digits: 2 },
	{ key: 'failedItems', label: 'Failed items', digits: 0 },
	{ key: 'duplicates', label: 'Duplicates', digits: 0 },
	{ key: 'contacts', label: 'Return All records', digits: 0 },
	{ key: 'readsS', label: 'Return All (s)', digits: 1 },
	{ key: 'steadySendsPerS', label: 'Sends/s while all send', digits: 1 },
	{ key: 'sendShareSpread', label: 'Spread between workers (%)', digits: 0 },
	{ key: 'distinctWorkers', label: 'Sends on distinct workers', kind: 'yesCount' },
];

/**
 * The package with the fixed bucket: the committed tree with the two transport
 * files of FIXED_BUCKET_REVISION, built (node_modules linked) and packed.
 */
function packFixedBucketPeer(log) {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fixed-bucket-'));
	const tree = path.join(work, 'tree');
	fs.mkdirSync(tree);
	try {
		log(`building the fixed-bucket peer from HEAD with ${FIXED_BUCKET_FILES.map((file) => file.from).join(', ')} of ${FIXED_BUCKET_REVISION}`);
		const archive = path.join(work, 'head.tar');
		execFileSync('git', ['archive', '--format=tar', '-o', archive, 'HEAD'], { cwd: REPO });
		execFileSync('tar', ['-xf', archive, '-C', tree]);
		for (const file of FIXED_BUCKET_FILES) {
			fs.writeFileSync(path.join(tree, file.to), execFileSync('git', ['show', `${FIXED_BUCKET_REVISION}:${file.from}`], { cwd: REPO }));
		}
		fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
		execFileSync('npm', ['run', 'build'], { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 });
		const output = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: tree, stdio: ['ignore', 'pipe', 'inherit'], timeout: 120_000 });
		const tarball = path.join(work, output.toString().trim().split('\n').pop());
		return { tarball, dispose: () => fs.rmSync(work, { recursive: true, force: true }) };
	} catch (error) {
		fs.rmSync(work, { recursive: true, force: true });
		throw error;
	}
}

/** A production Webhook node that answers at once; the execution then runs on a worker. */
const webhookStart = (path) =>
	w.node('Start', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} }, {
		typeVersion: 2,
		webhookId: crypto.randomUUID(),
	});

function sendWorkflow(id, path, credential, conversationId) {
	const jsCode = [
		`return Array.from({ length: ${MESSAGES} }, (_, i) => ({ json: {`,
		`  text: '${path} ' + (i + 1),`,
		`  client_request_id: '${id}-' + (i + 1),`,
		'} }));',
	].join('\n');
	const nodes = [
		webhookStart(path),
		w.node('Input', 'n8n-nodes-base.code', { jsCode }, { typeVersion: 2 }),
		w.omnichannelNode(MEASURED, credential, {
			resource: 'message',
			operation: 'sendText',
			conversationId: w.byId(conversationId),
			text: '={{ $json.text }}',
			options: { clientRequestId: '={{ $json.client_request_id }}' },
		}),
	];
	return w.workflow({ id, name: `Bench queue ${path}`, nodes, connections: w.chain('Start', 'Input', MEASURED) });
}

/** Return All, then one item with the count and the distinct ids (the execution keeps its 100,000 items too). */
function readWorkflow(id, path, credential) {
	const jsCode = 'const ids = $input.all().map((item) => item.json.id);\nreturn [{ json: { records: ids.length, distinct: new Set(ids).size } }];';
	const nodes = [
		webhookStart(path),
		w.omnichannelNode(MEASURED, credential, { resource: 'contact', operation: 'getAll', returnAll: true }),
		w.node('Summary', 'n8n-nodes-base.code', { jsCode }, { typeVersion: 2 }),
	];
	return w.workflow({ id, name: `Bench queue ${path}`, nodes, connections: w.chain('Start', MEASURED, 'Summary') });
}

async function trigger(cluster, path) {
	const response = await fetch(`${cluster.webhook.baseUrl}/webhook/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
	await response.text();
	if (response.status !== 200) throw new Error(`/webhook/${path} answered ${response.status}`);
}

/** The worker (index) whose log shows the workflow's execution started; waits for it. */
async function workerOf(cluster, workflowId) {
	return await waitFor(
		async () => {
			const [execution] = await cluster.main.listExecutions({ workflowId });
			if (!execution) return undefined;
			const index = cluster.workerExecutionIds().findIndex((ids) => ids.has(String(execution.id)));
			return index >= 0 ? { index, execution } : undefined;
		},
		{ what: `a worker to start workflow ${workflowId}`, timeoutMs: 120_000, intervalMs: 250 },
	);
}

async function finished(cluster, workflowId) {
	return await waitFor(
		async () => {
			const [execution] = await cluster.main.listExecutions({ workflowId });
			return execution?.stoppedAt ? execution : undefined;
		},
		{ what: `workflow ${workflowId} to finish`, timeoutMs: RUN_TIMEOUT_MS, intervalMs: 2000 },
	);
}

/** One (peer, K) run on a fresh cluster. */
async function runOnce({ sandbox, log }, peer, tarball, runIndex) {
	const { client } = sandbox;
	const { k } = PEERS[peer];
	const tag = `${peer.slice(0, 1)}${k}r${runIndex + 1}`;
	// A workspace and key of its own: exactly 100,000 contacts (the conversations' customers included).
	const workspace = await client.control('POST', '/workspaces', {});
	const key = await client.control('POST', '/keys', { app_id: workspace.app_id, mode: 'test', name: `bench queue ${tag}` });
	const channel = await client.control('POST', '/channels', { app_id: workspace.app_id, type: 'livechat', name: `Bench queue ${tag}` });
	const conversations = [];
	for (let index = 0; index < k; index++) conversations.push(await client.control('POST', '/conversations', { app_id: workspace.app_id, channel_id: channel.id }));
	await client.control('POST', '/bulk', { app_id: workspace.app_id, contacts: CONTACTS - k });
	const credential = omnichannelCredential({ id: `benchQ${tag}Cred`.padEnd(16, '0').slice(0, 16), name: `Bench queue ${tag}`, baseUrl: sandbox.base_url, apiKey: key.key });
	const sendIds = conversations.map((_, index) => `benchQ${tag}S${index + 1}`.padEnd(16, '0'));
	const readId = `benchQ${tag}Read`.padEnd(16, '0');
	const workflows = [
		...conversations.map((conversation, index) => sendWorkflow(sendIds[index], `q${tag}-send${index + 1}`, credential, conversation.id)),
		readWorkflow(readId, `q${tag}-read`, credential),
	];

	log(`queue ${peer} run ${runIndex + 1}: starting a cluster with ${k} workers`);
	const cluster = await startQueueCluster({ workers: k, tarball, start: false });
	try {
		await cluster.main.importCredentials([credential]);
		await cluster.main.importWorkflows(workflows);
		await startProcesses(cluster);
		await cluster.main.setupOwnerAndApiKey();
		for (const { id } of workflows) await cluster.main.publishWorkflow(id);
		await client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: RATE_LIMIT });
		await client.control('DELETE', '/stats');
		// One send at a time, each started on a worker before the next: Bull
		// hands the next job to the worker that has waited longest, so every
		// worker gets one send. Which worker ran what is read from their logs.
		const sendWorkers = [];
		for (let index = 0; index < k; index++) {
			if (index === 0) {
				// Main publishes; the webhook process serves a workflow once it has seen that.
				await waitFor(async () => await trigger(cluster, `q${tag}-send1`).then(() => true, () => false), {
					what: 'the published workflows on the webhook process',
					timeoutMs: 60_000,
					intervalMs: 500,
				});
			} else {
				await trigger(cluster, `q${tag}-send${index + 1}`);
			}
			sendWorkers.push((await workerOf(cluster, sendIds[index])).index);
		}
		await trigger(cluster, `q${tag}-read`);
		const readWorker = (await workerOf(cluster, readId)).index;
		log(`queue ${peer} run ${runIndex + 1}: sends on workers ${sendWorkers.map((i) => i + 1).join(', ')}, Return All on worker ${readWorker + 1}`);

		const sends = [];
		for (const id of sendIds) sends.push(await finished(cluster, id));
		const read = await finished(cluster, readId);
		const stats = await client.control('GET', '/stats');
		await client.control('DELETE', '/faults');
		const readData = await cluster.main.api.getExecution(read.id, { includeData: true });
		const summary = readData.data?.resultData?.runData?.Summary?.[0]?.data?.main?.[0]?.[0]?.json ?? { records: 0, distinct: 0 };

		let failedItems = 0;
		let duplicates = 0;
		const sendTimes = [];
		for (const [index, conversation] of conversations.entries()) {
			const messages = await sandboxClient(sandbox, key.key).listAll('/messages', { conversation_id: conversation.id }, { maxPages: 20 });
			const texts = messages.map((message) => message.content);
			const distinct = new Set(texts).size;
			failedItems += MESSAGES - distinct;
			duplicates += texts.length - distinct;
			sendTimes.push(messages.map((message) => Date.parse(message.created_at)));
			if (sends[index].status !== 'success') log(`queue ${peer}: send ${index + 1} ended ${sends[index].status}`);
		}
		// While every worker sends: from 10 s after the last one's first message
		// (the start-up has settled) to the first one's last message.
		const steadyFrom = Math.max(...sendTimes.map((times) => Math.min(...times))) + 10_000;
		const steadyTo = Math.min(...sendTimes.map((times) => Math.max(...times)));
		const steadyS = (steadyTo - steadyFrom) / 1000;
		const steadyRates = sendTimes.map((times) => times.filter((at) => at >= steadyFrom && at < steadyTo).length / steadyS);
		const steadyTotal = steadyRates.reduce((sum, value) => sum + value, 0);
		const all = [...sends, read];
		const startedAt = Math.min(...all.map((execution) => Date.parse(execution.startedAt)));
		const stoppedAt = Math.max(...all.map((execution) => Date.parse(execution.stoppedAt)));
		const timeS = (stoppedAt - startedAt) / 1000;
		const ok = stats.by_status['200'] ?? 0;
		const status429 = stats.by_status['429'] ?? 0;
		return {
			k,
			timeS,
			okPerS: ok / timeS,
			pctOfLimit: (100 * ok) / timeS / RATE_LIMIT,
			requests: stats.requests,
			status429,
			pct429: (100 * status429) / stats.requests,
			byStatus: stats.by_status,
			maxPerSecond: stats.max_per_second,
			failedItems,
			executionsFailed: all.filter((execution) => execution.status !== 'success').length,
			duplicates: duplicates + (summary.records - summary.distinct),
			contacts: summary.distinct,
			readsS: (Date.parse(read.stoppedAt) - Date.parse(read.startedAt)) / 1000,
			steadyS: steadyS > 0 ? steadyS : undefined,
			steadySendsPerS: steadyS > 0 ? steadyTotal : undefined,
			steadyShares: steadyS > 0 ? steadyRates.map((value) => value / steadyTotal) : undefined,
			sendShareSpread: steadyS > 0 ? (100 * (Math.max(...steadyRates) - Math.min(...steadyRates))) / Math.max(...steadyRates) : undefined,
			sendWorkers,
			readWorker,
			distinctWorkers: new Set(sendWorkers).size === k ? 1 : 0,
		};
	} finally {
		await client.control('DELETE', '/faults').catch(() => undefined);
		await cluster.dispose();
	}
}

function targets(summary) {
	const list = [];
	for (const k of WORKER_COUNTS) {
		const ours = summary[`learned${k}`];
		const fixed = summary[`fixed${k}`];
		if (!ours) continue;
		const versus = (key, digits) => (fixed?.[key] ? ` (fixed bucket: ${fixed[key].median.toFixed(digits)})` : '');
		list.push(
			{ target: `K = ${k}: every item succeeds in every run`, value: `${ours.failedItems.max} failed, ${ours.executionsFailed.max} failed executions${versus('failedItems', 0)}`, met: ours.failedItems.max === 0 && ours.executionsFailed.max === 0 },
			{ target: `K = ${k}: 0 duplicates in every run`, value: String(ours.duplicates.max), met: ours.duplicates.max === 0 },
			{ target: `K = ${k}: all ${CONTACTS.toLocaleString('en-US')} contacts returned`, value: ours.contacts.min.toLocaleString('en-US'), met: ours.contacts.min === CONTACTS },
			{ target: `K = ${k}: combined at least 85% of 60 requests/s over the run (median)`, value: `${ours.pctOfLimit.median.toFixed(1)}%${versus('pctOfLimit', 1)}`, met: ours.pctOfLimit.median >= 85 },
			{ target: `K = ${k}: 429s at most 3% of all requests in every run`, value: `${ours.pct429.max.toFixed(2)}%${versus('pct429', 2)}`, met: ours.pct429.max <= 3 },
		);
	}
	return list;
}

async function run(context) {
	const { log } = context;
	const fixed = packFixedBucketPeer(log);
	try {
		const tarballs = { current: context.tarball, fixed: fixed.tarball };
		const results = Object.fromEntries(Object.keys(PEERS).map((peer) => [peer, []]));
		for (let runIndex = 0; runIndex < QUEUE_RUNS; runIndex++) {
			for (const k of WORKER_COUNTS) {
				// Alternating which peer goes first, as measureRuns does.
				const order = (runIndex + k) % 2 === 0 ? [`learned${k}`, `fixed${k}`] : [`fixed${k}`, `learned${k}`];
				for (const peer of order) {
					const loadAverage = os.loadavg()[0];
					const metrics = { ...(await runOnce(context, peer, tarballs[PEERS[peer].build], runIndex)), loadAverage };
					results[peer].push(metrics);
					log(`queue run ${runIndex + 1}/${QUEUE_RUNS} ${peer}: ${JSON.stringify(metrics)}`);
				}
			}
		}
		return {
			title: `Queue mode, one key: K workers × ${MESSAGES.toLocaleString('en-US')} text sends plus Return All of ${CONTACTS.toLocaleString('en-US')} contacts`,
			runs: QUEUE_RUNS,
			setup: { messages_per_worker: MESSAGES, contacts: CONTACTS, latency_ms: 100, rate_limit_per_second: RATE_LIMIT, workers: WORKER_COUNTS, fixed_bucket_revision: FIXED_BUCKET_REVISION },
			columns: COLUMNS,
			peers: Object.fromEntries(Object.entries(PEERS).map(([id, { label }]) => [id, { label }])),
			results,
			targets,
			notes: [
				'Each row is a fresh queue-mode cluster (PostgreSQL, Redis, main, webhook process, K workers; harness/queue.js) on its own sandbox key. ' +
					'Each worker runs one execution of 3,000 Send Text items (checked in the worker logs) and one of them also the Return All execution. ' +
					'Run: from the first execution\'s start to the last one\'s end (n8n\'s timestamps; item checks and n8n\'s own work included). ' +
					'Answered requests/s: the sandbox\'s 200 answers over the run. Failed items: texts the sandbox never stored. ' +
					'Sends/s while all send: messages stored per second (all workers) from 10 s after the last worker\'s first message to the first worker\'s last message; ' +
					'spread: the difference between the fastest and slowest worker\'s send rate in that window, as % of the fastest (0: equal shares). ' +
					'The fixed-bucket peer is this package with the transport\'s rateLimiter.ts and request.ts of the commit before the learned rate.',
			],
		};
	} finally {
		fixed.dispose();
	}
}

module.exports = { run };
