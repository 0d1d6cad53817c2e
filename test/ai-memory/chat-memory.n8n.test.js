'use strict';
// Omnichannel Chat Memory under n8n's AI Agent in a published workflow of a
// running n8n (regular mode), with a stand-in OpenAI-compatible model on
// 127.0.0.1: for each customer message, the model's request holds the
// conversation's earlier messages as turns, oldest first, with the right
// roles and a person's messages marked; the message being answered is the
// prompt, exactly once; System messages are left out; one read of the
// conversation per agent run. (Queue mode: test/queue-mode/chat-memory.n8n.test.js.)
const { sleep } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { startFakeChatModel } = require('../support/n8n/mcp');
const {
	SYSTEM_PROMPT,
	answerOf,
	expectedTurns,
	memoryWorkflow,
	modelCredential,
	newConversation,
	playConversation,
	receivedTurns,
	summarize,
	textOf,
} = require('../support/n8n/chat-memory');

const WORKFLOW_ID = 'e2eChatMemory001';
const STEPS = [
	{ customer: 'Hi, I ordered a lamp last week' },
	{ person: 'Priya here: I can see your order.' },
	{ system: 'Conversation assigned to Priya' },
	{ customer: 'Order 1234, where is it?' },
	{ personLocation: { latitude: 52.52, longitude: 13.405, name: 'Pick-up point' } },
	{ customer: 'Can I pick it up there?' },
	{ customer: 'Thanks!' },
	{ customer: 'One more question: do you gift-wrap?' },
];

describe('Omnichannel Chat Memory under the AI Agent (regular mode)', () => {
	let ctx;
	let model;

	beforeAll(async () => {
		model = await startFakeChatModel(answerOf);
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		await n8n.importCredentials([credential, modelCredential(model.url)]);
		await n8n.importWorkflows([memoryWorkflow({ id: WORKFLOW_ID, credential })]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		const hooksBefore = (await client.listAll('/webhooks')).length;
		await n8n.publishWorkflow(WORKFLOW_ID);
		for (let i = 0; i < 60 && (await client.listAll('/webhooks')).length === hooksBefore; i++) await sleep(1000);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await ctx?.close();
		await model?.close();
	});

	test(
		'five customer turns: each model request holds every earlier message as a turn, in order, right roles, the person marked, the current message once; one read per run',
		async () => {
			const { n8n, client } = ctx;
			const conversation = await newConversation(client);
			await client.control('DELETE', '/stats');
			const sent = await playConversation({ n8n, client, workflowId: WORKFLOW_ID, conversation, model, steps: STEPS });
			const stats = await client.control('GET', '/stats');
			const reads = stats.by_route['GET /messages'] ?? 0;

			const all = (await client.listAll('/messages', { conversation_id: conversation.conversationId })).reverse();
			const received = model.requests.map(receivedTurns);
			expect(received).toHaveLength(sent.length);
			for (const [index, message] of sent.entries()) {
				const turn = received[index];
				expect(turn.system).toContain(SYSTEM_PROMPT);
				expect(turn.history).toEqual(expectedTurns(all, message));
				expect(turn.prompt).toBe(message.content);
				const mentions = model.requests[index].messages.filter((m) => textOf(m).includes(message.content));
				expect(mentions).toHaveLength(1);
			}
			// Every earlier reply of the bot reached the conversation and the next turn's history.
			expect(received.at(-1).history.filter((t) => /^Answer \d+$/.test(t.text))).toHaveLength(sent.length - 1);
			expect(received.flatMap((r) => r.history).some((t) => t.text.includes('Conversation assigned'))).toBe(false);
			const summary = summarize('regular mode', received, { conversationReadsPerRun: reads / sent.length });
			expect(summary.personMarked).toBeGreaterThan(0);
			expect(reads).toBe(sent.length);
		},
		TEST_TIMEOUT_MS,
	);
});
