'use strict';
// Shared by the real-n8n files of Send and Wait answered in the chat (regular
// and queue mode): a workflow that starts with an Omnichannel Trigger on
// customer messages of one channel type, asks in the conversation, waits,
// and sends "after <its input as JSON>"; and reading the conversation back.
const { sleep, waitFor, workflows: w } = require('../../../harness');
const { AFTER: AFTER_PREFIX, afterNode, afterOutputsIn } = require('./after-wait');

/**
 * @param {object} credential the API credential (import:credentials entry)
 * @param {{ id: string, channel: string, question: string, parameters: object }} flow
 * @param {{ trigger?: object, triggerExtra?: object }} [options] more trigger parameters and node settings
 */
function chatWaitWorkflow(credential, { id, channel, question, parameters }, { trigger = {}, triggerExtra = {} } = {}) {
	const nodes = [
		w.omnichannelTrigger(
			'Customer writes',
			credential,
			{ events: ['message.created'], options: { directions: ['customer'], channelTypes: [channel], outputDataOnly: true }, ...trigger },
			triggerExtra,
		),
		w.omnichannelNode('Ask', credential, {
			resource: 'message',
			operation: 'sendAndWait',
			conversationId: w.byId('={{ $json.conversation_id }}'),
			message: question,
			...parameters,
		}),
		afterNode(credential),
	];
	return w.workflow({ id, name: `Chat ${id}`, nodes, connections: w.chain('Customer writes', 'Ask', 'After') });
}

/**
 * A read that waits out the API's rate limit: checking a hundred
 * conversations at once exceeds the key's 60 requests per second.
 */
async function paced(read) {
	for (let attempt = 1; ; attempt++) {
		try {
			return await read();
		} catch (error) {
			if (!/ -> 429:/.test(error.message) || attempt >= 20) throw error;
			await sleep(1000);
		}
	}
}

/** Reading one conversation back through the sandbox's API (a client with a key of its own). */
function conversationReader(client) {
	const messages = async (conversationId) => await paced(() => client.listAll('/messages', { conversation_id: conversationId }));
	const startingWith = (list, prefix) => list.filter((m) => m.content.startsWith(prefix));
	const reader = {
		messages,
		startingWith,
		inbound: (conversationId, text) => client.control('POST', '/inbound', { conversation_id: conversationId, text }),
		async newConversation(channelType) {
			const channels = await paced(() => client.listAll('/channels'));
			const channel = channels.find((c) => c.type === channelType && c.is_active);
			return await client.control('POST', '/conversations', { channel_id: channel.id });
		},
		async afterOutputs(conversationId) {
			return afterOutputsIn(await messages(conversationId));
		},
		waitForMessage: (conversationId, prefix, count = 1, timeoutMs = 60_000) =>
			waitFor(
				async () => {
					const found = startingWith(await messages(conversationId), prefix);
					return found.length >= count ? found : undefined;
				},
				{ what: `${count} message(s) starting "${prefix}" in ${conversationId}`, timeoutMs, intervalMs: 200 },
			),
	};
	return reader;
}

/** The API's order of messages, oldest first: created_at, then id. */
const oldestFirst = (a, b) => a.created_at.localeCompare(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A customer writes twice at once, so two executions of the workflow ask in
 * one conversation; then replies once. Resolves to both questions (older
 * first), what reached the node after the wait (in order) and the number of
 * questions at the end.
 */
async function askedTwiceThenReplied(reader, channel, question, reply) {
	const { id } = await reader.newConversation(channel);
	await Promise.all([reader.inbound(id, 'hello'), reader.inbound(id, 'anyone there?')]);
	const [older, newer] = (await reader.waitForMessage(id, question, 2)).sort(oldestFirst);
	// The older execution goes on as soon as the newer question is seen, before any reply.
	await reader.waitForMessage(id, AFTER_PREFIX, 1);
	await reader.inbound(id, reply);
	await reader.waitForMessage(id, AFTER_PREFIX, 2);
	await sleep(3000);
	const all = await reader.messages(id);
	return { older, newer, outputs: afterOutputsIn([...all].sort(oldestFirst)), questions: reader.startingWith(all, question).length };
}

/** What the trigger does when two executions ask in one conversation: the older ends with supersededBy, the reply answers the newer. */
function expectSuperseded({ older, newer, outputs, questions }) {
	expect(questions).toBe(2);
	expect(outputs).toEqual([
		expect.objectContaining({ timedOut: true, supersededBy: newer.id, messageId: older.id }),
		expect.objectContaining({ timedOut: false, data: { text: 'A-7' }, messageId: newer.id }),
	]);
}

/** A sandbox client with a key of its own, so that the test's reads leave n8n's key its whole rate. */
async function readerClient(client, sandbox, sandboxClient) {
	const { key } = await client.control('POST', '/keys', {
		mode: 'test',
		scopes: ['conversations:read', 'messages:read', 'messages:write', 'channels:read', 'webhooks:read'],
	});
	return sandboxClient(sandbox, key);
}

module.exports = { askedTwiceThenReplied, expectSuperseded, chatWaitWorkflow, conversationReader, readerClient };
