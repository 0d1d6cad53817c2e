'use strict';
// Scenario `memory`: Omnichannel Chat Memory beside n8n's Simple Memory
// (memoryBufferWindow, process memory) and Postgres Chat Memory
// (memoryPostgresChat, a private PostgreSQL from harness/services.js), in
// one real n8n (regular mode, SQLite), in the same run, with a stand-in
// OpenAI-compatible chat model on 127.0.0.1 (harness/fake-chat-model.js).
//
// Every peer is the same workflow: Omnichannel Trigger (customer messages of
// one channel type, Output Data Only) → AI Agent (the stand-in model, the
// peer's memory) → Omnichannel Send Text of the agent's answer. "No memory"
// is the agent alone, the baseline. The peers' memories hold the same
// window: ours 20 messages, n8n's 10 pairs, keyed by the conversation id.
// The rebuilt example (examples/ai-support-agent.json: Answer a Burst Once,
// Step Aside, the memory, one reply) runs beside them, with its quiet period
// cut to 1 s to save time (it changes no request).
//
// 1. Requests: per peer, one after the other, COUNT_TURNS customer messages
//    into a new conversation, each after the previous one was answered; the
//    sandbox's request counts (/stats) per turn. The memory's requests per
//    agent turn: the peer's minus the baseline's (the reply's send).
// 2. Time: BENCH_SAMPLES rounds (default 30), peers alternating, one turn
//    each, each peer in its own conversation (the history grows to the
//    window and stays there). From each execution's run data: the AI Agent's
//    execution time, and the memory sub-node's (summed over its calls in
//    the run). What the memory adds to a turn: the peer's median agent time
//    minus the baseline's.
//
//   npm run bench -- --only memory
//   BENCH_SAMPLES=30 npm run bench -- --only memory
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { startN8n, omnichannelCredential, waitFor, workflows: w, N8N_VERSION } = require('../../harness');
const { NODE_TYPES } = require('../../harness/node-types');
const { startFakeChatModel } = require('../../harness/fake-chat-model');
const { ensureServicePackages, startPostgres } = require('../../harness/services');
const { startSandboxProcess } = require('../../sandbox/process');
const { boundedInteger } = require('../lib/options');
const { quantile } = require('../lib/summary');

const MAX_SAMPLES = 200;
const COUNT_TURNS = 5;
/** The latency and rate limit the other API scenarios give the sandbox. */
const SANDBOX_LATENCY_MS = 100;
const RATE_LIMIT = 60;
const TURN_TIMEOUT_MS = 60_000;
const GOAL_MEMORY_REQUESTS = 1;
const GOAL_EXAMPLE_REQUESTS = 2;

const TRIGGER = 'Customer wrote in';
const AGENT = 'AI Agent';
const MEMORY = 'Memory';
const MODEL = 'Chat model';
const REPLY = 'Reply';
const MODEL_CREDENTIAL = { id: 'benchFakeModel01', name: 'Stand-in chat model' };
const PG_CREDENTIAL = { id: 'benchPostgres001', name: 'Bench PostgreSQL' };

const PEERS = {
	none: { label: 'No memory (the baseline)', id: 'benchMemoryNone1', channel: 'telegram' },
	ours: { label: 'Omnichannel Chat Memory (reads the conversation)', id: 'benchMemoryOurs1', channel: 'whatsapp' },
	simple: { label: "n8n's Simple Memory (process memory)", id: 'benchMemorySimp1', channel: 'email' },
	postgres: { label: "n8n's Postgres Chat Memory", id: 'benchMemoryPg001', channel: 'instagram' },
	example: { label: 'The rebuilt AI support example (burst, step aside, the memory, one reply)', id: 'exAiSupportAgent', channel: 'livechat', example: true },
};

