'use strict';
// Conversation > Hand Over to a Person in n8n's queue mode (harness/queue.js:
// PostgreSQL, Redis, main, two workers, a webhook process), with the
// stand-in model: the hand-over is read from the conversation by whichever
// worker runs the next customer message, so the scenarios of the
// regular-mode file (test/ai-memory/hand-over.n8n.test.js) hold as they are:
// one message and one note for two hand-overs at once, no model request and
// no bot reply for the next 3 customer messages, the bot back after a person
// and the period with the whole conversation in memory, and back after a
// short limit with no person. Prints the counts as one JSON line each.
const { openQueueContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { modelCredential } = require('../support/n8n/chat-memory');
const { SHORT_LIMIT_HOURS, expectExpired, expectHandedOverUntilAPersonAnswers, handOverExpires, handOverWorkflow, handsOverUntilAPersonAnswers, startScriptedModel } = require('../support/n8n/hand-over');

const TEST_TIMEOUT_MS = 5 * 60 * 1000;
const HANDS_OVER = { id: 'queueHandOver001', channel: 'telegram' };
const EXPIRES = { id: 'queueHandOver002', channel: 'whatsapp', limitHours: SHORT_LIMIT_HOURS };

let ctx;
let cluster;
let client;
let model;

beforeAll(async () => {
	model = await startScriptedModel({ toolCallDelayMs: 2000 });
	ctx = await openQueueContext({
		credential: { id: 'queueHandOverCr1' },
		setUp: ({ credential }) => ({
			credentials: [modelCredential(model.url)],
			workflows: [handOverWorkflow({ ...HANDS_OVER, credential }), handOverWorkflow({ ...EXPIRES, credential })],
			publish: [HANDS_OVER.id, EXPIRES.id],
		}),
		webhooks: 2,
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

const perWorker = async (workflowId) => {
	const ids = (await cluster.main.listExecutions({ workflowId })).map((e) => String(e.id));
	return cluster.workerExecutionIds().map((ran) => ids.filter((id) => ran.has(id)).length);
};

test(
	'two workers: the agent hands over once, 3 customer messages get no model request and no reply, the bot is back after a person and the period with the whole conversation',
	async () => {
		const result = await handsOverUntilAPersonAnswers({ n8n: cluster.main, client, model, workflowId: HANDS_OVER.id, channel: HANDS_OVER.channel });
		console.log(JSON.stringify({ suite: 'hand-over queue mode', ...result.counts, executionsPerWorker: await perWorker(HANDS_OVER.id) }));
		expectHandedOverUntilAPersonAnswers(result);
		expect(result.counts.toolCallsAtOnce).toBe(2);
	},
	TEST_TIMEOUT_MS,
);

test(
	'two workers: no person within a short limit, the bot answers again and says the hand-over expired',
	async () => {
		const result = await handOverExpires({ n8n: cluster.main, client, model, workflowId: EXPIRES.id, channel: EXPIRES.channel });
		console.log(JSON.stringify({ suite: 'hand-over expired queue mode', ...result.counts, executionsPerWorker: await perWorker(EXPIRES.id) }));
		expectExpired(result);
	},
	TEST_TIMEOUT_MS,
);
