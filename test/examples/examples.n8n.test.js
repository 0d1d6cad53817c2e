'use strict';
// The shipped examples/ workflows, run in the demo environment (what
// `npm run demo` starts), each checked against the sandbox's state.
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { freePort, nodeOutput, sandboxClient, sleep, waitFor, workflows: w } = require('../../harness');
const { NODE_TYPES } = require('../../harness/node-types');
const { SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { startDemo, EXAMPLE_IDS } = require('../../harness/demo');
const { OMNICHANNEL_TOOL_TYPE, connectMcp, resultText, startFakeChatModel, toolCall } = require('../support/n8n/mcp');

const QUIET_PERIOD_MS = 3000;
const AUTO_REPLY_TEXT = /^Thanks for your message!/;

describe('examples/ in the demo environment', () => {
	let demo;
	let client;
	let userFolder;

	beforeAll(async () => {
		userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-examples-'));
		demo = await startDemo({ n8nPort: await freePort(), userFolder });
		client = sandboxClient(demo.sandbox);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await demo?.close();
		fs.rmSync(userFolder, { recursive: true, force: true });
	});

	/** Runs the daily report and checks its numbers against the sandbox for the same window. */
	async function checkDailyReport() {
		const run = await demo.n8n.executeWorkflow(EXAMPLE_IDS.dailyReport);
		expect(run.status).toBe('success');
		const [report] = nodeOutput(run, 'Compose report');
		const since = Math.floor(Date.parse(report.since) / 1000);
		const inWindow = await client.listAll('/conversations', { last_updated_at: String(since) });
		const counts = {};
		for (const { channel, status } of inWindow) counts[`${channel}/${status}`] = (counts[`${channel}/${status}`] ?? 0) + 1;

		expect(report.total).toBe(inWindow.length);
		const rows = Object.fromEntries(report.by_channel_and_status.map((r) => [`${r.channel}/${r.status}`, r.conversations]));
		expect(rows).toEqual(counts);
		expect(report.report).toContain(`: ${inWindow.length}`);
		return report;
	}

	test(
		'daily report: reports the seeded workspace, also when the window is empty',
		async () => {
			await checkDailyReport();
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'auto-reply: each customer message gets exactly one reply, as System, in its conversation',
		async () => {
			const active = new Set((await client.listAll('/channels')).filter((c) => c.is_active).map((c) => c.id));
			const conversations = (await client.listAll('/conversations')).filter((c) => active.has(c.channel_id)).slice(0, 2);
			const messages = [];
			for (const [i, conversation] of conversations.entries()) {
				messages.push(await client.control('POST', '/inbound', { conversation_id: conversation.id, text: `Where is order ${i}?` }));
			}

			const repliesTo = async (message) => {
				const all = await client.listAll('/messages', { conversation_id: message.conversation_id });
				const outbound = all.filter((m) => !m.from_customer && AUTO_REPLY_TEXT.test(m.content));
				const stored = await Promise.all(outbound.map((m) => client.control('GET', `/messages/${m.id}`)));
				return stored.filter((m) => m.reply_to_message_id === message.id);
			};
			await waitFor(async () => (await Promise.all(messages.map(repliesTo))).every((r) => r.length > 0), {
				what: 'an auto-reply to every customer message',
				timeoutMs: 30_000,
			});
			await sleep(QUIET_PERIOD_MS);
			for (const message of messages) {
				const replies = await repliesTo(message);
				expect(replies).toHaveLength(1);
				expect(replies[0]).toMatchObject({ as_system: true, from_user_id: null, client_request_id: `auto-reply-${message.id}` });
			}
			// The replies' own events are filtered out by the trigger: one execution per customer message.
			const executions = await demo.n8n.listExecutions({ workflowId: EXAMPLE_IDS.autoReply });
			expect(executions.map((e) => e.status)).toEqual(messages.map(() => 'success'));
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'daily report: counts the conversations that just had activity',
		async () => {
			const report = await checkDailyReport();
			expect(report.total).toBeGreaterThanOrEqual(2);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'CRM sync: every new lead reaches the CRM step once and is then marked contacted',
		async () => {
			const newLeads = await client.listAll('/contacts', { lead_status: 'new' });
			expect(newLeads.length).toBeGreaterThan(0);
			const run = await demo.n8n.executeWorkflow(EXAMPLE_IDS.crmSync);
			expect(run.status).toBe('success');

			const toCrm = nodeOutput(run, 'Send to your CRM');
			expect(toCrm.map((lead) => lead.omnichannel_contact_id)).toEqual(newLeads.map((c) => c.id));
			expect(toCrm[0]).toEqual({
				full_name: newLeads[0].name,
				email: newLeads[0].email,
				phone: newLeads[0].phone,
				company: newLeads[0].company,
				lead_source: newLeads[0].lead_source || 'Omnichannel',
				omnichannel_contact_id: newLeads[0].id,
			});
			expect(await client.listAll('/contacts', { lead_status: 'new' })).toEqual([]);
			for (const lead of newLeads) {
				expect(await client.api('GET', `/contacts/${lead.id}`)).toMatchObject({ lead_status: 'contacted', name: lead.name });
			}
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'CRM upsert: 5 rows of 3 people in other writings make 3 contacts; run again, every row is unchanged',
		async () => {
			const run = await demo.n8n.executeWorkflow(EXAMPLE_IDS.crmUpsert);
			expect(run.status).toBe('success');
			const first = nodeOutput(run, 'Create or update contact');
			expect(first.map((contact) => contact._upsert.action)).toEqual(['created', 'created', 'created', 'unchanged', 'updated']);
			expect(first[3].id).toBe(first[0].id);
			expect(first[4]).toMatchObject({ id: first[2].id, email: 'max@example.de', phone: '(030) 1234567' });

			const again = nodeOutput(await demo.n8n.executeWorkflow(EXAMPLE_IDS.crmUpsert), 'Create or update contact');
			console.log(`examples: crm-upsert: first run ${first.map((c) => c._upsert.action).join('/')}, second run ${again.map((c) => c._upsert.action).join('/')}`);
			expect(again.map((contact) => contact.id)).toEqual(first.map((contact) => contact.id));
			expect(again.every((contact) => contact._upsert.action === 'unchanged')).toBe(true);
		},
		TEST_TIMEOUT_MS,
	);

	const example = (id) => demo.examples.find((workflow) => workflow.id === id);
	const toolNodes = (workflow) => workflow.nodes.filter((n) => n.type === OMNICHANNEL_TOOL_TYPE);
	const toolName = (nodeName) => nodeName.replace(/ /g, '_');

	test(
		'AI examples: their Omnichannel tools use only parameters of the node, and n8n keeps their wiring',
		async () => {
			for (const id of [EXAMPLE_IDS.aiSupportAgent, EXAMPLE_IDS.mcpServer]) {
				const workflow = example(id);
				const tools = toolNodes(workflow);
				expect(tools.length).toBeGreaterThanOrEqual(3);
				// A tool node has the action node's parameters plus n8n's tool description.
				const asAction = tools.map(({ parameters: { descriptionType, toolDescription, ...rest }, ...n }) => {
					expect({ descriptionType, toolDescription: typeof toolDescription }).toEqual({ descriptionType: 'manual', toolDescription: 'string' });
					return { ...n, type: NODE_TYPES.action, parameters: rest };
				});
				w.checkWorkflowParameters({ nodes: asAction });

				const stored = await demo.n8n.api.getWorkflow(id);
				const target = id === EXAMPLE_IDS.mcpServer ? 'MCP Server Trigger' : 'AI Agent';
				for (const tool of tools) {
					expect(stored.connections[tool.name]).toEqual({ ai_tool: [[{ node: target, type: 'ai_tool', index: 0 }]] });
				}
				expect(stored.nodes.map((n) => n.type).sort()).toEqual(workflow.nodes.map((n) => n.type).sort());
			}
			const agent = await demo.n8n.api.getWorkflow(EXAMPLE_IDS.aiSupportAgent);
			expect(agent.connections['Customer wrote in']).toEqual({ main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] });
			// Imported without a chat model: the user connects their own.
			expect(agent.nodes.some((n) => /lmChat/.test(n.type))).toBe(false);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'MCP server: the printed URL serves its tools to the MCP SDK; a retried send arrives once',
		async () => {
			const mcp = await connectMcp(demo.mcpUrl);
			try {
				const { tools } = await mcp.listTools();
				const expected = toolNodes(example(EXAMPLE_IDS.mcpServer));
				expect(tools.map((t) => t.name).sort()).toEqual(expected.map((n) => toolName(n.name)).sort());
				for (const node of expected) {
					expect(tools.find((t) => t.name === toolName(node.name)).description).toBe(node.parameters.toolDescription);
				}
				const send = tools.find((t) => t.name === 'Send_message');
				expect(send.inputSchema.required.sort()).toEqual(['clientRequestId', 'conversationId', 'text']);

				const found = JSON.parse(resultText(await mcp.callTool({ name: 'Find_contacts', arguments: { search: 'a' } })));
				expect(found.map((c) => c.id)).toEqual((await client.listAll('/contacts', { search: 'a' })).slice(0, 20).map((c) => c.id));

				const [conversation] = (await client.listAll('/conversations')).slice(0, 1);
				const args = { conversationId: conversation.id, text: 'Sent from an MCP client', clientRequestId: `mcp-example-${Date.now()}` };
				const first = await mcp.callTool({ name: 'Send_message', arguments: args });
				const retry = await mcp.callTool({ name: 'Send_message', arguments: args });
				expect(JSON.parse(resultText(retry))[0].id).toBe(JSON.parse(resultText(first))[0].id);
				const stored = await client.listAll('/messages', { conversation_id: conversation.id });
				expect(stored.filter((m) => m.client_request_id === args.clientRequestId)).toHaveLength(1);
			} finally {
				await mcp.close();
			}
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'AI support agent: with a chat model connected, a burst of two customer messages gets one reply, even when the model replies twice',
		async () => {
			const REPLY = 'Hello! Your order left our warehouse today.';
			// The model reads the history and (misbehaving) sends its reply twice in one turn, then stops.
			const model = await startFakeChatModel((body) =>
				body.messages.some((m) => m.role === 'tool')
					? { content: 'Answered the customer.' }
					: {
							tool_calls: [
								toolCall('call_1', 'Conversation_history', {}),
								toolCall('call_2', 'Reply_to_customer', { reply: REPLY }),
								toolCall('call_3', 'Reply_to_customer', { reply: `${REPLY} (again)` }),
							],
						},
			);
			const { api } = demo.n8n;
			let workflowId;
			try {
				const credential = await api.publicApi('POST', '/credentials', {
					name: 'Fake chat model',
					type: 'openAiApi',
					data: { apiKey: 'sk-fake-model-for-tests', url: model.url, header: false },
				});
				const source = example(EXAMPLE_IDS.aiSupportAgent);
				const nodes = source.nodes.map((n) => (n.name === 'Customer wrote in' ? { ...n, webhookId: crypto.randomUUID() } : n));
				nodes.push({
					id: crypto.randomUUID(),
					name: 'Chat model',
					type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
					typeVersion: 1.2,
					position: [200, 260],
					parameters: { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} },
					credentials: { openAiApi: { id: credential.id, name: credential.name } },
				});
				const connections = {
					...source.connections,
					'Chat model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
				};
				({ id: workflowId } = await api.publicApi('POST', '/workflows', {
					name: 'AI support agent with a chat model',
					nodes,
					connections,
					settings: { executionOrder: 'v1' },
				}));
				const hooksBefore = (await client.listAll('/webhooks')).length;
				await demo.n8n.publishWorkflow(workflowId);
				await waitFor(async () => (await client.listAll('/webhooks')).length > hooksBefore, {
					what: 'the agent workflow’s trigger to register its webhook',
					timeoutMs: 60_000,
				});

				// A new conversation: the burst holds only this test's messages.
				const channel = (await client.listAll('/channels')).find((c) => c.is_active);
				const conversation = await client.control('POST', '/conversations', { channel_id: channel.id });
				// Two messages within the trigger's quiet period: one burst, one answer.
				await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'Hello' });
				const message = await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'Where is my order?' });
				const replies = async () =>
					(await client.listAll('/messages', { conversation_id: conversation.id })).filter((m) => m.content.startsWith(REPLY));
				await waitFor(async () => (await replies()).length > 0, { what: 'the agent’s reply', timeoutMs: 60_000 });
				await waitFor(async () => {
					const executions = await demo.n8n.listExecutions({ workflowId });
					return executions.length === 2 && executions.every((e) => e.status !== 'running');
				}, {
					what: 'the executions of both messages to finish',
					timeoutMs: 60_000,
				});
				await sleep(QUIET_PERIOD_MS);

				const [reply, ...more] = await replies();
				expect(more).toEqual([]);
				expect(reply.client_request_id).toBe(`ai-reply-${message.id}`);
				expect(await client.control('GET', `/messages/${reply.id}`)).toMatchObject({ reply_to_message_id: message.id });
				// The first message's execution ended without output: the agent ran once.
				expect((await demo.n8n.listExecutions({ workflowId })).map((e) => e.status)).toEqual(['success', 'success']);

				// The model was offered the three tools, and was given both messages, in order (the burst's text).
				expect(model.requests[0].tools.map((t) => t.function.name).sort()).toEqual(['Conversation_history', 'Find_contact', 'Reply_to_customer']);
				expect(model.requests[0].messages.at(-1).content).toContain('Hello\nWhere is my order?');
				expect(model.requests.filter((r) => !r.messages.some((m) => m.role === 'tool'))).toHaveLength(1);
				const toolResults = model.requests.at(-1).messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
				expect(toolResults.some((text) => text.includes(message.id) && text.includes('Where is my order?'))).toBe(true);
			} finally {
				if (workflowId) await demo.n8n.unpublishWorkflow(workflowId).catch(() => {});
				await model.close();
			}
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'team chat by polling: publishing emits nothing; a customer message then reaches the team-chat step once, formatted',
		async () => {
			const workflowId = 'exPollTeamChat01';
			const trigger = 'New customer message';
			const { n8n } = demo;
			const hasCursor = async () => JSON.stringify((await n8n.api.getWorkflow(workflowId)).staticData ?? {}).includes('pollState');
			try {
				await n8n.publishWorkflow(workflowId);
				await waitFor(hasCursor, { what: 'the first poll to record where to start', timeoutMs: 60_000 });
				expect(await n8n.listExecutions({ workflowId })).toEqual([]);

				const conversation = (await client.listAll('/conversations'))[0];
				const message = await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'Is the shop open on Sunday?' });
				// Publishing again polls at once instead of waiting for the next minute.
				await n8n.unpublishWorkflow(workflowId);
				await n8n.publishWorkflow(workflowId);
				const [execution] = await n8n.api.waitForExecutions(workflowId, { count: 1, timeoutMs: 60_000 });
				await sleep(QUIET_PERIOD_MS);
				expect((await n8n.listExecutions({ workflowId })).map((e) => e.status)).toEqual(['success']);
				const { runData } = (await n8n.api.getExecution(execution.id)).data.resultData;
				expect(runData[trigger][0].data.main[0].map((item) => item.json.id)).toEqual([message.id]);
				expect(runData['Send to your team chat'][0].data.main[0].map((item) => item.json)).toEqual([
					{
						text: `New ${conversation.channel} message from a customer: Is the shop open on Sunday?`,
						omnichannel_conversation_id: conversation.id,
						omnichannel_message_id: message.id,
						written_at: message.created_at,
					},
				]);
			} finally {
				await n8n.unpublishWorkflow(workflowId).catch(() => {});
			}
		},
		TEST_TIMEOUT_MS,
	);
	test(
		'order number: the question, then the customer’s reply continues the run, which confirms with it; the reply starts no run of its own',
		async () => {
			const { n8n } = demo;
			const workflowId = EXAMPLE_IDS.orderNumber;
			const question = 'Hi! To look into it, please send us your order number';
			const channels = new Set((await client.listAll('/channels')).filter((c) => c.is_active).map((c) => c.id));
			const conversation = (await client.listAll('/conversations')).find((c) => channels.has(c.channel_id));
			const inConversation = async (prefix) =>
				(await client.listAll('/messages', { conversation_id: conversation.id })).filter((m) => m.content.startsWith(prefix));
			// The auto-reply would answer every message too.
			await n8n.unpublishWorkflow(EXAMPLE_IDS.autoReply);
			try {
				await n8n.publishWorkflow(workflowId);
				const { webhookId } = example(workflowId).nodes.find((node) => node.type === NODE_TYPES.trigger);
				await waitFor(async () => (await client.listAll('/webhooks')).some((hook) => hook.url.includes(webhookId)), {
					what: 'the trigger’s webhook',
					timeoutMs: 60_000,
				});
				await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'Where is my parcel?' });
				await waitFor(async () => (await inConversation(question)).length === 1, { what: 'the question', timeoutMs: 60_000 });
				await client.control('POST', '/inbound', { conversation_id: conversation.id, text: ' A-1042 ' });
				const [confirmation] = await waitFor(async () => {
					const found = await inConversation('Thanks! We are looking into order');
					return found.length > 0 ? found : undefined;
				}, { what: 'the confirmation', timeoutMs: 60_000 });
				expect(confirmation.content).toBe('Thanks! We are looking into order A-1042 and will get back to you shortly.');
				await sleep(QUIET_PERIOD_MS);
				expect(await inConversation(question)).toHaveLength(1);
				expect((await n8n.listExecutions({ workflowId })).map((e) => e.status)).toEqual(['success']);
			} finally {
				await n8n.unpublishWorkflow(workflowId).catch(() => {});
				await n8n.publishWorkflow(EXAMPLE_IDS.autoReply);
			}
		},
		TEST_TIMEOUT_MS,
	);
});
