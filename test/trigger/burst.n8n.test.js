'use strict';
// Answer a Burst Once in a published workflow of a running n8n (regular
// mode): a burst of customer messages within the quiet period continues
// once, with every text in order; the other executions end without output;
// duplicate deliveries change nothing; a reply inside the quiet period loses
// no message; the caps.
const { sleep } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { burstWorkflow, expectHeldWhereDelivered, expectEveryMessageOnce, expectOneContinuation, inOrder, newConversation, printSummary, runBurst, writingEvery } = require('../support/n8n/burst');

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
		'five customer messages within the quiet period: one continuation with the five texts in order; the others start no execution where their hold was superseded',
		async () => {
			const summary = await run(TEXTS);
			printSummary('regular mode', summary);
			expectOneContinuation(summary, TEXTS);
			expectHeldWhereDelivered(summary, 1);
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
			// Copies of a message share its hold: none starts a second execution.
			expect(summary.endedAsDuplicate).toBe(0);
			expectHeldWhereDelivered(summary, 1);
		},
		TEST_TIMEOUT_MS,
	);

	test.each([
		['without caps', WORKFLOW_ID],
		['with caps', CAPPED_ID],
	])(
		'a reply between two customer messages of one quiet period (%s): each continued once, the one before the reply ended by it',
		async (_, workflowId) => {
			// A person (or an earlier answer arriving late) writes between the customer's two messages.
			const send = async (conversationId, text) => {
				if (text === 'after the reply') await ctx.client.api('POST', '/messages/text', { conversation_id: conversationId, text: 'An answer on its way', client_request_id: `e2e-${Date.now()}` });
				return await ctx.client.control('POST', '/inbound', { conversation_id: conversationId, text });
			};
			const summary = await run(['before the reply', 'after the reply'], workflowId, send);
			printSummary(`regular mode, a reply inside the quiet period (${_})`, summary);
			expectEveryMessageOnce(summary);
			expect(inOrder(summary).map((item) => [item.burst.text, item.burst.endedBy])).toEqual([
				['before the reply', 'reply'],
				['after the reply', 'quietPeriod'],
			]);
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
