'use strict';
// Scenario `chat-stream-queue`: chat waits under a stream of customer
// messages, queue mode (PostgreSQL, Redis, main, 2 workers, a webhook
// process) with n8n's defaults, beside n8n's Webhook node → Wait node
// resumed by a relay, at the same rates in the same run.
//
// Ours (harness/chat-stream.js): Omnichannel Trigger → Send and Wait (Reply
// in Chat, no limit) → HTTP Request to the bench's recorder. WAITS customers
// (live chat) write and their executions wait; then customers write RATE
// messages a second for SECONDS, every 10th a reply to one of the waits, the
// others the first message of a new conversation (whose run asks and waits).
// Peer: Webhook → Send Text (the question with $execution.resumeUrl) → Wait
// (On Webhook Call) → the same HTTP Request, for telegram conversations: a
// relay of the bench checks each delivery's signature, starts a run (POST
// to the Webhook node) for a conversation it knows no wait of, and resumes
// the wait (POST to its resume URL, read from the question) for one it does.
//
// Measured per peer and rate: how fast n8n (ours) or the relay's call of
// n8n (peer) answered each delivery (the bench's relay in front of n8n),
// deliveries not answered within the sender's 10 s, 503s and retried
// deliveries (the sandbox's log), and 3 minutes after the stream: replies
// resumed once / lost / doubled / that started a run, other messages run
// once / lost / doubled, executions per message; for ours also the queries
// n8n's database ran per delivery, by table (pg_stat_statements).
//
//   npm run bench -- --only chat-stream-queue
//   BENCH_STREAM_RATES=6 BENCH_STREAM_WAITS=200 BENCH_STREAM_SECONDS=60 npm run bench -- --only chat-stream-queue
const crypto = require('crypto');
const http = require('http');
const os = require('os');

const { omnichannelCredential, sleep, waitFor, workflows: w, N8N_VERSION, startProcesses, startQueueCluster } = require('../../harness');
const { QUESTION, chatStream, chatStreamWorkflow, readerClient, recordNode, startRecorder } = require('../../harness/chat-stream');
const { hasValidSignature } = require('../../sandbox/webhooks/signing');
const { startSandboxProcess } = require('../../sandbox/process');
const { startRelay } = require('../lib/intakeRelay');
const { boundedInteger } = require('../lib/options');
const { quantile } = require('../lib/summary');
const { treeCpuSeconds } = require('../lib/processCpu');

const OURS = { id: 'benchChatStream1', label: 'Omnichannel Trigger → Send and Wait (Reply in Chat) → HTTP Request' };
const PEER = { id: 'benchStreamPeer1', label: "n8n's Webhook → Send Text → Wait node (resumed by a relay) → HTTP Request", channel: 'telegram', path: 'bench-stream-peer' };
const SETTLE_MS = 3 * 60_000;
/** How long the opening messages may take to leave their waits; the stream then runs over those that did. */
const FILL_TIMEOUT_MS = 5 * 60_000;
/** The sender's patience: a delivery not answered by then counts as failed and is sent again. */
const SENDER_TIMEOUT_MS = 10_000;
const GOAL_MEDIAN_MS = 1000;

/** Which table a query of n8n's serves, for the per-delivery counts. */
const TABLES = [
	['credentials', /credentials_entity/i],
	['de-duplication', /processed_data/i],
	['executions', /execution_(entity|data|metadata|annotation)/i],
	['workflows and static data', /workflow_(entity|statistics|published|history)|shared_workflow/i],
	['webhooks', /webhook_entity/i],
];
const tableOf = (query) => TABLES.find(([, pattern]) => pattern.test(query))?.[0] ?? 'other';

function peerWorkflow(credential, recorderUrl) {
	return w.workflow({
		id: PEER.id,
		name: 'Bench: Webhook → Wait resumed by a relay',
		nodes: [
			w.node('Request', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path: PEER.path, responseMode: 'onReceived', options: {} }, { typeVersion: 2, webhookId: crypto.randomUUID() }),
			w.omnichannelNode('Ask', credential, {
				resource: 'message',
				operation: 'sendText',
				conversationId: w.byId('={{ $json.body.conversation_id }}'),
				text: `={{ ${JSON.stringify(QUESTION)} + "\\n\\nResume: " + $execution.resumeUrl }}`,
			}),
			w.node('Wait', 'n8n-nodes-base.wait', { resume: 'webhook', httpMethod: 'POST', options: {} }, { typeVersion: 1.1, webhookId: crypto.randomUUID() }),
			recordNode('Record', recorderUrl, { conversation: '$json.body.reply.conversation_id', text: '$json.body.reply.content' }),
		],
		connections: w.chain('Request', 'Ask', 'Wait', 'Record'),
	});
}

