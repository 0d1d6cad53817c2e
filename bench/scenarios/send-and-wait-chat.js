'use strict';
// Scenario `send-and-wait-chat`: Send and Wait for Response answered in the
// chat (responseType 'chatReply'), in one real n8n (regular mode, SQLite),
// with n8n's own Wait node as the peer of the same run.
//
// Ours: Omnichannel Trigger (customer messages of live chat conversations)
// → Send and Wait for Response (chat reply) → No Operation ("Next"). A
// customer message starts it; the customer's next message reaches the
// waiting execution through the same trigger (one GET /messages, one call of
// the resume URL); nothing is registered at the service.
// Peer: Webhook → Send Text (the same one send, with $execution.resumeUrl in
// it) → Wait (On Webhook Call) → No Operation ("Next"), in telegram
// conversations (which our trigger's channel filter passes by). A relay of the
// bench on 127.0.0.1, registered at the sandbox as a webhook for
// message.created with the seeded key, checks each delivery's signature and
// POSTs the reply to the waiting execution's resume URL.
//
// Both reach n8n through one transparent relay of the bench (WEBHOOK_URL,
// bench/lib/intakeRelay.js), which counts every request to /webhook/ (the
// sandbox's deliveries to our trigger) and to /webhook-waiting/ (resume calls:
// our trigger's hand-overs, the peer relay's resumes). Path of a reply, ours:
// sandbox → relay → n8n (trigger) → relay → n8n (waiting execution); peer:
// sandbox → peer relay → relay → n8n (waiting execution): two bench hops each.
//
// 1. Speed: from the reply's created_at at the sandbox to the start of the
//    node after the wait (its run data's startTime), BENCH_SAMPLES samples
//    each (default 30), alternating, each in a new conversation, the reply
//    sent once n8n has saved the execution as waiting.
// 2. Scale (ours): 1, 100 and 1,000 executions waiting at once (lower the top
//    with BENCH_CHAT_WAITING), each in its own conversation, filled from
//    customer messages (control POST /inbound) with FILL_CONCURRENCY
//    deliveries outstanding. At each level: the API requests over an idle
//    window (what waiting costs), then K replies (BENCH_CHAT_REPLIES, default
//    20) to K of the waiting executions: deliveries to n8n (the sandbox's
//    delivery log and the relay's count), resume calls, executions created
//    in n8n during the phase, API requests (control GET /stats), and whether
//    each resumed execution got its own reply, once.
//
// `send-and-wait-chat-queue` measures the same in queue mode (PostgreSQL,
// Redis, deliveries and resume calls on the webhook process, the executions
// on 2 workers).
//
// The sandbox answers every API request after BENCH_CHAT_LATENCY_MS (100 ms,
// as in the other scenarios): ours reads the conversation once per reply.
//
//   BENCH_SAMPLES=30 BENCH_CHAT_WAITING=1000 npm run bench -- --only send-and-wait-chat
//   npm run bench -- --only send-and-wait-chat-queue
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
const MAX_WAITING = 2000;
const MAX_REPLIES = 200;
const LEVELS = [1, 100, 1000];
/** Customer messages whose delivery n8n has not yet acknowledged, while filling. */
const FILL_CONCURRENCY = 8;
/** Pause between the replies of the scale phase: 5 inbound messages a second. */
const REPLY_SPACING_MS = 200;
/** Window over which the API requests of executions that only wait are counted. */
const IDLE_WINDOW_MS = 10_000;
/** Time for anything that should not happen (a second run, a second resume, a late retry) to show up. */
const QUIET_MS = 3_000;
const GOAL_PERCENT = 110;
const RATE_LIMIT = 60;
/** Goals of the scale phase (issue #25). */
const GOAL_DELIVERIES_PER_INBOUND = 2;
const GOAL_EXECUTIONS_PER_INBOUND = 1;
const GOAL_API_SHARE = 0.05;

const PEERS = {
	chat: { label: 'Omnichannel Send and Wait for Response (chat reply), answered through the Omnichannel Trigger', id: 'benchChatWait001', channel: 'livechat' },
	waitNode: { label: "n8n's Wait node (On Webhook Call), resumed through $execution.resumeUrl by a relay of the same delivery", id: 'benchChatPeer001', channel: 'telegram', path: 'bench-chat-wait-node' },
};

