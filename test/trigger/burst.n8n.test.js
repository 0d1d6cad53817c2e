'use strict';
// Answer a Burst Once in a published workflow of a running n8n (regular
// mode): a burst of customer messages within the quiet period continues
// once, with every text in order; the other executions end without output;
// duplicate deliveries change nothing.
const { sleep } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { burstWorkflow, expectEveryMessageOnce, expectOneContinuation, inOrder, newConversation, printSummary, runBurst, writingEvery } = require('../support/n8n/burst');

const WORKFLOW_ID = 'e2eBurstTrigger1';
const CAPPED_ID = 'e2eBurstCapped01';
const CAPS = { burstMaxWaitSeconds: 4, burstMaxMessages: 5, burstEndWords: 'thanks, 🙏' };
const QUIET_SECONDS = 2;
const TEXTS = ['Hi', 'I ordered a lamp', 'order 1234', 'it arrived broken', 'what can you do?'];

describe('Answer a Burst Once in a published n8n workflow', () => {
	let ctx;

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows([
			burstWorkflow({ id: WORKFLOW_ID, credential, quietSeconds: QUIET_SECONDS }),
			burstWorkflow({ id: CAPPED_ID, credential, quietSeconds: QUIET_SECONDS, caps: CAPS }),
		]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		const hooksBefore = (await client.listAll('/webhooks')).length;
		await n8n.publishWorkflow(WORKFLOW_ID);
		await n8n.publishWorkflow(CAPPED_ID);
		for (let i = 0; i < 60 && (await client.listAll('/webhooks')).length < hooksBefore + 2; i++) await sleep(1000);
	}, SETUP_TIMEOUT_MS);

	afterAll(() => ctx?.close());

	const run = async (texts, workflowId = WORKFLOW_ID, send = undefined) =>
		await runBurst({ n8n: ctx.n8n, client: ctx.client, workflowId, conversationId: await newConversation(ctx.client), texts, quietSeconds: QUIET_SECONDS, send });

	test(
		'five customer messages within the quiet period: one execution, continued with the five texts in order; the other four start none',
		async () => {
			const summary = await run(TEXTS);
			printSummary('regular mode', summary);
			expectOneContinuation(summary, TEXTS);
			// The quiet period is waited out where the deliveries arrive: only the newest message starts an execution.
			expect(summary.executions).toBe(1);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'every delivery duplicated by the sandbox: still one continuation',
		async () => {
			await ctx.client.control('DELETE', '/deliveries');
			await ctx.client.control('PUT', '/faults', { webhook_duplicate_rate: 1 });
			let summary;
			try {
				summary = await run(TEXTS.map((text) => `${text} (dup)`));
			} finally {
				await ctx.client.control('DELETE', '/faults');
			}
			const deliveries = await ctx.client.control('GET', '/deliveries');
			printSummary('regular mode, duplicated deliveries', summary, `; ${deliveries.length} deliveries (${deliveries.filter((d) => d.duplicate).length} duplicates)`);
			expectOneContinuation(summary, TEXTS.map((text) => `${text} (dup)`));
			expect(summary.endedInBurst).toBe(0);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'Max Wait: a customer writing every 1.2 seconds is answered 4 seconds after their first message, before they stop; every message in exactly one continuation, in order',
		async () => {
			const texts = Array.from({ length: 6 }, (_, index) => `still writing ${index}`);
			const summary = await run(texts, CAPPED_ID, writingEvery(ctx.client, 1200));
			printSummary('regular mode, Max Wait 4 s', summary);
			expectEveryMessageOnce(summary);
			const bursts = inOrder(summary).map((item) => item.burst);
			expect(bursts.map((burst) => [burst.count, burst.endedBy])).toEqual([
				[4, 'maxWait'],
				[2, 'quietPeriod'],
			]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'Max Messages and End Words: eleven messages at once end in bursts of five, five, then one ended by an emoji End Word',
		async () => {
			const texts = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'Thanks a lot 🙏'];
			const summary = await run(texts, CAPPED_ID);
			printSummary('regular mode, Max Messages 5, End Words', summary);
			expectEveryMessageOnce(summary);
			expect(inOrder(summary).map((item) => [item.burst.count, item.burst.endedBy])).toEqual([
				[5, 'maxMessages'],
				[5, 'maxMessages'],
				[1, 'endWord'],
			]);
		},
		TEST_TIMEOUT_MS,
	);
});