const conversationKey = '={{ $json.conversation_id }}';
const memoryNodes = {
	none: () => undefined,
	ours: (credential) =>
		w.node(MEMORY, NODE_TYPES.memory, { sessionIdType: 'fromTrigger', contextWindowLength: 20 }, { credentials: { omnichannelApi: { id: credential.id, name: credential.name } } }),
	simple: () => w.node(MEMORY, '@n8n/n8n-nodes-langchain.memoryBufferWindow', { sessionIdType: 'customKey', sessionKey: conversationKey, contextWindowLength: 10 }, { typeVersion: 1.3 }),
	postgres: () =>
		w.node(MEMORY, '@n8n/n8n-nodes-langchain.memoryPostgresChat', { sessionIdType: 'customKey', sessionKey: conversationKey, contextWindowLength: 10 }, {
			typeVersion: 1.3,
			credentials: { postgres: PG_CREDENTIAL },
		}),
};

const modelNode = () =>
	w.node(MODEL, '@n8n/n8n-nodes-langchain.lmChatOpenAi', { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} }, {
		typeVersion: 1.2,
		credentials: { openAiApi: MODEL_CREDENTIAL },
	});

function peerWorkflow(key, credential) {
	const peer = PEERS[key];
	const memory = memoryNodes[key](credential);
	const workflow = w.workflow({
		id: peer.id,
		name: `Bench memory: ${peer.label}`,
		nodes: [
			w.omnichannelTrigger(TRIGGER, credential, { events: ['message.created'], options: { directions: ['customer'], channelTypes: [peer.channel], outputDataOnly: true } }),
			w.node(AGENT, '@n8n/n8n-nodes-langchain.agent', { promptType: 'define', text: '={{ $json.content }}', options: { systemMessage: 'You answer customers.' } }, { typeVersion: 3.1 }),
			modelNode(),
			...(memory ? [memory] : []),
			w.omnichannelNode(REPLY, credential, {
				resource: 'message',
				operation: 'sendText',
				conversationId: w.byId(`={{ $('${TRIGGER}').first().json.conversation_id }}`),
				text: '={{ $json.output }}',
				options: { clientRequestId: `=n8n_bench-reply-{{ $('${TRIGGER}').first().json.id }}` },
			}),
		],
		connections: [
			[TRIGGER, AGENT],
			[AGENT, REPLY],
		],
	});
	workflow.connections[MODEL] = { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] };
	if (memory) workflow.connections[MEMORY] = { ai_memory: [[{ node: AGENT, type: 'ai_memory', index: 0 }]] };
	return workflow;
}

/** The shipped example, with the bench's credential, the stand-in model, its channel, and a 1 s quiet period. */
function exampleWorkflow(credential) {
	const example = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'ai-support-agent.json'), 'utf8'));
	const nodes = example.nodes.map((shipped) => {
		const node = shipped.credentials?.omnichannelApi ? { ...shipped, credentials: { omnichannelApi: { id: credential.id, name: credential.name } } } : shipped;
		if (node.type !== NODE_TYPES.trigger) return node;
		const options = { ...node.parameters.options, burstQuietSeconds: 1, channelTypes: [PEERS.example.channel] };
		return { ...node, webhookId: crypto.randomUUID(), parameters: { ...node.parameters, options } };
	});
	const model = modelNode();
	const workflow = {
		...example,
		nodes: [...nodes, model],
		connections: { ...example.connections, [MODEL]: { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] } },
	};
	const nameOf = (type) => example.nodes.find((node) => node.type === type).name;
	return { workflow, names: { memory: nameOf(NODE_TYPES.memory), reply: nameOf(NODE_TYPES.action) } };
}

