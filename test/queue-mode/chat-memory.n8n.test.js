'use strict';
// Omnichannel Chat Memory in n8n's queue mode (harness/queue.js: PostgreSQL,
// Redis, main, two workers, a webhook process): five turns of one
// conversation run on whichever worker takes them, and each turn's model
// request holds every earlier turn, the case n8n's Simple Memory (process
// memory) loses. The trigger outputs data only here (the regular-mode file
// uses the whole event).
const { openQueueContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { startFakeChatModel } = require('../support/n8n/mcp');
const {
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

const TEST_TIMEOUT_MS = 4 * 60 * 1000;
const WORKFLOW_ID = 'queueChatMemory1';
const STEPS = [
	{ customer: 'Hello, my parcel is late' },
	{ person: 'Tom here, I am checking with the carrier.' },
	{ customer: 'Tracking 998' },
	{ customer: 'Any news?' },
	{ system: 'Conversation assigned to Tom' },
	{ customer: 'Still waiting' },
	{ customer: 'Thank you' },
];

let ctx;
let cluster;
let client;
let model;

beforeAll(async () => {
	model = await startFakeChatModel(answerOf);
	ctx = await openQueueContext({
		credential: { id: 'queueMemoryCred1' },
		setUp: ({ credential }) => ({
			credentials: [modelCredential(model.url)],
			workflows: [memoryWorkflow({ id: WORKFLOW_ID, credential, triggerOptions: { outputDataOnly: true } })],
			publish: [WORKFLOW_ID],
		}),
		webhooks: 1,
	});
	({ cluster, client } = ctx);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	try {
		await ctx?.close();
	} finally {
		await model?.close();
	}
});

test(
	'five turns of one conversation on two workers: each model request holds every earlier turn, in order, the person marked, the current message once',
	async () => {
		const conversation = await newConversation(client);
		await client.control('DELETE', '/stats');
		const sent = await playConversation({ n8n: cluster.main, client, workflowId: WORKFLOW_ID, conversation, model, steps: STEPS });
		const reads = (await client.control('GET', '/stats')).by_route['GET /messages'] ?? 0;

		const all = (await client.listAll('/messages', { conversation_id: conversation.conversationId })).reverse();
		const received = model.requests.map(receivedTurns);
		expect(received).toHaveLength(sent.length);
		for (const [index, message] of sent.entries()) {
			expect(received[index].history).toEqual(expectedTurns(all, message));
			expect(received[index].prompt).toBe(message.content);
			expect(model.requests[index].messages.filter((m) => textOf(m).includes(message.content))).toHaveLength(1);
		}
		const ids = (await cluster.main.listExecutions({ workflowId: WORKFLOW_ID })).map((e) => String(e.id));
		const perWorker = cluster.workerExecutionIds().map((ran) => ids.filter((id) => ran.has(id)).length);
		summarize('queue mode', received, { conversationReadsPerRun: reads / sent.length, executionsPerWorker: perWorker });
		expect(perWorker.reduce((a, b) => a + b, 0)).toBe(sent.length);
		expect(reads).toBe(sent.length);
	},
	TEST_TIMEOUT_MS,
);
