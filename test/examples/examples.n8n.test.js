'use strict';
// The shipped examples/ workflows, run in the demo environment (what
// `npm run demo` starts), each checked against the sandbox's state.
const crypto = require('crypto');

const { nodeOutput, sandboxClient, sleep, waitFor, workflows: w } = require('../../harness');
const { NODE_TYPES } = require('../../harness/node-types');
const { SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { startDemo, EXAMPLE_IDS } = require('../../harness/demo');
const { sharedN8n } = require('../support/n8n/shared');
const { OMNICHANNEL_TOOL_TYPE, connectMcp, mcpRequestStatus, resultText, startFakeChatModel, toolCall } = require('../support/n8n/mcp');
const { textOf } = require('../support/n8n/chat-memory');
const { referenceReportV11, referenceComparison, withBotShare, compareWithReference, compareTeamWithReference } = require('../support/report-reference');
const { localMidnight, localDate } = require('../support/report-world');

const QUIET_PERIOD_MS = 3000;
const STEP_ASIDE_MINUTES = 0.1;
const AUTO_REPLY_TEXT = /^Thanks for your message!/;

describe('examples/ in the demo environment', () => {
	let demo;
	let client;

	beforeAll(async () => {
		// The demo's world (sandbox, credentials, examples) on the run's n8n; alone, on an n8n of its own.
		demo = await startDemo({ n8n: (await sharedN8n()) ?? undefined });
		client = sandboxClient(demo.sandbox);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await demo?.close();
	});

	/**
	 * Runs the daily support report and checks it: every figure against the
	 * reference over the demo's data for the same period (yesterday in the
	 * workflow's time zone), the HTML the HTML node shows, and one row per
	 * channel for the sheet.
	 */
	async function checkDailyReport() {
		const run = await demo.n8n.executeWorkflow(EXAMPLE_IDS.dailyReport);
		expect(run.status).toBe('success');
		const items = nodeOutput(run, "Yesterday's support report");
		const total = items.find((item) => item.scope === 'total');
		const { timeZone } = total;
		const yesterday = (now) => [localMidnight(localDate(1, timeZone, now), timeZone), localMidnight(localDate(0, timeZone, now), timeZone)];
		expect([yesterday(Date.now()), yesterday(Date.now() - 600_000)]).toContainEqual([Date.parse(total.periodStart), Date.parse(total.periodEnd)]);
		// Compared with the day before yesterday (node version 1.1, Compare With Previous Period).
		const dayBefore = (now) => [localMidnight(localDate(2, timeZone, now), timeZone), localMidnight(localDate(1, timeZone, now), timeZone)];
		expect([dayBefore(Date.now()), dayBefore(Date.now() - 600_000)]).toContainEqual([Date.parse(total.previousPeriodStart), Date.parse(total.previousPeriodEnd)]);
		const data = { messages: await client.listAll('/messages', {}, { maxPages: 1000 }), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
		const period = { start: Date.parse(total.periodStart), end: Date.parse(total.periodEnd), timeZone, firstResponseTargetMinutes: 15, replyTargetMinutes: 15 };
		const previous = { kind: 'previousPeriod', start: Date.parse(total.previousPeriodStart), end: Date.parse(total.previousPeriodEnd) };
		const expected = referenceComparison(withBotShare(data, (p) => referenceReportV11(data, p)), period, previous);
		expect(compareWithReference(items, expected)).toEqual([]);
		// Group By Person, the bot's share and the text, as the references of issue 52 compute them.
		expect(compareTeamWithReference(items, data, { ...period, groupBy: 'person', version: 1.1 })).toEqual([]);
		expect(total.text).toContain('- Reply time (every wait): ');
		expect(items.filter((item) => item.scope === 'person').length).toBeGreaterThan(0);
		expect(total.text).toMatch(/^\*Support report\* /);
		expect(nodeOutput(run, 'Show the report')).toEqual([{ html: total.html }]);
		expect(total.html).toContain('Support report');
		expect(nodeOutput(run, 'Add to your sheet').map((row) => row.channelId)).toEqual(data.channels.map((channel) => channel.id));
		return total;
	}

	test(
		'daily report: yesterday per channel and in total, as the reference computes it; its HTML shown by the HTML node; a row per channel',
		async () => {
			const total = await checkDailyReport();
			// The demo's recent activity gives yesterday work of every kind.
			expect(total).toMatchObject({ customerMessages: expect.any(Number), botMessages: expect.any(Number), personMessages: expect.any(Number) });
			expect(Math.min(total.customerMessages, total.botMessages, total.personMessages, total.waitsAnswered)).toBeGreaterThan(0);
			console.log(`examples: daily report ${JSON.stringify({ conversations: total.conversationsWithActivity, customerMessages: total.customerMessages, firstResponses: total.firstResponses, waitsAnswered: total.waitsAnswered, previousCustomerMessages: total.previousCustomerMessages, waitingAtEnd: total.waitingAtEnd, handOvers: total.handOvers, ratings: total.ratings })}`);
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
				expect(replies[0]).toMatchObject({ as_system: true, from_user_id: null, client_request_id: `n8n_auto-reply-${message.id}` });
			}
			// The replies' own events are filtered out by the trigger: one execution per customer message.
			const executions = await demo.n8n.listExecutions({ workflowId: EXAMPLE_IDS.autoReply });
			expect(executions.map((e) => e.status)).toEqual(messages.map(() => 'success'));
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'daily report: still the reference\'s figures after the auto-reply wrote today (today is not yesterday)',
		async () => {
			await checkDailyReport();
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
				expect(tools.length).toBeGreaterThanOrEqual(id === EXAMPLE_IDS.mcpServer ? 3 : 1);
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
			expect(agent.connections['Conversation memory']).toEqual({ ai_memory: [[{ node: 'AI Agent', type: 'ai_memory', index: 0 }]] });
			expect(agent.connections['AI Agent']).toEqual({ main: [[{ node: 'Handed over?', type: 'main', index: 0 }]] });
			expect(agent.connections['Handed over?']).toEqual({
				main: [[{ node: 'Notify the team', type: 'main', index: 0 }], [{ node: 'Reply to customer', type: 'main', index: 0 }]],
			});
			// The team's notification runs in the demo without network: a disabled placeholder the user enables or swaps.
			expect(agent.nodes.find((n) => n.name === 'Notify the team')).toMatchObject({ type: 'n8n-nodes-base.httpRequest', disabled: true });
			// Imported without a chat model: the user connects their own.
			expect(agent.nodes.some((n) => /lmChat/.test(n.type))).toBe(false);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'MCP server: a request without the token, or with a wrong one, is refused (403), by either transport',
		async () => {
			const attempts = {
				'POST without a token': { method: 'POST' },
				'POST with a wrong token': { method: 'POST', headers: { authorization: 'Bearer not-the-token' } },
				'POST with the token as a bare header': { method: 'POST', headers: { authorization: demo.mcpToken } },
				'GET (SSE) without a token': { method: 'GET' },
			};
			const statuses = {};
			for (const [what, request] of Object.entries(attempts)) statuses[what] = await mcpRequestStatus(demo.mcpUrl, request);
			console.log(`MCP server example, refused requests: ${JSON.stringify(statuses)}`);
			expect(statuses).toEqual(Object.fromEntries(Object.keys(attempts).map((what) => [what, 403])));
			await expect(connectMcp(demo.mcpUrl)).rejects.toThrow();
			await expect(connectMcp(demo.mcpUrl, { transport: 'sse' })).rejects.toThrow();
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'MCP server: with the demo’s token, the URL serves its tools to the MCP SDK (Streamable HTTP and SSE); a retried send arrives once',
		async () => {
			const sse = await connectMcp(demo.mcpUrl, { transport: 'sse', token: demo.mcpToken });
			try {
				expect((await sse.callTool({ name: 'Workspace_identity', arguments: {} })).isError).toBeFalsy();
			} finally {
				await sse.close();
			}
			const mcp = await connectMcp(demo.mcpUrl, { token: demo.mcpToken });
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
				expect(stored.filter((m) => m.client_request_id === `n8n_${args.clientRequestId}`)).toHaveLength(1);
			} finally {
				await mcp.close();
			}
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'AI support agent: the conversation reaches the model as its memory (a person marked, the burst once), one reply per burst, 2 API requests for a message answered alone; asked for a human, it hands over once (a message and a note, no reply, the team branch; 1 read, 2 sends) and the next message gets no model request',
		async () => {
			// Answers with a number; hands over when the customer asks for a human, then sums up for the team.
			const model = await startFakeChatModel((body, count) => {
				const last = body.messages.at(-1);
				if (last.role === 'tool') return { content: 'The customer asks for a person about order 1234.' };
				const handOver = (body.tools ?? []).find((t) => t.function.name === 'Hand_over_to_a_person');
				if (handOver && /human/i.test(textOf(last))) return { tool_calls: [toolCall(`call_${count}`, handOver.function.name, { reason: 'The customer asks for a person' })] };
				return { content: `Answer ${count}` };
			});
			const { api } = demo.n8n;
			let workflowId;
			// The auto-reply answers every customer message too, and its reply would end a burst.
			await demo.n8n.unpublishWorkflow(EXAMPLE_IDS.autoReply);
			try {
				const credential = await api.publicApi('POST', '/credentials', {
					name: 'Fake chat model',
					type: 'openAiApi',
					data: { apiKey: 'sk-fake-model-for-tests', url: model.url, header: false },
				});
				const source = example(EXAMPLE_IDS.aiSupportAgent);
				// Step aside for 6 s instead of 15 minutes, so the test can wait it out.
				const nodes = source.nodes.map((n) =>
					n.name === 'Customer wrote in'
						? { ...n, webhookId: crypto.randomUUID(), parameters: { ...n.parameters, options: { ...n.parameters.options, stepAsideMinutes: STEP_ASIDE_MINUTES } } }
						: n,
				);
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

				const channel = (await client.listAll('/channels')).find((c) => c.is_active);
				const conversation = await client.control('POST', '/conversations', { channel_id: channel.id });
				const person = await client.control('POST', '/users', { name: 'Priya Example', role: 'agent' });
				const executionsDone = async (count) =>
					await waitFor(async () => {
						const executions = await demo.n8n.listExecutions({ workflowId });
						return executions.length === count && executions.every((e) => e.status !== 'running') ? executions : undefined;
					}, { what: `${count} finished executions`, timeoutMs: 90_000 });

				// A message answered alone: the trigger's read (burst, step aside) serves the memory; then the reply.
				await client.control('DELETE', '/stats');
				const hello = await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'Hello' });
				await executionsDone(1);
				const aloneStats = await client.control('GET', '/stats');

				// A person writes; once the step-aside period is over, a burst of two messages.
				await client.api('POST', '/messages/text', {
					conversation_id: conversation.id,
					client_request_id: `inbox-${conversation.id}`,
					text: 'Priya here: your order is packed.',
					from_user_id: person.id,
				});
				await sleep(STEP_ASIDE_MINUTES * 60_000 + 1000);
				await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'Where is my order?' });
				const last = await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'It is order 1234' });
				// The burst's first message starts no execution: its delivery is answered as part of the burst.
				await executionsDone(2);
				await sleep(QUIET_PERIOD_MS);

				const all = await client.listAll('/messages', { conversation_id: conversation.id });
				const replies = all.filter((m) => /^Answer \d+$/.test(m.content)).reverse();
				expect(replies.map((m) => m.client_request_id)).toEqual([`n8n_ai-reply-${hello.id}`, `n8n_ai-reply-${last.id}`]);
				expect(await client.control('GET', `/messages/${replies[1].id}`)).toMatchObject({ reply_to_message_id: last.id });
				// The agent ran twice in all: for Hello, and once for the burst.
				expect(model.requests).toHaveLength(2);
				expect(model.requests[0].tools.map((t) => t.function.name).sort()).toEqual(['Find_contact', 'Hand_over_to_a_person']);

				const turns = (request) => request.messages.slice(1).map((m) => ({ role: m.role, text: textOf(m) }));
				expect(turns(model.requests[0])).toEqual([{ role: 'user', text: 'Hello' }]);
				expect(turns(model.requests[1])).toEqual([
					{ role: 'user', text: 'Hello' },
					{ role: 'assistant', text: replies[0].content },
					{ role: 'assistant', text: '[Person of the workspace]: Priya here: your order is packed.' },
					{ role: 'user', text: 'Where is my order?\nIt is order 1234' },
				]);
				// Alone, a customer message costs one read of the conversation and the reply.
				const alone = { reads: aloneStats.by_route['GET /messages'] ?? 0, sends: aloneStats.by_route['POST /messages/text'] ?? 0, byRoute: aloneStats.by_route };
				console.log(
					JSON.stringify({
						suite: 'examples ai-support-agent',
						modelRequests: model.requests.length,
						historyTurns: model.requests.map((r) => r.messages.length - 2),
						apiRequestsForAMessageAnsweredAlone: alone,
					}),
				);
				expect({ reads: alone.reads, sends: alone.sends }).toEqual({ reads: 1, sends: 1 });

				// An earlier answer lands between two customer messages of one quiet period: two bursts in one
				// execution (one item each), each answered once, keyed and threaded on its own newest message.
				await sleep(QUIET_PERIOD_MS);
				const beforeLate = await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'Can I pay by card?' });
				await client.api('POST', '/messages/text', { conversation_id: conversation.id, client_request_id: `n8n_late-${conversation.id}`, text: 'A late answer' });
				const afterLate = await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'Or in two parts?' });
				// Held into the newer message's burst, the earlier message starts no execution; on a loaded machine its hold can
				// end first (its own execution then continues it): either way two replies.
				const twoBursts = await waitFor(async () => {
					const answers = (await client.listAll('/messages', { conversation_id: conversation.id })).filter((m) => /^Answer \d+$/.test(m.content)).reverse();
					return answers.length >= replies.length + 2 ? answers.slice(replies.length) : undefined;
				}, { what: 'the answers to the two bursts', timeoutMs: 90_000 });
				await sleep(QUIET_PERIOD_MS);
				const executionsSoFar = (await executionsDone((await demo.n8n.listExecutions({ workflowId })).length)).length;
				// Their order is not checked: the node sends an execution's items in parallel (actions/router.ts), so two
				// answers of one execution reach the API in either order (CI saw both).
				const threaded = await Promise.all(twoBursts.map(async (m) => [m.client_request_id, (await client.control('GET', `/messages/${m.id}`)).reply_to_message_id]));
				const byKey = (a, b) => a[0].localeCompare(b[0]);
				expect(threaded.sort(byKey)).toEqual(
					[
						[`n8n_ai-reply-${beforeLate.id}`, beforeLate.id],
						[`n8n_ai-reply-${afterLate.id}`, afterLate.id],
					].sort(byKey),
				);
				replies.push(...twoBursts);

				// The customer asks for a human: the agent hands over (the message and the note, no reply), the team branch runs;
				// the next customer message gets no model request and no reply.
				await sleep(QUIET_PERIOD_MS);
				await client.control('DELETE', '/stats');
				const requestsBefore = model.requests.length;
				await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'I want to talk to a human' });
				const handOverRun = (await executionsDone(executionsSoFar + 1)).reduce((newest, e) => (Number(e.id) > Number(newest.id) ? e : newest));
				const handOverStats = await client.control('GET', '/stats');
				await client.control('POST', '/inbound', { conversation_id: conversation.id, text: 'Hello?' });
				await executionsDone(executionsSoFar + 2);
				await sleep(QUIET_PERIOD_MS);
				const after = await client.listAll('/messages', { conversation_id: conversation.id });
				const handOverMessages = after.filter((m) => String(m.client_request_id).startsWith('n8nhandover1_m_'));
				const handOverNotes = after.filter((m) => String(m.client_request_id).startsWith('n8nhandover1_n_'));
				const { data: runData } = await demo.n8n.api.getExecution(handOverRun.id);
				const handOver = {
					modelRequests: model.requests.length - requestsBefore,
					handOverMessages: handOverMessages.length,
					handOverNotes: handOverNotes.length,
					repliesAfter: after.filter((m) => /^Answer \d+$/.test(m.content)).length - replies.length,
					teamNotified: Boolean(runData.resultData.runData['Notify the team']),
					apiRequests: { reads: handOverStats.by_route['GET /messages'] ?? 0, sends: handOverStats.by_route['POST /messages/text'] ?? 0 },
				};
				console.log(JSON.stringify({ suite: 'examples ai-support-agent hand-over', ...handOver }));
				expect(handOver).toEqual({ modelRequests: 2, handOverMessages: 1, handOverNotes: 1, repliesAfter: 0, teamNotified: true, apiRequests: { reads: 1, sends: 2 } });
				expect(runData.resultData.runData['Reply to customer']).toBeUndefined();
			} finally {
				if (workflowId) await demo.n8n.unpublishWorkflow(workflowId).catch(() => {});
				await demo.n8n.publishWorkflow(EXAMPLE_IDS.autoReply);
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
		'order number: the question, then the customer’s reply continues the run, which confirms with it; the reply runs nothing downstream of its own',
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
				// One customer message, one execution: the reply resumed the run that asked and started none of its own.
				const executions = await n8n.listExecutions({ workflowId });
				expect(executions.map((e) => e.status)).toEqual(['success']);
			} finally {
				await n8n.unpublishWorkflow(workflowId).catch(() => {});
				await n8n.publishWorkflow(EXAMPLE_IDS.autoReply);
			}
		},
		TEST_TIMEOUT_MS,
	);
});
