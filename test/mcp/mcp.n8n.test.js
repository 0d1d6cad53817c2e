'use strict';
// The Omnichannel node as tools of n8n's MCP Server Trigger, in a published
// workflow of a real n8n, called by the official MCP TypeScript SDK: what a
// model sees when it lists the tools, what each call does in the sandbox,
// how bad input comes back, and that a retried send with the same key
// arrives once.
const { waitFor, workflows: w } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { connectMcp, fromAI, mcpTrigger, mcpUrl, omnichannelTool, resultText, toolConnections } = require('../support/n8n/mcp');

const WORKFLOW_ID = 'e2eMcpServer0001';
const MCP_PATH = 'omnichannel-e2e';
const TRIGGER = 'MCP Server Trigger';

/** Tool nodes; MCP tool names are n8n's node names with spaces as underscores. */
const TOOLS = {
	send: 'Send reply',
	contacts: 'Find contacts',
	history: 'Conversation history',
	identity: 'Workspace identity',
};
const toolName = (nodeName) => nodeName.replace(/ /g, '_');

function mcpWorkflow(credential) {
	const byId = (value) => ({ __rl: true, mode: 'id', value });
	const nodes = [
		mcpTrigger(TRIGGER, MCP_PATH),
		omnichannelTool(TOOLS.send, credential, {
			resource: 'message',
			operation: 'sendText',
			conversationId: byId(fromAI('conversationId', 'ID of the conversation to reply in, from the conversation history or a trigger')),
			text: fromAI('text', 'The message to the customer, 1 to 4000 characters'),
			options: {
				clientRequestId: fromAI(
					'clientRequestId',
					'A new unique key for each new message (e.g. a UUID); pass the same key again only when retrying this same message',
				),
			},
		}),
		omnichannelTool(TOOLS.contacts, credential, {
			resource: 'contact',
			operation: 'getAll',
			limit: 10,
			filters: { search: fromAI('search', 'Text to find in the name, email, company or phone of contacts') },
		}),
		omnichannelTool(TOOLS.history, credential, {
			resource: 'message',
			operation: 'getAll',
			limit: 20,
			filters: { conversationId: byId(fromAI('conversationId', 'ID of the conversation whose messages to read')) },
		}),
		omnichannelTool(TOOLS.identity, credential, { resource: 'identity', operation: 'get' }),
	];
	const workflow = w.workflow({ id: WORKFLOW_ID, name: 'E2E MCP server', nodes, connections: [] });
	workflow.connections = toolConnections(Object.values(TOOLS), TRIGGER);
	return workflow;
}