async function setUp(sandbox, log) {
	const { client } = sandbox;
	await client.control('PUT', '/faults', { latency_ms: SANDBOX_LATENCY_MS, rate_limit_per_second: RATE_LIMIT });
	ensureServicePackages();
	const postgres = await startPostgres();
	const model = await startFakeChatModel((body, count) => ({ content: `Answer ${count}` }));
	let n8n;
	try {
		const credential = omnichannelCredential({ id: 'benchMemoryCred1', name: 'Bench sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
		const pg = postgres.env;
		n8n = await startN8n({ start: false });
		await n8n.importCredentials([
			credential,
			{ ...MODEL_CREDENTIAL, type: 'openAiApi', data: { apiKey: 'sk-bench-stand-in', url: model.url, header: false } },
			{
				...PG_CREDENTIAL,
				type: 'postgres',
				data: { host: '127.0.0.1', port: Number(pg.DB_POSTGRESDB_PORT), database: pg.DB_POSTGRESDB_DATABASE, user: pg.DB_POSTGRESDB_USER, password: pg.DB_POSTGRESDB_PASSWORD, ssl: 'disable' },
			},
		]);
		const example = exampleWorkflow(credential);
		await n8n.importWorkflows([...['none', 'ours', 'simple', 'postgres'].map((key) => peerWorkflow(key, credential)), example.workflow]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		for (const peer of Object.values(PEERS)) await n8n.publishWorkflow(peer.id);
		await waitFor(async () => ((await client.listAll('/webhooks')).length >= Object.keys(PEERS).length ? true : undefined), {
			what: 'every workflow’s trigger to register its webhook',
			timeoutMs: 120_000,
		});
		log('n8n up, 5 workflows published');
		const channels = await client.listAll('/channels');
		const channelOf = (type) => channels.find((channel) => channel.type === type && channel.is_active);
		for (const peer of Object.values(PEERS)) {
			if (!channelOf(peer.channel)) throw new Error(`the sandbox has no active ${peer.channel} channel`);
		}
		return {
			n8n,
			model,
			client,
			/** The memory and reply node of each peer's workflow: the example names its own. */
			names: (key) => (key === 'example' ? example.names : { memory: MEMORY, reply: REPLY }),
			newConversation: async (key) => (await client.control('POST', '/conversations', { channel_id: channelOf(PEERS[key].channel).id })).id,
			seen: Object.fromEntries(Object.values(PEERS).map((peer) => [peer.id, new Set()])),
			async dispose() {
				try {
					await n8n.dispose();
				} finally {
					await model.close();
					await postgres.stop();
				}
			},
		};
	} catch (error) {
		await n8n?.dispose();
		await model.close();
		await postgres.stop();
		throw error;
	}
}

/** One customer message into the peer's conversation; resolves with the finished execution it started. */
async function turn(context, key, conversationId, text) {
	const workflowId = PEERS[key].id;
	const seen = context.seen[workflowId];
	await context.client.control('POST', '/inbound', { conversation_id: conversationId, text });
	const execution = await waitFor(
		async () => {
			const fresh = (await context.n8n.listExecutions({ workflowId })).filter((e) => !seen.has(String(e.id)));
			return fresh.length > 0 && fresh.every((e) => e.finished || e.stoppedAt) ? fresh : undefined;
		},
		{ what: `the execution of a ${key} turn`, timeoutMs: TURN_TIMEOUT_MS, intervalMs: 100 },
	);
	for (const e of execution) seen.add(String(e.id));
	const { data, status } = await context.n8n.api.getExecution(execution[0].id);
	const runData = data.resultData.runData;
	const names = context.names(key);
	const memoryRuns = runData[names.memory] ?? [];
	return {
		status,
		executions: execution.length,
		agentMs: runData[AGENT]?.[0]?.executionTime ?? null,
		memoryMs: memoryRuns.length > 0 ? memoryRuns.reduce((sum, run) => sum + (run.executionTime ?? 0), 0) : null,
		memoryCalls: memoryRuns.length,
		replied: Boolean(runData[names.reply]?.[0]?.data?.main?.[0]?.length),
	};
}

/** Phase 1: the sandbox's request counts per turn, peer by peer. */
async function countRequests(context, log) {
	const counts = {};
	for (const key of Object.keys(PEERS)) {
		const conversationId = await context.newConversation(key);
		await context.client.control('DELETE', '/stats');
		const turns = [];
		for (let index = 0; index < COUNT_TURNS; index++) turns.push(await turn(context, key, conversationId, `Count turn ${index + 1}`));
		const stats = await context.client.control('GET', '/stats');
		counts[key] = {
			turns: COUNT_TURNS,
			answered: turns.filter((t) => t.replied).length,
			requests_per_turn: stats.requests / COUNT_TURNS,
			by_route_per_turn: Object.fromEntries(Object.entries(stats.by_route).map(([route, n]) => [route, n / COUNT_TURNS])),
		};
		log(`${key}: ${JSON.stringify(counts[key])}`);
	}
	return counts;
}

/** Phase 2: BENCH_SAMPLES rounds, peers alternating, one turn each. */
async function measureTimes(context, samples, log) {
	const conversations = {};
	for (const key of Object.keys(PEERS)) conversations[key] = await context.newConversation(key);
	const results = Object.fromEntries(Object.keys(PEERS).map((key) => [key, []]));
	const keys = Object.keys(PEERS);
	for (let round = 0; round < samples; round++) {
		const order = round % 2 === 0 ? keys : [...keys].reverse();
		for (const key of order) results[key].push(await turn(context, key, conversations[key], `Round ${round + 1}: where is my order?`));
		if ((round + 1) % 10 === 0) log(`${round + 1}/${samples} rounds`);
	}
	return results;
}

const median = (values) => {
	const numbers = values.filter((value) => typeof value === 'number');
	return numbers.length === 0 ? null : quantile(numbers, 0.5);
};

function markdown(json) {
	const rows = Object.entries(json.peers).map(
		([key, peer]) =>
			`| ${peer.label} | ${peer.requests_per_turn} | ${peer.memory_requests_per_turn ?? '—'} | ${peer.median_agent_ms} | ${peer.memory_adds_ms ?? '—'} | ${peer.median_memory_ms ?? '—'} | ${peer.median_memory_calls ?? '—'} | ${peer.failed_turns} |`,
	);
	return [
		'# Chat memory benchmark',
		'',
		`Measured ${json.measured_at} in n8n ${json.n8n}, regular mode (SQLite), ${json.machine.cpus} CPUs, by \`${json.command}\`. Load average (1 min) ${json.machine.load_average_start[0].toFixed(2)} → ${json.machine.load_average_end[0].toFixed(2)}.`,
		`Sandbox latency ${json.sandbox.latency_ms} ms, ${json.sandbox.rate_limit_per_second} requests/s per key; a stand-in chat model on 127.0.0.1 (no model time worth counting).`,
		'',
		`Requests: ${COUNT_TURNS} turns per peer, one after the other, each in a new conversation. Times: ${json.samples} rounds, peers alternating, medians. "Memory adds": the peer's median AI Agent time minus the no-memory baseline's. "Memory node": the memory sub-node's own execution time in the run data, summed over its calls in one agent run.`,
		'',
		'| Peer | API requests per turn | of them the memory | median AI Agent ms | memory adds ms | median memory node ms | memory calls per run | failed turns |',
		'|---|---:|---:|---:|---:|---:|---:|---:|',
		...rows,
		'',
		'## Goals',
		'',
		'| Goal | Value | Met |',
		'|---|---|---|',
		...json.goals.map((g) => `| ${g.goal} | ${g.value} | ${g.met === null ? 'info' : g.met ? 'yes' : '**no**'} |`),
		'',
		...json.notes.map((note) => `${note}\n`),
	].join('\n');
}

async function run({ log }) {
	const samples = boundedInteger('BENCH_SAMPLES', process.env.BENCH_SAMPLES, 30, MAX_SAMPLES);
	const sandbox = await startSandboxProcess();
	try {
		const context = await setUp(sandbox, log);
		try {
			const faults = await sandbox.client.control('GET', '/faults');
			const loadStart = os.loadavg();
			const counts = await countRequests(context, log);
			const times = await measureTimes(context, samples, log);
			const loadEnd = os.loadavg();
			const baselineAgent = median(times.none.map((t) => t.agentMs));
			const peers = {};
			for (const [key, peer] of Object.entries(PEERS)) {
				const agent = median(times[key].map((t) => t.agentMs));
				const hasMemory = key !== 'none';
				peers[key] = {
					label: peer.label,
					requests_per_turn: counts[key].requests_per_turn,
					requests_by_route_per_turn: counts[key].by_route_per_turn,
					memory_requests_per_turn: hasMemory && !peer.example ? counts[key].requests_per_turn - counts.none.requests_per_turn : null,
					median_agent_ms: agent,
					// The example's agent also has a tool: its agent time is not comparable with the baseline's.
					memory_adds_ms: hasMemory && !peer.example && agent !== null && baselineAgent !== null ? agent - baselineAgent : null,
					median_memory_ms: hasMemory ? median(times[key].map((t) => t.memoryMs)) : null,
					median_memory_calls: hasMemory ? median(times[key].map((t) => t.memoryCalls)) : null,
					failed_turns: times[key].filter((t) => t.status !== 'success' || !t.replied).length + (counts[key].turns - counts[key].answered),
					turns: times[key],
				};
			}
			const json = {
				measured_at: new Date().toISOString(),
				n8n: N8N_VERSION,
				machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30), load_average_start: loadStart, load_average_end: loadEnd },
				command: `BENCH_SAMPLES=${samples} npm run bench -- --only memory`,
				sandbox: { latency_ms: faults.latency_ms, jitter_ms: faults.jitter_ms, rate_limit_per_second: faults.rate_limit_per_second },
				samples,
				count_turns: COUNT_TURNS,
				peers,
				goals: [
					{
						goal: `Omnichannel Chat Memory: API requests per agent turn ≤ ${GOAL_MEMORY_REQUESTS}`,
						value: String(peers.ours.memory_requests_per_turn),
						met: peers.ours.memory_requests_per_turn <= GOAL_MEMORY_REQUESTS,
					},
					{
						goal: `the rebuilt AI support example: API requests per answered customer message ≤ ${GOAL_EXAMPLE_REQUESTS}`,
						value: `${counts.example.requests_per_turn} (${counts.example.answered}/${counts.example.turns} answered)`,
						met: counts.example.requests_per_turn <= GOAL_EXAMPLE_REQUESTS && counts.example.answered === counts.example.turns,
					},
					{ goal: 'every turn of every peer answered (a check of the bench)', value: Object.entries(peers).map(([k, p]) => `${k} ${p.failed_turns} failed`).join(', '), met: Object.values(peers).every((p) => p.failed_turns === 0) },
				],
				notes: [
					"Simple Memory keeps its history in the n8n process: it is lost on a restart and not shared between queue-mode workers (n8n-io/n8n#19778). Postgres Chat Memory copies each turn into its table and never sees what people wrote in the inbox. Omnichannel Chat Memory stores nothing: it reads the conversation once per agent run, or takes the trigger's read when an option of the trigger read it (the example: Answer a Burst Once and Step Aside).",
					'The example runs with its quiet period cut to 1 s and its own channel; no person writes, so Step Aside never stops it. Its agent also has a tool (Find contact), which the stand-in model never calls.',
				],
			};
			for (const goal of json.goals) log(`${goal.met === null ? 'info  ' : goal.met ? 'met   ' : 'MISSED'} ${goal.goal}: ${goal.value}`);
			log(
				`memory: ours adds ${peers.ours.memory_adds_ms} ms (node ${peers.ours.median_memory_ms} ms), simple ${peers.simple.memory_adds_ms} ms (node ${peers.simple.median_memory_ms} ms), postgres ${peers.postgres.memory_adds_ms} ms (node ${peers.postgres.median_memory_ms} ms); example memory node ${peers.example.median_memory_ms} ms`,
			);
			return { json, markdown: markdown(json) };
		} finally {
			await context.dispose();
		}
	} finally {
		await sandbox.client.control('DELETE', '/faults').catch(() => {});
		await sandbox.close();
	}
}

module.exports = { run, markdown };