function workflowsFor(credential) {
	const next = () => w.node('Next', 'n8n-nodes-base.noOp');
	const ours = w.workflow({
		id: PEERS.chat.id,
		name: 'Bench: Send and Wait answered in the chat',
		nodes: [
			w.omnichannelTrigger('Customer writes', credential, {
				events: ['message.created'],
				options: { directions: ['customer'], channelTypes: [PEERS.chat.channel], outputDataOnly: true },
			}),
			w.omnichannelNode('Ask', credential, {
				resource: 'message',
				operation: 'sendAndWait',
				conversationId: w.byId('={{ $json.conversation_id }}'),
				message: 'What is your order number?',
				responseType: 'chatReply',
				simplify: true,
			}),
			next(),
		],
		connections: w.chain('Customer writes', 'Ask', 'Next'),
	});
	const peer = w.workflow({
		id: PEERS.waitNode.id,
		name: 'Bench: Wait node resumed by a relay',
		nodes: [
			w.node('Request', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path: PEERS.waitNode.path, responseMode: 'onReceived', options: {} }, {
				typeVersion: 2,
				webhookId: crypto.randomUUID(),
			}),
			w.omnichannelNode('Announce', credential, {
				resource: 'message',
				operation: 'sendText',
				conversationId: w.byId('={{ $json.body.conversation_id }}'),
				text: '={{ "What is your order number?\\n\\nResume: " + $execution.resumeUrl }}',
			}),
			w.node('Wait', 'n8n-nodes-base.wait', { resume: 'webhook', httpMethod: 'POST', options: {} }, { typeVersion: 1.1, webhookId: crypto.randomUUID() }),
			next(),
		],
		connections: w.chain('Request', 'Announce', 'Wait', 'Next'),
	});
	return [ours, peer];
}

/**
 * The peer's relay: a webhook receiver on 127.0.0.1 that checks the
 * sandbox's signature (as our trigger does) and POSTs the reply of a
 * conversation it was told about to that execution's resume URL.
 */
async function startPeerRelay() {
	const resumeUrls = new Map();
	let secret;
	const agent = new http.Agent({ keepAlive: true });
	const resumed = [];
	const arrivals = new Map();
	const server = http.createServer((request, response) => {
		const arrivedAt = Date.now();
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			if (!hasValidSignature(secret, request.headers, body)) {
				response.writeHead(401).end();
				return;
			}
			response.writeHead(200).end();
			const event = JSON.parse(body);
			const message = event.data;
			const url = event.type === 'message.created' && message?.from_customer === true ? resumeUrls.get(message.conversation_id) : undefined;
			if (!url) return;
			resumeUrls.delete(message.conversation_id);
			arrivals.set(message.conversation_id, arrivedAt);
			const payload = JSON.stringify({ reply: message });
			const call = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (answer) => {
				answer.resume();
				resumed.push({ conversationId: message.conversation_id, status: answer.statusCode });
			});
			call.on('error', (error) => resumed.push({ conversationId: message.conversation_id, error: error.message }));
			call.end(payload);
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}/`,
		setSecret: (value) => (secret = value),
		expect: (conversationId, resumeUrl) => resumeUrls.set(conversationId, resumeUrl),
		resumed,
		/** When the delivery of a conversation's reply reached the relay. */
		arrivalOf: (conversationId) => arrivals.get(conversationId),
		async close() {
			agent.destroy();
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

async function post(url, json) {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(json),
		signal: AbortSignal.timeout(60_000),
	});
	await response.text();
	return response.status;
}

/**
 * n8n (regular: one server; queue: main, webhook process, 2 workers) behind
 * the bench relay, with both workflows published.
 */
async function setUp(sandbox, queue) {
	const credential = omnichannelCredential({ id: 'benchChatCred001', name: 'Bench sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
	const tarball = process.env.BENCH_TARBALL || undefined;
	const port = queue ? undefined : await freePort();
	let cluster;
	// Deliveries and resume calls go to the process that serves /webhook/ and /webhook-waiting/: the webhook process in queue mode.
	const relay = await startRelay(queue ? () => cluster.webhook.port : port);
	const peerRelay = await startPeerRelay();
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
		await n8n.importWorkflows(workflowsFor(credential));
		await (cluster ? startProcesses(cluster) : n8n.start());
		await n8n.setupOwnerAndApiKey();
		// The bench reads with a key of its own, so that n8n's key keeps the whole rate (the stats count both).
		const { key } = await sandbox.client.control('POST', '/keys', {
			mode: 'test',
			scopes: ['conversations:read', 'messages:read', 'channels:read', 'webhooks:read', 'webhooks:write'],
		});
		const client = sandboxClient(sandbox, key);
		for (const peer of Object.values(PEERS)) await n8n.publishWorkflow(peer.id);
		const triggerWebhook = await waitFor(async () => (await client.listAll('/webhooks')).find((hook) => hook.url.startsWith(relay.url)), {
			what: 'the trigger to register its webhook',
			timeoutMs: 60_000,
		});
		const channels = await client.listAll('/channels');
		const channelOf = (type) => channels.find((c) => c.type === type && c.is_active);
		return { n8n, relay, peerRelay, client, control: sandbox.client.control, triggerWebhook, channelOf, dispose };
	} catch (error) {
		await dispose();
		throw error;
	}
}

const newConversation = async (context, peer) => (await context.control('POST', '/conversations', { channel_id: context.channelOf(peer.channel).id })).id;

async function waitingExecution(context, workflowId, what) {
	return await waitFor(
		async () => {
			const [execution] = await context.n8n.api.listExecutions({ workflowId, status: 'waiting', maxPages: 1 });
			return execution?.id;
		},
		{ what, timeoutMs: 120_000, intervalMs: 50 },
	);
}

async function nextNodeStart(context, executionId) {
	return await waitFor(
		async () => {
			const execution = await context.n8n.api.getExecution(executionId);
			if (execution.status !== 'success') return undefined;
			return { startTime: execution.data.resultData.runData.Next[0].startTime, execution };
		},
		{ what: `execution ${executionId} to finish`, timeoutMs: 120_000, intervalMs: 50 },
	);
}

/** One reply answered by the chat: ms from its created_at to the next node's start. */
async function sampleChat(context, round) {
	const conversationId = await newConversation(context, PEERS.chat);
	await context.control('POST', '/inbound', { conversation_id: conversationId, text: `Hi (sample ${round})` });
	const executionId = await waitingExecution(context, PEERS.chat.id, `the chat sample ${round} to wait`);
	const reply = await context.control('POST', '/inbound', { conversation_id: conversationId, text: `A-${round}` });
	const { startTime, execution } = await nextNodeStart(context, executionId);
	const answer = execution.data.resultData.runData.Ask.at(-1).data.main[0][0].json;
	if (answer.reply?.id !== reply.id) throw new Error(`chat sample ${round}: resumed with ${JSON.stringify(answer).slice(0, 300)}`);
	const createdAt = Date.parse(reply.created_at);
	// The relay notes a request once n8n answered it: the delivery's answer follows the hand-over's.
	const { delivery, resume } = await waitFor(
		() => {
			const responses = context.relay.responses();
			const found = {
				delivery: responses.find((r) => r.messageId === reply.id && r.path.startsWith('/webhook/')),
				resume: responses.find((r) => isResumeOf(r.path, executionId)),
			};
			return found.delivery && found.resume ? found : undefined;
		},
		{ what: `the relay's record of chat sample ${round}`, timeoutMs: 30_000, intervalMs: 50 },
	);
	return breakdown(createdAt, delivery.arrivedAt, resume.arrivedAt, startTime);
}

