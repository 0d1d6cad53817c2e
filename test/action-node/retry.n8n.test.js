'use strict';
// n8n's Retry of a failed execution, in a real n8n: a workflow sends three
// texts with the default Client Request ID, the third fails after the first
// ones went out, the user fixes the cause and presses Retry (REST
// `POST /rest/executions/:id/retry`), both "with the currently saved
// workflow" and "with the original workflow". Each text is stored once.
// Separate executions of the same workflow still send again.
const crypto = require('crypto');

const { waitFor, workflows: w } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');

const TEST_TIMEOUT_MS = 4 * 60 * 1000;
/** A well-formed conversation id that does not exist: the API answers 404. */
const MISSING_CONVERSATION = 'conv_NoSuchConversation01';
/**
 * A rate so low that the one-token bucket is empty after the first send and
 * the 429's Retry-After (100 s) is beyond what the node waits for.
 */
const STARVING_RATE_PER_SECOND = 0.01;

const IDS = { saved: 'faultRetrySaved1', original: 'faultRetryOrig01' };

describe('Retry of a failed execution sends nothing twice', () => {
	let ctx;
	const started = Date.now();

	const webhookStart = (path) =>
		w.node('Request', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} }, { typeVersion: 2, webhookId: crypto.randomUUID() });
	const splitItems = () => w.node('Items', 'n8n-nodes-base.splitOut', { fieldToSplitOut: 'body.items', include: 'noOtherFields', options: {} });
	const sendText = (conversationId) =>
		w.omnichannelNode('Send text', ctx.credential, { resource: 'message', operation: 'sendText', conversationId: w.byId(conversationId), text: '={{ $json.text }}' });
	const threeTexts = (path, conversationId) => ({
		nodes: [webhookStart(path), splitItems(), sendText(conversationId)],
		connections: w.chain('Request', 'Items', 'Send text'),
	});

	async function countsOf(tag) {
		const messages = await ctx.client.listAll('/messages', { conversation_id: ctx.conversationId });
		return [1, 2, 3].map((n) => messages.filter((m) => m.content === `${tag} ${n}`).length);
	}

	/** Starts the workflow through its production webhook and waits for its new execution to finish. */
	async function run(path, workflowId, items) {
		const before = (await ctx.n8n.listExecutions({ workflowId })).length;
		const response = await fetch(`${ctx.n8n.baseUrl}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ items }),
		});
		await response.text();
		expect(response.status).toBe(200);
		const executions = await ctx.n8n.api.waitForExecutions(workflowId, { count: before + 1, timeoutMs: 90_000 });
		return executions.sort((a, b) => Number(b.id) - Number(a.id))[0];
	}

	const itemsOf = (tag, { badThird = false } = {}) => [1, 2, 3].map((n) => ({ n, text: `${tag} ${n}`, ...(badThird && n === 3 ? { bad: true } : {}) }));

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		const active = new Set((await client.listAll('/channels')).filter((c) => c.is_active).map((c) => c.id));
		ctx.conversationId = (await client.listAll('/conversations')).find((c) => active.has(c.channel_id)).id;
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows([
			w.workflow({ id: IDS.saved, name: 'Fault suite: Retry with the saved workflow', ...threeTexts('retry-saved', `={{ $json.bad ? '${MISSING_CONVERSATION}' : '${ctx.conversationId}' }}`) }),
			w.workflow({ id: IDS.original, name: 'Fault suite: Retry with the original workflow', ...threeTexts('retry-original', ctx.conversationId) }),
		]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		for (const id of Object.values(IDS)) await n8n.publishWorkflow(id);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await ctx?.client.control('DELETE', '/faults').catch(() => undefined);
		await ctx?.close();
		console.log(`faults: retry file took ${Math.round((Date.now() - started) / 1000)} s`);
	});

	test(
		'item 3 fails on a missing conversation; the workflow is fixed and saved; Retry with the saved workflow stores texts 1/2/3 once each',
		async () => {
			const tag = `retry-saved ${crypto.randomUUID().slice(0, 8)}`;
			const failed = await waitFor(async () => run('retry-saved', IDS.saved, itemsOf(tag, { badThird: true })), {
				what: 'the published webhook',
				timeoutMs: 60_000,
				intervalMs: 1000,
			});
			expect(failed.status).toBe('error');
			const afterFailure = await countsOf(tag);

			await ctx.n8n.api.saveNodes(IDS.saved, (nodes) =>
				nodes.map((node) => (node.name === 'Send text' ? { ...node, parameters: { ...node.parameters, conversationId: w.byId(ctx.conversationId) } } : node)),
			);
			await ctx.n8n.api.retryExecution(failed.id, { loadWorkflow: true });
			const executions = await ctx.n8n.api.waitForExecutions(IDS.saved, { count: 2 });
			const retried = executions.find((e) => String(e.id) !== String(failed.id));
			const counts = await countsOf(tag);
			console.log(`faults: retry (saved workflow): messages per text after the failure ${afterFailure.join('/')}, after Retry ${counts.join('/')}; retry execution ${retried.status}`);
			expect(afterFailure).toEqual([1, 1, 0]);
			expect(retried.status).toBe('success');
			expect(counts).toEqual([1, 1, 1]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a 429 beyond the node’s patience fails the sends after one went out; the fault is lifted; Retry with the original workflow stores texts 1/2/3 once each',
		async () => {
			const tag = `retry-original ${crypto.randomUUID().slice(0, 8)}`;
			let failed;
			// No public-API call of ours while the rate is starved: it shares the key's bucket.
			await ctx.client.control('PUT', '/faults', { rate_limit_per_second: STARVING_RATE_PER_SECOND });
			try {
				failed = await run('retry-original', IDS.original, itemsOf(tag));
			} finally {
				await ctx.client.control('DELETE', '/faults');
			}
			expect(failed.status).toBe('error');
			const afterFailure = await countsOf(tag);

			await ctx.n8n.api.retryExecution(failed.id, { loadWorkflow: false });
			const executions = await ctx.n8n.api.waitForExecutions(IDS.original, { count: 2 });
			const retried = executions.find((e) => String(e.id) !== String(failed.id));
			const counts = await countsOf(tag);
			console.log(`faults: retry (original workflow): messages per text after the failure ${afterFailure.join('/')}, after Retry ${counts.join('/')}; retry execution ${retried.status}`);
			// Which item gets the one token is the node's business: one sent, the others not.
			expect([...afterFailure].sort()).toEqual([0, 0, 1]);
			expect(retried.status).toBe('success');
			expect(counts).toEqual([1, 1, 1]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'two separate executions of the same workflow each send: every text twice',
		async () => {
			const tag = `separate ${crypto.randomUUID().slice(0, 8)}`;
			const first = await run('retry-original', IDS.original, itemsOf(tag));
			const second = await run('retry-original', IDS.original, itemsOf(tag));
			const counts = await countsOf(tag);
			console.log(`faults: separate runs: 2 executions (${first.status}, ${second.status}), messages per text ${counts.join('/')}`);
			expect([first.status, second.status]).toEqual(['success', 'success']);
			expect(counts).toEqual([2, 2, 2]);
		},
		TEST_TIMEOUT_MS,
	);
});
