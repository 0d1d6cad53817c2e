'use strict';
// Chat waits under a stream of customer messages, shared by the queue-mode
// test (test/queue-mode/chat-stream.n8n.test.js) and the benchmark
// (bench/scenarios/chat-stream.js). The workflow: Omnichannel Trigger →
// Send and Wait (Reply in Chat, no limit) → HTTP Request to a recorder on
// 127.0.0.1. `waits` customers write and their executions wait; then
// customers write `rate` messages a second for `seconds`: every
// `replyEvery`-th answers one of the waits (each wait once), every other one
// opens a new conversation, whose run asks the question and waits in turn.
// Afterwards every reply must have resumed its wait once (one recorder call
// with its text) and every other message must have run once (one question
// in its conversation; a question starts with QUESTION).
const crypto = require('crypto');
const http = require('http');

const { sandboxClient } = require('../sandbox/client');
const { sleep, waitFor } = require('./poll');
const w = require('./workflows');

const QUESTION = 'What is your order number?';
const CHANNEL = 'livechat';
/** A bound on the stream, whatever the settings ask. */
const MAX_MESSAGES = 5000;
/** The reader's own pace, under the API's 60 requests a second per key. */
const READS_PER_SECOND = 40;

/** A key of the sandbox's workspace for the driver's reads, and a client with it. */
async function readerClient(sandbox, control) {
	const { key } = await control('POST', '/keys', { mode: 'test', scopes: ['conversations:read', 'messages:read', 'channels:read', 'webhooks:read', 'webhooks:write'] });
	return sandboxClient(sandbox, key);
}