describe('Omnichannel tools behind n8n’s MCP Server Trigger, called with the MCP SDK', () => {
	let ctx;
	let mcp;
	let conversation;
	/** Every text a tool call returned (results and errors), for the secret check. */
	const seen = [];

	const call = async (nodeName, args) => {
		const result = await mcp.callTool({ name: toolName(nodeName), arguments: args });
		seen.push(resultText(result));
		return result;
	};
	const records = (result) => {
		expect(result.isError).toBeFalsy();
		return JSON.parse(resultText(result));
	};
	const messagesIn = (conversationId) => ctx.client.listAll('/messages', { conversation_id: conversationId });

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		const active = new Set((await client.listAll('/channels')).filter((c) => c.is_active).map((c) => c.id));
		conversation = (await client.listAll('/conversations')).find((c) => active.has(c.channel_id));
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows([mcpWorkflow(credential)]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		await n8n.publishWorkflow(WORKFLOW_ID);
		// n8n answers the publish before the MCP endpoint is registered: retry the connection.
		mcp = await waitFor(
			async () => {
				try {
					return await connectMcp(mcpUrl(n8n.baseUrl, MCP_PATH));
				} catch {
					return undefined;
				}
			},
			{ what: 'the MCP endpoint of the published workflow', timeoutMs: 60_000 },
		);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await mcp?.close();
		await ctx?.close();
	});

	test(
		'lists the four tools with descriptions and input schemas a model can act on',
		async () => {
			const { tools } = await mcp.listTools();
			const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
			expect(Object.keys(byName).sort()).toEqual(Object.values(TOOLS).map(toolName).sort());
			for (const tool of tools) {
				expect(tool.description.length).toBeGreaterThan(10);
				expect(tool.inputSchema.type).toBe('object');
			}
			const send = byName[toolName(TOOLS.send)].inputSchema;
			expect(Object.keys(send.properties).sort()).toEqual(['clientRequestId', 'conversationId', 'text']);
			expect(send.required.sort()).toEqual(['clientRequestId', 'conversationId', 'text']);
			expect(send.properties.text).toMatchObject({ type: 'string', description: expect.stringContaining('1 to 4000') });
			expect(send.properties.clientRequestId.description).toContain('retrying');
			expect(Object.keys(byName[toolName(TOOLS.contacts)].inputSchema.properties)).toEqual(['search']);
			expect(Object.keys(byName[toolName(TOOLS.history)].inputSchema.properties)).toEqual(['conversationId']);
			expect(byName[toolName(TOOLS.identity)].inputSchema.properties ?? {}).toEqual({});
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'each tool runs against the workspace; results are the simplified records',
		async () => {
			const me = await ctx.client.api('GET', '/me');
			expect(records(await call(TOOLS.identity, {}))).toEqual([expect.objectContaining({ app_id: me.app_id, key_id: me.key_id })]);

			const expected = await ctx.client.listAll('/contacts', { search: 'a' });
			const found = records(await call(TOOLS.contacts, { search: 'a' }));
			expect(found.map((c) => c.id)).toEqual(expected.slice(0, 10).map((c) => c.id));
			expect(Object.keys(found[0]).sort()).toEqual(
				Object.keys(found[0]).filter((k) => ['id', 'name', 'email', 'phone', 'company', 'lead_status', 'lead_source', 'updated_at'].includes(k)).sort(),
			);
			expect(found[0]).not.toHaveProperty('app_id');

			const before = await messagesIn(conversation.id);
			const text = `MCP reply ${Date.now()}`;
			const [sent] = records(await call(TOOLS.send, { conversationId: conversation.id, text, clientRequestId: `mcp-e2e-${Date.now()}` }));
			expect(sent).toMatchObject({ conversation_id: conversation.id, content: text, message_type: 'text' });
			const after = await messagesIn(conversation.id);
			expect(after).toHaveLength(before.length + 1);
			expect(after.filter((m) => m.content === text)).toHaveLength(1);

			const history = records(await call(TOOLS.history, { conversationId: conversation.id }));
			expect(history.map((m) => m.id)).toEqual(after.slice(0, 20).map((m) => m.id));
			expect(history[0]).toMatchObject({ id: sent.id, content: text });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a retried send with the same Client Request ID arrives once; a new key sends again',
		async () => {
			const key = `refund-note-${conversation.id}-${Date.now()}`;
			const args = { conversationId: conversation.id, text: 'Your refund was issued today.', clientRequestId: key };
			const [first] = records(await call(TOOLS.send, args));
			const [retry] = records(await call(TOOLS.send, args));
			expect(retry.id).toBe(first.id);
			const stored = (await messagesIn(conversation.id)).filter((m) => m.client_request_id === `n8n_${key}`);
			expect(stored).toHaveLength(1);

			const [next] = records(await call(TOOLS.send, { ...args, clientRequestId: `${key}-2` }));
			expect(next.id).not.toBe(first.id);
			expect((await messagesIn(conversation.id)).filter((m) => m.content === args.text)).toHaveLength(2);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'bad input comes back as an MCP error naming the argument, nothing is sent, and the session goes on',
		async () => {
			const before = (await messagesIn(conversation.id)).length;

			const tooLong = await call(TOOLS.send, { conversationId: conversation.id, text: 'x'.repeat(5000), clientRequestId: 'too-long-1' });
			expect(tooLong.isError).toBe(true);
			expect(resultText(tooLong)).toContain("Invalid argument 'text': it has 5000 characters; the most allowed is 4000");
			expect(resultText(tooLong)).toContain("Call the tool again with 'text' set to text of 1 to 4000 characters.");

			const unknown = await call(TOOLS.send, { conversationId: 'conv_doesNotExist000000', text: 'Hello', clientRequestId: 'unknown-1' });
			expect(unknown.isError).toBe(true);
			expect(resultText(unknown)).toContain('The Omnichannel API rejected the request: conversation not found');
			expect(resultText(unknown)).toContain("Call the tool again with a corrected 'conversationId'");

			const missing = await call(TOOLS.send, { conversationId: conversation.id, clientRequestId: 'missing-1' });
			expect(missing.isError).toBe(true);
			// n8n checks the arguments against the schema before the node runs; its message names the argument.
			expect(resultText(missing)).toMatch(/did not match expected schema[\s\S]*Required[\s\S]*→ at text/);

			for (const result of [tooLong, unknown, missing]) {
				expect(resultText(result)).not.toMatch(/\[item \d+\]|node's parameters|this item/);
			}
			expect(await messagesIn(conversation.id)).toHaveLength(before);

			const text = `After the errors ${Date.now()}`;
			const [sent] = records(await call(TOOLS.send, { conversationId: conversation.id, text, clientRequestId: `after-${Date.now()}` }));
			expect(sent.content).toBe(text);
			expect(await messagesIn(conversation.id)).toHaveLength(before + 1);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'the same endpoint serves the SSE transport too',
		async () => {
			const sse = await connectMcp(mcpUrl(ctx.n8n.baseUrl, MCP_PATH), { transport: 'sse' });
			try {
				const { tools } = await sse.listTools();
				expect(tools.map((tool) => tool.name).sort()).toEqual(Object.values(TOOLS).map(toolName).sort());
				const result = await sse.callTool({ name: toolName(TOOLS.identity), arguments: {} });
				seen.push(resultText(result));
				expect(result.isError).toBeFalsy();
			} finally {
				await sse.close();
			}
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'no result or error contains the API key or its secret',
		() => {
			const key = ctx.sandbox.key;
			const secret = key.slice(key.indexOf('.') + 1);
			expect(seen.length).toBeGreaterThanOrEqual(10);
			for (const text of seen) {
				expect(text.includes(key) || text.includes(secret)).toBe(false);
			}
		},
		TEST_TIMEOUT_MS,
	);
});