/**
 * The peer's relay: a webhook receiver on 127.0.0.1 that checks the
 * sandbox's signature, learns each telegram conversation's resume URL from
 * the question, resumes the wait with a customer's message when there is
 * one, and starts a run otherwise.
 */
async function startPeerRelay(n8nUrl) {
	const resumeUrls = new Map();
	/** Per customer message: the call it makes (a resume URL, or none: a start) and whether n8n took it. */
	const actions = new Map();
	let secret;
	const agent = new http.Agent({ keepAlive: true });
	const calls = [];
	const post = (url, json) =>
		new Promise((resolve) => {
			const payload = JSON.stringify(json);
			const started = Date.now();
			const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (answer) => {
				answer.resume();
				answer.on('end', () => resolve({ status: answer.statusCode, ms: Date.now() - started }));
			});
			request.setTimeout(SENDER_TIMEOUT_MS, () => request.destroy());
			request.on('error', () => resolve({ status: null, ms: Date.now() - started }));
			request.end(payload);
		});
	const server = http.createServer((request, response) => {
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('end', async () => {
			const body = Buffer.concat(chunks).toString('utf8');
			if (!hasValidSignature(secret, request.headers, body)) return response.writeHead(401).end();
			const event = JSON.parse(body);
			const message = event.data;
			if (event.type !== 'message.created' || message?.channel !== PEER.channel) return response.writeHead(200).end();
			const resume = /Resume: (\S+)\s*$/.exec(message.content ?? '');
			if (resume) {
				resumeUrls.set(message.conversation_id, resume[1]);
				return response.writeHead(200).end();
			}
			if (message.from_customer !== true) return response.writeHead(200).end();
			// A message is started or resumed once: a copy the sender delivers again repeats the same call, until n8n took it.
			const action = actions.get(message.id) ?? { url: resumeUrls.get(message.conversation_id), done: false };
			actions.set(message.id, action);
			if (action.done) return response.writeHead(200).end();
			if (action.url) resumeUrls.delete(message.conversation_id);
			// As a Webhook node answers: the delivery is acknowledged once n8n took the call.
			const call = action.url ? await post(action.url, { reply: message }) : await post(`${n8nUrl()}/webhook/${PEER.path}`, { conversation_id: message.conversation_id });
			calls.push({ ...call, kind: action.url ? 'resume' : 'start' });
			action.done = call.status >= 200 && call.status < 300;
			response.writeHead(action.done ? 200 : 503).end();
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}/`,
		setSecret: (value) => (secret = value),
		calls,
		async close() {
			agent.destroy();
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

/** How the opening messages went: how many runs asked within FILL_TIMEOUT_MS, deliveries, answers. */
async function fillFigures(context, peer, waits, asked, startedAt) {
	const attempts = await context.control('GET', '/deliveries');
	const latencies = peer === 'ours' ? context.relay.responses().filter((r) => r.path.startsWith('/webhook/')).map((r) => r.at - r.arrivedAt) : context.peerRelay.calls.map((c) => c.ms);
	return {
		messages: waits,
		asked,
		seconds: Math.round((Date.now() - startedAt) / 1000),
		deliveries: attempts.length,
		not_answered_in_10s: attempts.filter((a) => a.status === null).length,
		status_503: attempts.filter((a) => a.status === 503).length,
		answer_median_ms: quantile(latencies, 0.5),
	};
}

/** One peer at one rate: fill, stream, settle; the figures. */
async function measureLevel(context, { peer, rate, waits, seconds, log }) {
	const { client, control, cluster } = context;
	const recorder = context.recorders[peer];
	recorder.calls.length = 0;
	const channel = (await client.listAll('/channels')).find((c) => c.type === (peer === 'ours' ? 'livechat' : PEER.channel) && c.is_active);
	const driver = chatStream({ control, client, channelId: channel.id });
	const workflowId = peer === 'ours' ? OURS.id : PEER.id;
	const before = new Set((await cluster.main.listExecutions({ workflowId, maxPages: 100 })).map((e) => e.id));
	log(`${peer} at ${rate}/s: ${waits} customers write first`);
	await control('DELETE', '/deliveries');
	context.relay.reset();
	context.peerRelay.calls.length = 0;
	const fillStarted = Date.now();
	const waiting = await driver.fillWaits(waits, { partial: true, timeoutMs: FILL_TIMEOUT_MS });
	const fill = await fillFigures(context, peer, waits, waiting.length, fillStarted);
	log(`${peer} at ${rate}/s: fill ${JSON.stringify(fill)}`);
	await sleep(3000);
	await control('DELETE', '/deliveries');
	context.relay.reset();
	context.peerRelay.calls.length = 0;
	cluster.postgres.resetStatements();
	const cpuBefore = cpuOf(cluster);
	log(`${peer} at ${rate}/s: the stream (${Math.round(rate * seconds)} messages)`);
	const sent = await driver.stream({ waiting, rate, seconds });
	const streamEnded = Date.now();
	log(`${peer} at ${rate}/s: settling (up to ${SETTLE_MS / 1000} s)`);
	await waitFor(async () => await driver.settled(recorder, sent), { what: 'every message accounted for', timeoutMs: SETTLE_MS, intervalMs: 5000 }).catch(() => undefined);
	await sleep(Math.max(0, streamEnded + 20_000 - Date.now()));
	// Read once the stream's executions and retries are done: what the stream asked of the database in all.
	const statements = cluster.postgres.statements();
	const cpuAfter = cpuOf(cluster);
	const answered = context.relay.responses().filter((r) => r.path.startsWith('/webhook/'));
	const outcomes = await driver.outcomesOf(recorder, sent);
	const attempts = (await control('GET', '/deliveries')).filter((d) => sent.some((m) => m.id === d.data_id));
	const executions = (await cluster.main.listExecutions({ workflowId, maxPages: 100 })).filter((e) => !before.has(e.id));
	const byTable = {};
	for (const { calls, query } of statements) byTable[tableOf(query)] = (byTable[tableOf(query)] ?? 0) + calls;
	const deliveries = peer === 'ours' ? answered.length : attempts.length;
	const latencies = peer === 'ours' ? answered.map((r) => r.at - r.arrivedAt) : context.peerRelay.calls.map((c) => c.ms);
	const result = {
		peer,
		rate,
		waits: waiting.length,
		fill,
		messages: sent.length,
		deliveries: attempts.length,
		deliveries_per_message: round(attempts.length / sent.length),
		answer_median_ms: quantile(latencies, 0.5),
		answer_p95_ms: quantile(latencies, 0.95),
		not_answered_in_10s: attempts.filter((a) => a.status === null).length,
		status_503: attempts.filter((a) => a.status === 503).length,
		messages_retried: new Set(attempts.filter((a) => a.attempt > 1).map((a) => a.data_id)).size,
		replies: outcomes.replies,
		others: outcomes.others,
		lost_examples: outcomes.lost,
		executions_created: executions.length,
		executions_per_message: round(executions.length / sent.length),
		database_queries_during_stream: statements.reduce((sum, s) => sum + s.calls, 0),
		database_queries_per_delivery: round(statements.reduce((sum, s) => sum + s.calls, 0) / Math.max(1, deliveries)),
		database_queries_per_delivery_by_table: Object.fromEntries(Object.entries(byTable).map(([table, calls]) => [table, round(calls / Math.max(1, deliveries))])),
		cpu_seconds: Object.fromEntries(Object.keys(cpuAfter).map((name) => [name, round(cpuAfter[name] - cpuBefore[name])])),
		cpu_ms_per_message: Object.fromEntries(Object.keys(cpuAfter).map((name) => [name, Math.round(((cpuAfter[name] - cpuBefore[name]) * 1000) / sent.length)])),
		database_top_queries: statements
			.sort((a, b) => b.calls - a.calls)
			.slice(0, 12)
			.map(({ calls, query }) => ({ calls, query: query.slice(0, 160) })),
	};
	log(`${peer} at ${rate}/s: ${JSON.stringify(result)}`);
	return result;
}

const round = (value) => Math.round(value * 100) / 100;

/** CPU seconds used so far by each part of the cluster (the workers together; PostgreSQL with its backends). */
function cpuOf(cluster) {
	const of = (n8n) => (n8n.pid ? treeCpuSeconds(n8n.pid) : 0);
	return {
		webhook: of(cluster.webhook),
		workers: cluster.workers.reduce((sum, worker) => sum + of(worker), 0),
		main: of(cluster.main),
		postgres: cluster.postgres.pid ? treeCpuSeconds(cluster.postgres.pid) : 0,
	};
}

function markdown(results) {
	const cell = (level, key) => {
		const value = level[key];
		if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => `${k} ${v}`).join(', ');
		return value ?? '';
	};
	const rows = [
		['opening messages: runs that asked within 5 min / sent', (l) => `${l.fill.asked} / ${l.fill.messages} (${l.fill.seconds} s)`],
		['opening messages: deliveries, not answered within 10 s, 503, median answer ms', (l) => `${l.fill.deliveries}, ${l.fill.not_answered_in_10s}, ${l.fill.status_503}, ${l.fill.answer_median_ms}`],
		['waiting executions the stream replies to', (l) => l.waits],
		['messages sent (replies / others)', (l) => `${l.messages} (${l.replies.sent} / ${l.others.sent})`],
		['deliveries to n8n (per message)', (l) => `${l.deliveries} (${l.deliveries_per_message})`],
		['**answer to a delivery, median / p95 ms**', (l) => `${l.answer_median_ms} / ${l.answer_p95_ms}`],
		['not answered within 10 s', (l) => cell(l, 'not_answered_in_10s')],
		['503', (l) => cell(l, 'status_503')],
		['**messages delivered more than once**', (l) => cell(l, 'messages_retried')],
		['**replies: resumed once / lost / doubled / started a run**', (l) => `${l.replies.once} / ${l.replies.lost} / ${l.replies.doubled} / ${l.replies.startedRun}`],
		['**other messages: ran once / lost / doubled**', (l) => `${l.others.once} / ${l.others.lost} / ${l.others.doubled}`],
		['executions created (per message)', (l) => `${l.executions_created} (${l.executions_per_message})`],
		['CPU ms per message, by process (the stream and its settling)', (l) => cell(l, 'cpu_ms_per_message')],
		['database queries per delivery', (l) => cell(l, 'database_queries_per_delivery')],
		['of them, by table', (l) => cell(l, 'database_queries_per_delivery_by_table')],
	];
	const levels = results.levels;
	const lines = [
		'# Chat waits under a stream (queue mode)',
		'',
		`Measured ${results.measured_at}, n8n ${results.n8n}, queue mode (PostgreSQL, Redis, main, 2 workers, a webhook process), n8n's defaults, ${results.machine.cpus} CPUs, load average before ${results.load_before}. Sandbox latency ${results.latency_ms} ms.`,
		`Command: \`${results.command}\`. ${results.waits} executions wait, then ${results.seconds} s of messages at each rate, every 10th a reply to a wait; counted ${SETTLE_MS / 60000} minutes after the stream at the latest.`,
		'',
		`| | ${levels.map((l) => `${l.peer === 'ours' ? 'ours' : 'peer'} at ${l.rate}/s`).join(' | ')} |`,
		`|---|${levels.map(() => '---').join('|')}|`,
		...rows.map(([label, value]) => `| ${label} | ${levels.map(value).join(' | ')} |`),
		'',
		`Ours: ${OURS.label}. Peer: ${PEER.label}; its answer time is the relay's call of n8n (the start or the resume); its database queries per delivery count the sandbox's deliveries to the relay.`,
		'',
		'## Goals (ours)',
		'',
		'| Goal | Value | Met |',
		'|---|---|---|',
		...results.goals.map((g) => `| ${g.goal} | ${g.value} | ${g.met ? 'yes' : '**no**'} |`),
		'',
	];
	return lines.join('\n');
}

function goalsOf(levels) {
	const goals = [];
	for (const level of levels.filter((l) => l.peer === 'ours')) {
		const exact = level.replies.once === level.replies.sent && level.others.once === level.others.sent;
		goals.push({ goal: `${level.rate}/s: every reply resumed once, every other message ran once (0 lost, 0 doubled)`, value: `${level.replies.once}/${level.replies.sent}, ${level.others.once}/${level.others.sent}`, met: exact });
		if (level.rate <= 6) {
			goals.push(
				{ goal: `${level.rate}/s: median answer to a delivery at most ${GOAL_MEDIAN_MS} ms`, value: `${level.answer_median_ms} ms`, met: level.answer_median_ms <= GOAL_MEDIAN_MS },
				{ goal: `${level.rate}/s: no message delivered twice`, value: level.messages_retried, met: level.messages_retried === 0 },
			);
		}
		goals.push({ goal: `${level.rate}/s: at most one execution per message`, value: level.executions_per_message, met: level.executions_created <= level.others.sent + level.fill.messages });
	}
	return goals;
}

/** BENCH_CPU_PROFILE_DIR: every n8n process writes a V8 CPU profile there when it stops (node --cpu-prof). */
function profileEnv() {
	const dir = process.env.BENCH_CPU_PROFILE_DIR;
	return dir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}`, N8N_GRACEFUL_SHUTDOWN_TIMEOUT: "8" } : {};
}

async function run({ log }) {
	const rates = (process.env.BENCH_STREAM_RATES ?? '6,10').split(',').map((rate) => boundedInteger('BENCH_STREAM_RATES', rate.trim(), 6, 50));
	const waits = boundedInteger('BENCH_STREAM_WAITS', process.env.BENCH_STREAM_WAITS, 200, 1000);
	const seconds = boundedInteger('BENCH_STREAM_SECONDS', process.env.BENCH_STREAM_SECONDS, 60, 600);
	const latencyMs = boundedInteger('BENCH_STREAM_LATENCY_MS', process.env.BENCH_STREAM_LATENCY_MS, 100, 1000);
	const peers = (process.env.BENCH_STREAM_PEERS ?? 'ours,peer').split(',').filter((peer) => peer === 'ours' || peer === 'peer');
	const loadBefore = os.loadavg()[0].toFixed(1);
	const sandbox = await startSandboxProcess();
	const recorders = { ours: await startRecorder(), peer: await startRecorder() };
	let cluster;
	const relay = await startRelay(() => cluster.webhook.port);
	const peerRelay = await startPeerRelay(() => relay.url);
	try {
		await sandbox.client.control('PUT', '/faults', { latency_ms: latencyMs });
		const credential = omnichannelCredential({ id: 'benchStreamCred1', name: 'Bench sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
		cluster = await startQueueCluster({ start: false, tarball: process.env.BENCH_TARBALL || undefined, env: { WEBHOOK_URL: `${relay.url}/`, ...profileEnv() }, postgres: { statements: true } });
		await cluster.main.importCredentials([credential]);
		await cluster.main.importWorkflows([chatStreamWorkflow(credential, { id: OURS.id, recorderUrl: recorders.ours.url }), peerWorkflow(credential, recorders.peer.url)]);
		await startProcesses(cluster);
		await cluster.main.setupOwnerAndApiKey();
		await cluster.main.publishWorkflow(OURS.id);
		await cluster.main.publishWorkflow(PEER.id);
		const client = await readerClient(sandbox, sandbox.client.control);
		await waitFor(async () => ((await client.listAll('/webhooks')).some((hook) => hook.url.startsWith(relay.url)) ? true : undefined), { what: 'the trigger’s webhook', timeoutMs: 60_000 });
		const hook = await client.api('POST', '/webhooks', { url: peerRelay.url, events: ['message.created'], description: 'bench peer relay' });
		peerRelay.setSecret(hook.secret);
		const context = { client, control: sandbox.client.control, cluster, relay, peerRelay, recorders };
		const levels = [];
		for (const rate of rates) {
			for (const peer of peers) levels.push(await measureLevel(context, { peer, rate, waits, seconds, log }));
		}
		const results = {
			measured_at: new Date().toISOString(),
			n8n: N8N_VERSION,
			machine: { cpus: os.cpus().length },
			load_before: loadBefore,
			latency_ms: latencyMs,
			command: `BENCH_STREAM_RATES=${rates.join(',')} BENCH_STREAM_WAITS=${waits} BENCH_STREAM_SECONDS=${seconds} npm run bench -- --only chat-stream-queue`,
			waits,
			seconds,
			levels,
		};
		results.goals = goalsOf(levels);
		for (const goal of results.goals) log(`${goal.met ? 'met   ' : 'MISSED'} ${goal.goal}: ${goal.value}`);
		return { json: results, markdown: markdown(results) };
	} finally {
		await cluster?.dispose();
		await peerRelay.close();
		await relay.close();
		for (const recorder of Object.values(recorders)) await recorder.close();
		await sandbox.close();
	}
}

module.exports = { run };