/** A call of an execution's resume URL (the Wait node's has no node segment, ours has). */
const isResumeOf = (path, executionId) => new RegExp(`^/webhook-waiting/${executionId}(?:[/?]|$)`).test(path);

/** Where the time of one sample went, ms: to the delivery, to the resume call, to the next node. */
function breakdown(createdAt, deliveredAt, resumeCalledAt, nextStartedAt) {
	return {
		total: nextStartedAt - createdAt,
		toDelivery: deliveredAt - createdAt,
		toResumeCall: resumeCalledAt - deliveredAt,
		toNextNode: nextStartedAt - resumeCalledAt,
	};
}

/** The same for the Wait node, resumed by the peer relay from the same kind of delivery. */
async function sampleWaitNode(context, round) {
	const conversationId = await newConversation(context, PEERS.waitNode);
	const url = `${context.relay.url}/webhook/${PEERS.waitNode.path}`;
	await waitFor(async () => ((await post(url, { conversation_id: conversationId })) === 200 ? true : undefined), {
		what: `${PEERS.waitNode.path} to accept a request`,
		timeoutMs: 60_000,
		intervalMs: 250,
	});
	const resumeUrl = await waitFor(
		async () => {
			const { data } = await context.client.api('GET', `/messages?conversation_id=${conversationId}&per_page=10`);
			const question = data.find((m) => m.content.includes('Resume: '));
			return question ? /Resume: (\S+)\s*$/.exec(question.content)[1] : undefined;
		},
		{ what: `the Wait node's question in ${conversationId}`, timeoutMs: 60_000, intervalMs: 50 },
	);
	const executionId = new URL(resumeUrl).pathname.split('/')[2];
	await waitFor(async () => (await context.n8n.api.getExecution(executionId, { includeData: false })).status === 'waiting', {
		what: `execution ${executionId} to be saved as waiting`,
		timeoutMs: 60_000,
		intervalMs: 50,
	});
	context.peerRelay.expect(conversationId, resumeUrl);
	const reply = await context.control('POST', '/inbound', { conversation_id: conversationId, text: `A-${round}` });
	const { startTime } = await nextNodeStart(context, executionId);
	const resume = await waitFor(() => context.relay.responses().find((r) => isResumeOf(r.path, executionId)), {
		what: `the relay's record of Wait node sample ${round}`,
		timeoutMs: 30_000,
		intervalMs: 50,
	});
	return breakdown(Date.parse(reply.created_at), context.peerRelay.arrivalOf(conversationId), resume.arrivedAt, startTime);
}

