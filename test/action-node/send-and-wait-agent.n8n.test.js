'use strict';
// The human review n8n generates from our Send and Wait operation
// (n8n-nodes-omnichannel.omnichannelHitlTool), in the shipped example
// examples/refund-approval.json, published in a real n8n with a stand-in
// OpenAI-compatible chat model on 127.0.0.1: a customer asks for a refund,
// the model calls Issue refund, the manager gets Approve / Decline links in
// their conversation, and the refund call (a stand-in shop on 127.0.0.1)
// happens only after Approve, once; after Decline the model is told so.
const crypto = require('crypto');
const http = require('http');

const { omnichannelCredential, sleep, waitFor, workflows: w } = require('../../harness');
const { NODE_TYPES } = require('../../harness/node-types');
const { startFakeChatModel, toolCall } = require('../support/n8n/mcp');
const { openContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { DEMO_CREDENTIAL, EXAMPLE_IDS, loadExamples } = require('../../harness/demo');
const { answer, conversationDriver, linksOf, untilWaiting } = require('./send-and-wait-support');

const TEST_TIMEOUT_MS = 3 * 60 * 1000;
const QUIET_PERIOD_MS = 3000;
/** n8n's name for the human review it generates from a node with a sendAndWait operation (tool-generation/hitl-tools.js). */
const HITL_TYPE = `${NODE_TYPES.action}HitlTool`;

/** A shop's refund endpoint on 127.0.0.1 that records what it was asked. */
async function startShop() {
	const refunds = [];
	const server = http.createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk) => (raw += chunk));
		req.on('end', () => {
			refunds.push(JSON.parse(raw || '{}'));
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ refund_id: `rf_${refunds.length}`, status: 'refunded' }));
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { url: `http://127.0.0.1:${server.address().port}/api/refunds`, refunds, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * The model: asks for the refund of the order in the customer's message,
 * then replies to the customer according to the refund tool's result, then stops.
 */
function modelTurn(body) {
	const toolResults = body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
	if (toolResults.length === 0) {
		const refundTool = body.tools.find((t) => t.function.name === 'Issue_refund');
		const args = { order: '1042', amount: 40, reason: 'Box arrived dented' };
		// n8n gives a reviewed tool the schema { toolParameters, hitlParameters }.
		const wrapped = refundTool.function.parameters.properties?.toolParameters ? { toolParameters: args, hitlParameters: {} } : args;
		return { tool_calls: [toolCall('call_refund', 'Issue_refund', wrapped)] };
	}
	if (toolResults.length === 1) {
		const refunded = toolResults[0].includes('refunded') && !/rejected/i.test(toolResults[0]);
		const reply = refunded ? 'Your refund of €40 for order 1042 is on its way.' : 'A colleague will follow up on your refund request.';
		return { tool_calls: [toolCall('call_reply', 'Reply_to_customer', { reply })] };
	}
	return { content: 'Done.' };
}

describe('the human review n8n generates from Send and Wait (AI Agent, refund example)', () => {
	let ctx;
	let driver;
	let shop;
	let model;
	let manager;
	let workflowId;
	let chatCredential;

	/** The example with a chat model, the manager's conversation and the stand-in shop, published. */
	async function publishExample(reviewOptions = {}) {
		const { n8n, client } = ctx;
		const example = loadExamples().find((workflow) => workflow.id === EXAMPLE_IDS.refundApproval);
		const webhookId = crypto.randomUUID();
		const nodes = example.nodes.map((n) => {
			if (n.name === 'Customer wrote in') return { ...n, webhookId };
			if (n.name === 'Ask a manager') {
				const options = { ...n.parameters.options, ...reviewOptions };
				return { ...n, parameters: { ...n.parameters, conversationId: w.byId(manager.id), options } };
			}
			if (n.name === 'Issue refund') return { ...n, parameters: { ...n.parameters, url: shop.url } };
			return n;
		});
		nodes.push({
			id: crypto.randomUUID(),
			name: 'Chat model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.2,
			position: [200, 260],
			parameters: { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} },
			credentials: { openAiApi: { id: chatCredential.id, name: chatCredential.name } },
		});
		const connections = { ...example.connections, 'Chat model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] } };
		const { id } = await n8n.api.publicApi('POST', '/workflows', { name: example.name, nodes, connections, settings: { executionOrder: 'v1' } });
		await n8n.publishWorkflow(id);
		await waitFor(async () => (await client.listAll('/webhooks')).some((hook) => hook.url.includes(webhookId)), {
			what: 'the trigger’s webhook at the sandbox',
			timeoutMs: 60_000,
		});
		return id;
	}

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, sandbox, client } = ctx;
		driver = conversationDriver(client);
		shop = await startShop();
		model = await startFakeChatModel(modelTurn);
		manager = await driver.newConversation('telegram');

		await n8n.importCredentials([omnichannelCredential({ ...DEMO_CREDENTIAL, baseUrl: sandbox.base_url, apiKey: sandbox.key })]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		const { api } = n8n;
		chatCredential = await api.publicApi('POST', '/credentials', {
			name: 'Fake chat model',
			type: 'openAiApi',
			data: { apiKey: 'sk-fake-model-for-tests', url: model.url, header: false },
		});
		workflowId = await publishExample();
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await ctx?.close();
		await shop?.close();
		await model?.close();
	});

	test('the example’s review node is n8n’s generated human review of our node, with our parameters', () => {
		const example = loadExamples().find((workflow) => workflow.id === EXAMPLE_IDS.refundApproval);
		const review = example.nodes.find((n) => n.name === 'Ask a manager');
		expect(review.type).toBe(HITL_TYPE);
		w.checkWorkflowParameters({ nodes: [{ ...review, type: NODE_TYPES.action }] });
		expect(example.connections['Issue refund']).toEqual({ ai_tool: [[{ node: 'Ask a manager', type: 'ai_tool', index: 0 }]] });
	});

	/** A customer's refund request; resolves with the manager's links once they arrive. */
	async function customerAsks(text) {
		const customer = await driver.newConversation('whatsapp');
		const before = (await driver.messages(manager.id)).length;
		await ctx.client.control('POST', '/inbound', { conversation_id: customer.id, text });
		const asked = await waitFor(
			async () => {
				const all = await driver.messages(manager.id);
				return all.length > before ? all[0] : undefined;
			},
			{ what: 'the question to the manager', timeoutMs: 60_000 },
		);
		const links = linksOf(asked.content);
		await untilWaiting(ctx.n8n.api, links[0]);
		return { customer, asked, links };
	}

	const customerReplies = async (conversationId) =>
		(await driver.messages(conversationId)).filter((m) => !m.from_customer).map((m) => m.content);

	test(
		'Approve: the refund is made once, after the manager’s answer, and the customer is told',
		async () => {
			const { customer, asked, links } = await customerAsks('My box arrived dented. Please refund order 1042 (€40).');
			expect(asked.content.split('\n\n').slice(0, 2)).toEqual([
				'Refund request from a customer on whatsapp: "My box arrived dented. Please refund order 1042 (€40)."',
				'The AI agent wants to refund order 1042 (40): Box arrived dented',
			]);
			expect(links.map((link) => link.label)).toEqual(['Approve refund', 'Decline']);
			await sleep(QUIET_PERIOD_MS);
			expect(shop.refunds).toEqual([]);

			await answer(links[0].url);
			await waitFor(async () => (await customerReplies(customer.id)).length > 0, { what: 'the reply to the customer', timeoutMs: 60_000 });
			expect(await customerReplies(customer.id)).toEqual(['Your refund of €40 for order 1042 is on its way.']);
			expect(shop.refunds).toEqual([{ order: '1042', amount: 40, reason: 'Box arrived dented' }]);

			await answer(links[0].url).catch(() => undefined);
			await sleep(QUIET_PERIOD_MS);
			expect(shop.refunds).toHaveLength(1);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'Decline: no refund is made, and the model is told the manager rejected it',
		async () => {
			const refundsBefore = shop.refunds.length;
			const { customer, links } = await customerAsks('Refund order 1042 please, the box was dented.');
			await answer(links[1].url);
			await waitFor(async () => (await customerReplies(customer.id)).length > 0, { what: 'the reply to the customer', timeoutMs: 60_000 });
			expect(await customerReplies(customer.id)).toEqual(['A colleague will follow up on your refund request.']);
			expect(shop.refunds).toHaveLength(refundsBefore);
			const told = model.requests.flatMap((r) => r.messages).filter((m) => m.role === 'tool').map((m) => String(m.content));
			expect(told.some((text) => text.includes('rejected the tool call'))).toBe(true);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'no answer within the wait limit counts as a decline',
		async () => {
			await ctx.n8n.unpublishWorkflow(workflowId);
			workflowId = await publishExample({ limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 3, resumeUnit: 'seconds' } } });
			const refundsBefore = shop.refunds.length;
			const requestsBefore = model.requests.length;
			const { customer } = await customerAsks('Please refund order 1042, nobody will answer in time.');
			await waitFor(async () => (await customerReplies(customer.id)).length > 0, { what: 'the reply after the limit', timeoutMs: 100_000 });
			expect(await customerReplies(customer.id)).toEqual(['A colleague will follow up on your refund request.']);
			expect(shop.refunds).toHaveLength(refundsBefore);
			const told = model.requests.slice(requestsBefore).flatMap((r) => r.messages).filter((m) => m.role === 'tool').map((m) => String(m.content));
			expect(told.some((text) => text.includes('rejected the tool call'))).toBe(true);
		},
		TEST_TIMEOUT_MS,
	);
});