/** An HTTP server on 127.0.0.1 that keeps the JSON bodies POSTed to it. */
async function startRecorder() {
	const calls = [];
	const server = http.createServer((request, response) => {
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('end', () => {
			try {
				calls.push({ at: Date.now(), ...JSON.parse(Buffer.concat(chunks).toString('utf8')) });
			} catch {
				calls.push({ at: Date.now(), unreadable: true });
			}
			response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}/`,
		calls,
		async close() {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

/** The HTTP Request node that tells the recorder what reached the end of a run. */
function recordNode(name, recorderUrl, { conversation, text }) {
	return w.node(
		name,
		'n8n-nodes-base.httpRequest',
		{
			method: 'POST',
			url: recorderUrl,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ conversation: ${conversation}, text: ${text}, execution: $execution.id }) }}`,
			options: {},
		},
		{ typeVersion: 4.2 },
	);
}

/** Ours: the trigger, Send and Wait answered in the chat, the HTTP Request. */
function chatStreamWorkflow(credential, { id, recorderUrl }) {
	return w.workflow({
		id,
		name: 'Chat waits under a stream',
		nodes: [
			w.omnichannelTrigger('Customer writes', credential, {
				events: ['message.created'],
				options: { directions: ['customer'], channelTypes: [CHANNEL], outputDataOnly: true },
			}),
			w.omnichannelNode('Ask', credential, {
				resource: 'message',
				operation: 'sendAndWait',
				conversationId: w.byId('={{ $json.conversation_id }}'),
				message: QUESTION,
				responseType: 'chatReply',
			}),
			recordNode('Record', recorderUrl, { conversation: '$json.conversationId', text: '$json.data.text' }),
		],
		connections: w.chain('Customer writes', 'Ask', 'Record'),
	});
}

/** Count of `sent` messages by what became of them, from the recorder and the conversations (read with `client`'s key, not n8n's). */
async function outcomesOf({ client, recorder, sent }) {
	const recorded = new Map();
	for (const call of recorder.calls) {
		const key = `${call.conversation}|${call.text}`;
		recorded.set(key, (recorded.get(key) ?? 0) + 1);
	}
	const counts = { replies: { sent: 0, once: 0, lost: 0, doubled: 0, startedRun: 0 }, others: { sent: 0, once: 0, lost: 0, doubled: 0 } };
	const lost = [];
	for (const message of sent) {
		const questions = (await listPaced(client, message.conversation)).filter((m) => m.content.startsWith(QUESTION)).length;
		// A reply's conversation holds its wait's question; a second means the reply started a run.
		const times = message.kind === 'reply' ? (recorded.get(`${message.conversation}|${message.text}`) ?? 0) : questions;
		if (message.kind === 'reply' && questions > 1) counts.replies.startedRun++;
		const tally = message.kind === 'reply' ? counts.replies : counts.others;
		tally.sent++;
		if (times === 1) tally.once++;
		else if (times === 0) {
			tally.lost++;
			if (lost.length < 5) lost.push(message);
		} else tally.doubled++;
	}
	return { ...counts, lost };
}

/** A conversation's messages, at most READS_PER_SECOND reads a second: the reader's key has the API's limit too. */
async function listPaced(client, conversation) {
	await sleep(1000 / READS_PER_SECOND);
	return await client.listAll('/messages', { conversation_id: conversation });
}

/**
 * The stream's driver on a running n8n with `chatStreamWorkflow` published:
 * `control` is the sandbox's control client, `client` an API client with a
 * key of its own (so that its reads leave n8n's key the whole rate).
 */
function chatStream({ control, client, channelId }) {
	const newConversation = async () => (await control('POST', '/conversations', { channel_id: channelId })).id;
	const inbound = (conversation, text) => control('POST', '/inbound', { conversation_id: conversation, text });
	const asked = new Set();
	const questionIn = async (conversation) => {
		if (!asked.has(conversation) && (await listPaced(client, conversation)).some((m) => m.content.startsWith(QUESTION))) asked.add(conversation);
		return asked.has(conversation);
	};
	return {
		/**
		 * `count` customers write, at `rate` a second; resolves once each run has
		 * asked its question, to their conversations. With `partial`, resolves at
		 * `timeoutMs` to those whose run has asked by then instead of failing.
		 */
		async fillWaits(count, { rate = 4, timeoutMs = 10 * 60_000, partial = false } = {}) {
			const conversations = [];
			for (let index = 0; index < count; index++) {
				const conversation = await newConversation();
				await inbound(conversation, `Hello ${index}`);
				conversations.push(conversation);
				await sleep(1000 / rate);
			}
			const allAsked = async () => {
				for (const conversation of conversations) if (!(await questionIn(conversation))) return undefined;
				return true;
			};
			try {
				await waitFor(allAsked, { what: `the questions of ${count} waits`, timeoutMs, intervalMs: 2000 });
			} catch (error) {
				if (!partial) throw error;
			}
			return conversations.filter((conversation) => asked.has(conversation));
		},
		/**
		 * `rate` messages a second for `seconds`: every `replyEvery`-th a reply to
		 * the next of `waiting` (each once), the others first messages of new
		 * conversations. Resolves to what was sent: { kind, conversation, text, id, at }.
		 */
		async stream({ waiting, rate, seconds, replyEvery = 10 }) {
			const total = Math.min(MAX_MESSAGES, Math.round(rate * seconds));
			const fresh = [];
			for (let index = 0; index < total; index++) if ((index + 1) % replyEvery !== 0) fresh.push(await newConversation());
			const open = [...waiting];
			const sent = [];
			const started = Date.now();
			const inFlight = [];
			for (let index = 0; index < total; index++) {
				await sleep(Math.max(0, started + (index * 1000) / rate - Date.now()));
				const reply = (index + 1) % replyEvery === 0 && open.length > 0;
				const conversation = reply ? open.shift() : fresh.shift();
				const text = `${reply ? 'R' : 'M'}-${crypto.randomBytes(4).toString('hex')}`;
				inFlight.push(
					inbound(conversation, text).then((message) => sent.push({ kind: reply ? 'reply' : 'other', conversation, text, id: message.id, at: Date.parse(message.created_at) })),
				);
			}
			await Promise.all(inFlight);
			return sent;
		},
		outcomesOf: (recorder, sent) => outcomesOf({ client, recorder, sent }),
		/** Whether every message has its outcome yet (cheaper than outcomesOf: a conversation seen asked is not read again). */
		async settled(recorder, sent) {
			const recorded = new Set(recorder.calls.map((call) => `${call.conversation}|${call.text}`));
			for (const message of sent) {
				if (message.kind === 'reply' ? !recorded.has(`${message.conversation}|${message.text}`) : !(await questionIn(message.conversation))) return false;
			}
			return true;
		},
	};
}

module.exports = { QUESTION, CHANNEL, startRecorder, recordNode, chatStreamWorkflow, chatStream, readerClient };