async function measureSpeed(context, samples, log) {
	const hook = await context.client.api('POST', '/webhooks', { url: context.peerRelay.url, events: ['message.created'], description: 'bench peer relay' });
	context.peerRelay.setSecret(hook.secret);
	const latency = { chat: [], waitNode: [] };
	const parts = { chat: [], waitNode: [] };
	try {
		// Round -1 warms n8n up and is not counted; the peer that goes first alternates.
		for (let round = -1; round < samples; round++) {
			const order = round % 2 === 0 ? ['chat', 'waitNode'] : ['waitNode', 'chat'];
			for (const key of order) {
				const sample = key === 'chat' ? await sampleChat(context, round) : await sampleWaitNode(context, round);
				if (round >= 0) {
					latency[key].push(sample.total);
					parts[key].push(sample);
				}
			}
			if (round >= 0 && (round + 1) % 10 === 0) log(`speed: ${round + 1}/${samples} rounds`);
		}
	} finally {
		await context.client.api('DELETE', `/webhooks/${hook.id}`);
	}
	return { latency, parts };
}

/** Resolves once n8n acknowledged the delivery of a message, or fails after timeoutMs. */
function acknowledgedWithin(relay, messageId, timeoutMs) {
	let timer;
	const timeout = new Promise((_, reject) => {
		timer = setTimeout(() => reject(new Error(`no acknowledgement of the delivery of ${messageId} within ${timeoutMs} ms`)), timeoutMs);
	});
	return Promise.race([relay.acknowledged(messageId), timeout]).finally(() => clearTimeout(timer));
}

/** Fills n8n until `target` executions of ours wait, each in its own new conversation. */
async function fill(context, conversations, count, log) {
	const started = Date.now();
	let next = 0;
	const worker = async () => {
		while (next < count) {
			next++;
			const conversationId = await newConversation(context, PEERS.chat);
			const message = await context.control('POST', '/inbound', { conversation_id: conversationId, text: 'Hi' });
			await acknowledgedWithin(context.relay, message.id, 120_000);
			conversations.push(conversationId);
		}
	};
	await Promise.all(Array.from({ length: Math.min(FILL_CONCURRENCY, count) }, worker));
	log(`scale: ${count} customer messages delivered in ${Math.round((Date.now() - started) / 1000)} s`);
}

const countWaiting = async (context) => (await context.n8n.api.listExecutions({ workflowId: PEERS.chat.id, status: 'waiting', maxPages: 40 })).length;
const allExecutionIds = async (context) => new Set((await context.n8n.api.listExecutions({ maxPages: 60 })).map((e) => String(e.id)));

function apiRequests(stats) {
	const byRoute = stats.by_route ?? {};
	return { total: stats.requests, by_route: byRoute };
}

/** One level of the scale phase: `waiting` executions wait; K replies go to K of them. */
async function measureLevel(context, state, waiting, replies, log) {
	const missing = waiting - state.open.length;
	if (missing > 0) await fill(context, state.open, missing, log);
	const fillStarted = Date.now();
	await waitFor(async () => ((await countWaiting(context)) >= waiting ? true : undefined), {
		what: `${waiting} waiting executions`,
		timeoutMs: 30 * 60_000,
		intervalMs: 2000,
	});
	log(`scale: ${waiting} waiting (saved ${Math.round((Date.now() - fillStarted) / 1000)} s after the last delivery)`);
	await sleep(QUIET_MS);

	// What waiting alone costs: API requests while nothing happens.
	await context.control('DELETE', '/stats');
	await sleep(IDLE_WINDOW_MS);
	const idle = apiRequests(await context.control('GET', '/stats'));

	const before = await allExecutionIds(context);
	await context.control('DELETE', '/stats');
	await context.control('DELETE', '/deliveries');
	context.relay.reset();
	const chosen = state.open.splice(0, replies);
	const sent = new Map();
	const phaseStarted = Date.now();
	for (const conversationId of chosen) {
		const reply = await context.control('POST', '/inbound', { conversation_id: conversationId, text: `R-${conversationId}` });
		sent.set(conversationId, reply);
		await sleep(REPLY_SPACING_MS);
	}
	const resumedExecutions = [];
	// Finished executions that never reached Next: not a resume; kept for the results with what they ran.
	const otherFinished = [];
	let lastNextStart = 0;
	await waitFor(
		async () => {
			const now = (await context.n8n.api.listExecutions({ workflowId: PEERS.chat.id, status: 'success', maxPages: 40 })).filter((e) => !state.finished.has(String(e.id)));
			for (const summary of now) {
				const execution = await context.n8n.api.getExecution(summary.id);
				state.finished.add(String(execution.id));
				const runData = execution.data?.resultData?.runData ?? {};
				if (!runData.Next) {
					const ask = runData.Ask?.at(-1)?.data?.main?.[0]?.[0]?.json;
					otherFinished.push({ id: execution.id, status: execution.status, nodes: Object.keys(runData), ask: ask ? JSON.stringify(ask).slice(0, 300) : undefined });
					continue;
				}
				resumedExecutions.push(execution);
				lastNextStart = Math.max(lastNextStart, runData.Next[0].startTime);
			}
			return resumedExecutions.length >= replies;
		},
		{ what: `${replies} resumed executions`, timeoutMs: 10 * 60_000, intervalMs: 500 },
	);
	if (otherFinished.length > 0) log(`scale ${waiting}: finished without reaching Next: ${JSON.stringify(otherFinished)}`);
	const phaseSeconds = (lastNextStart - phaseStarted) / 1000;
	const stats = await context.control('GET', '/stats');
	await sleep(QUIET_MS);
	const statsAfterQuiet = await context.control('GET', '/stats');
	const deliveries = (await context.control('GET', '/deliveries')).filter((d) => (d.webhook_id ?? context.triggerWebhook.id) === context.triggerWebhook.id);
	const relayed = context.relay.responses();
	const after = await allExecutionIds(context);
	const created = [...after].filter((id) => !before.has(id));

	// Each resumed execution got the reply of its own conversation, once.
	let ownReply = 0;
	const resumedPerConversation = new Map();
	for (const execution of resumedExecutions) {
		const runData = execution.data.resultData.runData;
		const answer = runData.Ask.at(-1).data.main[0][0].json;
		const conversationId = answer.conversationId;
		resumedPerConversation.set(conversationId, (resumedPerConversation.get(conversationId) ?? 0) + runData.Next.length);
		if (sent.get(conversationId)?.id === answer.reply?.id && answer.data?.text === `R-${conversationId}`) ownReply++;
	}
	const resumedOnce = chosen.filter((id) => resumedPerConversation.get(id) === 1).length;
	const stillWaiting = await countWaiting(context);

	const toN8n = relayed.filter((r) => r.path.startsWith('/webhook/'));
	// Deliveries during the phase that were not about the K replies: retries of earlier events the sandbox saw fail (no answer within 10 s under load).
	const replyIds = new Set([...sent.values()].map((reply) => reply.id));
	const ofReplies = toN8n.filter((r) => replyIds.has(r.messageId));
	const others = toN8n.filter((r) => !replyIds.has(r.messageId));
	const otherMessages = [];
	for (const id of [...new Set(others.map((r) => r.messageId))].slice(0, 50)) {
		const message = id ? await context.control('GET', `/messages/${id}`).catch(() => undefined) : undefined;
		otherMessages.push({ id, attributed_to: message?.attributed_to, content: message ? String(message.content).slice(0, 40) : undefined, created_at: message?.created_at });
	}
	const handOvers = relayed.filter((r) => r.path.startsWith('/webhook-waiting/'));
	const statusCounts = (list) => list.reduce((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
	const requests = stats.requests;
	const result = {
		waiting,
		replies,
		idle_window_s: IDLE_WINDOW_MS / 1000,
		idle_api_requests: idle.total,
		idle_api_requests_per_s: Math.round((idle.total / (IDLE_WINDOW_MS / 1000)) * 100) / 100,
		phase_seconds: Math.round(phaseSeconds * 10) / 10,
		deliveries_logged: deliveries.length,
		deliveries_per_inbound: Math.round((deliveries.length / replies) * 100) / 100,
		deliveries_seen_by_relay: toN8n.length,
		deliveries_of_the_replies: ofReplies.length,
		deliveries_of_the_replies_per_inbound: Math.round((ofReplies.length / replies) * 100) / 100,
		deliveries_of_other_events: others.length,
		other_events: otherMessages,
		retried_attempts_logged: deliveries.filter((d) => d.attempt > 1).length,
		delivery_statuses: statusCounts(toN8n),
		resume_calls: handOvers.length,
		resume_call_statuses: statusCounts(handOvers),
		n8n_requests_per_inbound: Math.round(((toN8n.length + handOvers.length) / replies) * 100) / 100,
		executions_created_during_phase: created.length,
		executions_loaded_per_inbound: Math.round(((created.length + resumedExecutions.length) / replies) * 100) / 100,
		api_requests: requests,
		api_requests_by_route: stats.by_route,
		api_requests_after_quiet: statsAfterQuiet.requests,
		api_requests_per_inbound: Math.round((requests / replies) * 100) / 100,
		api_requests_per_s: Math.round((requests / phaseSeconds) * 100) / 100,
		api_share_of_rate_percent: Math.round((requests / phaseSeconds / RATE_LIMIT) * 1000) / 10,
		resumed: resumedExecutions.length,
		finished_without_next: otherFinished,
		resumed_with_own_reply: ownReply,
		resumed_exactly_once: resumedOnce,
		still_waiting_after: stillWaiting,
	};
	log(`scale ${waiting}: ${JSON.stringify(result)}`);
	return result;
}

async function measureScale(context, levels, replies, log) {
	// The speed phase's executions have finished already: only the scale phase's count.
	const finished = (await context.n8n.api.listExecutions({ workflowId: PEERS.chat.id, status: 'success', maxPages: 40 })).map((e) => String(e.id));
	const state = { open: [], finished: new Set(finished) };
	const results = [];
	for (const level of levels) {
		// Earlier levels' replies took K executions out of the waiting ones: the fill tops them up.
		results.push(await measureLevel(context, state, level, Math.min(replies, level), log));
	}
	return results;
}

function speedSummary(latency, parts) {
	const medianOf = (key, part) => quantile(parts[key].map((sample) => sample[part]), 0.5);
	const summary = Object.fromEntries(
		Object.entries(latency).map(([key, values]) => [
			key,
			{
				median_ms: quantile(values, 0.5),
				p90_ms: quantile(values, 0.9),
				min_ms: Math.min(...values),
				max_ms: Math.max(...values),
				median_to_delivery_ms: medianOf(key, 'toDelivery'),
				median_delivery_to_resume_call_ms: medianOf(key, 'toResumeCall'),
				median_resume_call_to_next_node_ms: medianOf(key, 'toNextNode'),
			},
		]),
	);
	const ratio = Math.round((summary.chat.median_ms / summary.waitNode.median_ms) * 1000) / 10;
	return { summary, ratio };
}

function goalsOf(speed, scale) {
	const worst = (key) => Math.max(...scale.map((level) => level[key]));
	const goals = [
		{ goal: `median from the reply's creation to the next node at most ${GOAL_PERCENT}% of the Wait node's`, value: `${speed.ratio}%`, met: speed.ratio <= GOAL_PERCENT },
	];
	if (scale.length > 0) {
		goals.push(
			{ goal: `deliveries to n8n per inbound message at most ${GOAL_DELIVERIES_PER_INBOUND}, at every level`, value: worst('deliveries_per_inbound'), met: worst('deliveries_per_inbound') <= GOAL_DELIVERIES_PER_INBOUND },
			{
				goal: `executions loaded per inbound message at most ${GOAL_EXECUTIONS_PER_INBOUND} plus the resumed one (none started for a routed reply)`,
				value: worst('executions_loaded_per_inbound'),
				met: worst('executions_loaded_per_inbound') <= GOAL_EXECUTIONS_PER_INBOUND + 1 && worst('executions_created_during_phase') === 0,
			},
			{
				goal: `API requests spent on waiting at most ${GOAL_API_SHARE * 100}% of the key's ${RATE_LIMIT}/s (${GOAL_API_SHARE * RATE_LIMIT}/s) while executions wait`,
				value: `${worst('idle_api_requests_per_s')}/s`,
				met: worst('idle_api_requests_per_s') <= GOAL_API_SHARE * RATE_LIMIT,
			},
			{
				goal: 'every resumed execution got its own reply, exactly once',
				value: scale.map((l) => `${l.resumed_with_own_reply}/${l.replies}`).join(', '),
				met: scale.every((l) => l.resumed === l.replies && l.resumed_with_own_reply === l.replies && l.resumed_exactly_once === l.replies),
			},
		);
	}
	return goals;
}

function markdown(name, results) {
	const p = results.peers;
	const lines = [
		'# Send and Wait answered in the chat benchmark',
		'',
		`Measured ${results.measured_at} in n8n ${results.n8n}, ${results.mode} mode, ${results.machine.cpus} CPUs, by \`${results.command}\`.`,
		`n8n's expression engine: ${Object.keys(results.n8n_expression_engine_settings ?? {}).length ? Object.entries(results.n8n_expression_engine_settings).map(([k, v]) => `${k}=${v}`).join(', ') : "n8n's defaults"}.`,
		`Sandbox latency ${results.sandbox.latency_ms} ms (jitter ${results.sandbox.jitter_ms} ms), rate limit ${results.sandbox.rate_limit_per_second} requests/s per key, the same for both peers.`,
		'',
		`## From the reply's creation at the service to the next node (${results.samples} samples each, alternating)`,
		'',
		'| Waiting node | median ms | p90 ms | min ms | max ms | median: created → delivered | delivered → resume call | resume call → next node |',
		'|---|---|---|---|---|---|---|---|',
		...Object.values(p).map(
			(peer) =>
				`| ${peer.label} | ${peer.median_ms} | ${peer.p90_ms} | ${peer.min_ms} | ${peer.max_ms} | ${peer.median_to_delivery_ms} | ${peer.median_delivery_to_resume_call_ms} | ${peer.median_resume_call_to_next_node_ms} |`,
		),
		'',
		`Ours is **${results.latency_ratio_percent}%** of the Wait node's median.`,
		'',
		'Ours: sandbox → bench relay → n8n (Omnichannel Trigger: signature, one GET /messages, opening the carrier) → bench relay → n8n (resume URL) → Next.',
		"Peer: sandbox → peer relay (signature) → bench relay → n8n (resume URL) → Next. The peer relay already knows the execution's resume URL (the bench read it from the question); the trigger reads it from the conversation.",
		'"Delivered": the delivery reached the bench relay (ours) or the peer relay; "resume call": the call of /webhook-waiting/ reached the bench relay. The parts are medians of their own, so they need not add up to the median.',
	];
	if (results.scale.length > 0) {
		const row = (label, key, format = (v) => v) => `| ${label} | ${results.scale.map((level) => format(level[key])).join(' | ')} |`;
		lines.push(
			'',
			`## Executions waiting for a chat reply at once (ours), ${results.replies} replies at each level`,
			'',
			`Levels run: ${results.levels.join(', ')}${results.levels_note ? ` (${results.levels_note})` : ''}. Replies ${1000 / REPLY_SPACING_MS} a second, each to another waiting execution.`,
			'',
			`| | ${results.scale.map((level) => `${level.waiting} waiting`).join(' | ')} |`,
			`|---|${results.scale.map(() => '---').join('|')}|`,
			row('replies (K)', 'replies'),
			row('deliveries to n8n (sandbox log)', 'deliveries_logged'),
			row('**deliveries to n8n per inbound message**', 'deliveries_per_inbound'),
			row('deliveries seen by the bench relay, by status', 'delivery_statuses', (v) => JSON.stringify(v)),
			row('of them: deliveries of the K replies', 'deliveries_of_the_replies'),
			row('**deliveries of the replies per inbound message**', 'deliveries_of_the_replies_per_inbound'),
			row('of them: deliveries of earlier events (the sandbox retrying what it saw fail)', 'deliveries_of_other_events'),
			row('attempts after a first one in the sandbox log', 'retried_attempts_logged'),
			row("resume calls to n8n's /webhook-waiting/ (the trigger's hand-overs), by status", 'resume_call_statuses', (v) => JSON.stringify(v)),
			row('requests to n8n per inbound message (deliveries + hand-overs)', 'n8n_requests_per_inbound'),
			row('executions created in n8n during the replies', 'executions_created_during_phase'),
			row('**executions loaded per inbound message** (created + resumed)', 'executions_loaded_per_inbound'),
			row('API requests during the replies', 'api_requests'),
			row('API requests by route', 'api_requests_by_route', (v) => JSON.stringify(v)),
			row('**API requests per inbound message**', 'api_requests_per_inbound'),
			row('API requests per second over the replies (share of 60/s)', 'api_requests_per_s', (v) => v),
			row(`**API requests per second while waiting** (${IDLE_WINDOW_MS / 1000} s, no replies)`, 'idle_api_requests_per_s'),
			row('resumed / with their own reply / exactly once', 'resumed', (v) => v),
			row('', 'resumed_with_own_reply'),
			row('', 'resumed_exactly_once'),
			row('still waiting afterwards', 'still_waiting_after'),
		);
		// The three lines above read better as one.
		const at = lines.findIndex((line) => line.startsWith('| resumed / with'));
		lines.splice(at, 3, `| resumed / with their own reply / exactly once | ${results.scale.map((l) => `${l.resumed} / ${l.resumed_with_own_reply} / ${l.resumed_exactly_once}`).join(' | ')} |`);
		const share = lines.findIndex((line) => line.startsWith('| API requests per second over'));
		lines[share] = `| API requests per second over the replies (share of 60/s) | ${results.scale.map((l) => `${l.api_requests_per_s} (${l.api_share_of_rate_percent}%)`).join(' | ')} |`;
		lines.push(
			'',
			'Counted: deliveries from the sandbox\'s delivery log (control GET /deliveries, this trigger\'s webhook), checked against the bench relay in front of n8n (WEBHOOK_URL), which also counts every call of /webhook-waiting/; executions created: ids in n8n\'s execution list after the replies that were not there before; API requests: the sandbox\'s control GET /stats, cleared before the replies (the bench reads nothing from the public API during the phase).',
		);
	}
	lines.push('', '## Goals', '', '| Goal | Value | Met |', '|---|---|---|', ...results.goals.map((g) => `| ${g.goal} | ${g.value} | ${g.met ? 'yes' : '**no**'} |`), '');
	return lines.join('\n');
}

async function measure({ name, queue, log }) {
	const samples = boundedInteger('BENCH_SAMPLES', process.env.BENCH_SAMPLES, 30, MAX_SAMPLES);
	const top = boundedInteger('BENCH_CHAT_WAITING', process.env.BENCH_CHAT_WAITING, 1000, MAX_WAITING);
	const replies = boundedInteger('BENCH_CHAT_REPLIES', process.env.BENCH_CHAT_REPLIES, 20, MAX_REPLIES);
	const levels = [...new Set([...LEVELS.filter((level) => level < top), top])].filter((level) => level > 0);
	const latencyMs = boundedInteger('BENCH_CHAT_LATENCY_MS', process.env.BENCH_CHAT_LATENCY_MS, 100, 1000);
	const sandbox = await startSandboxProcess();
	try {
		await sandbox.client.control('PUT', '/faults', { latency_ms: latencyMs });
		const faults = await sandbox.client.control('GET', '/faults');
		const context = await setUp(sandbox, queue);
		try {
			const { latency, parts } = await measureSpeed(context, samples, log);
			const speed = speedSummary(latency, parts);
			log(`speed: ours ${speed.summary.chat.median_ms} ms, Wait node ${speed.summary.waitNode.median_ms} ms: ${speed.ratio}%`);
			const scale = await measureScale(context, levels, replies, log);
			const results = {
				measured_at: new Date().toISOString(),
				n8n: N8N_VERSION,
				mode: queue ? 'queue (PostgreSQL, Redis, main, 2 workers, a webhook process)' : 'regular (SQLite)',
				machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30) },
				command: `BENCH_SAMPLES=${samples} BENCH_CHAT_WAITING=${top} BENCH_CHAT_REPLIES=${replies} BENCH_CHAT_LATENCY_MS=${latencyMs} npm run bench -- --only ${name}`,
				// n8n takes its settings from the bench's environment; the expression engine's decide much of a webhook's cost.
				n8n_expression_engine_settings: Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('N8N_EXPRESSION_ENGINE'))),
				sandbox: { latency_ms: faults.latency_ms, jitter_ms: faults.jitter_ms, rate_limit_per_second: faults.rate_limit_per_second },
				samples,
				peers: Object.fromEntries(Object.entries(PEERS).map(([key, peer]) => [key, { label: peer.label, latency_ms: latency[key], ...speed.summary[key], samples_ms: parts[key] }])),
				latency_ratio_percent: speed.ratio,
				levels,
				levels_note: top < 1000 ? `BENCH_CHAT_WAITING=${top} lowered the top level from 1000` : undefined,
				replies,
				scale,
				goals: goalsOf(speed, scale),
			};
			for (const goal of results.goals) log(`${goal.met ? 'met   ' : 'MISSED'} ${goal.goal}: ${goal.value}`);
			return { json: results, markdown: markdown(name, results) };
		} finally {
			await context.dispose();
		}
	} finally {
		await sandbox.close();
	}
}

/** @param {{ log: (message: string) => void }} options */
const run = ({ log }) => measure({ name: 'send-and-wait-chat', queue: false, log });
const runInQueueMode = ({ log }) => measure({ name: 'send-and-wait-chat-queue', queue: true, log });

module.exports = { run, runInQueueMode, markdown };
