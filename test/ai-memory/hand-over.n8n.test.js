'use strict';
// Conversation > Hand Over to a Person as an AI Agent tool, in published
// workflows of a running n8n (regular mode), with a stand-in
// OpenAI-compatible model on 127.0.0.1 and the Omnichannel Chat Memory. The
// customer asks for a person: the model calls the tool, the customer gets the
// hand-over message once and the team the note once (also when two customer
// messages hand over at once); the next 3 customer messages get no model
// request and no bot reply (the trigger's hints say why); a person writes;
// after the step-aside period the bot answers again with the whole
// conversation in its memory, in order. With a short Hand-Over Limit and no
// person, the bot answers again and says the hand-over expired. Prints the
// counts as one JSON line per scenario.
const { sleep, waitFor, workflows: w } = require('../../harness');
const { NODE_TYPES } = require('../../harness/node-types');
const { openContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { startFakeChatModel, toolCall } = require('../support/n8n/mcp');
const { modelCredential, textOf, receivedTurns } = require('../support/n8n/chat-memory');

const TEST_TIMEOUT_MS = 5 * 60 * 1000;
const TRIGGER = 'Customer wrote in';
const AGENT = 'AI Agent';
const MODEL = 'Chat model';
const MEMORY = 'Conversation memory';
const HAND_OVER = 'Hand over to a person';
const HANDED_OVER = 'Handed over?';
const NOTIFY = 'Notify the team';
const REPLY = 'Reply';
const SYSTEM_PROMPT = 'You answer customers of our shop.';
const HAND_OVER_MESSAGE = 'A colleague will answer you here shortly.';
const NOTE_MARK = '[System note for the team: handed over to a person]: ';
const PERSON_MARK = '[Person of the workspace]: ';
const EXPIRED_PROMPT = '(No colleague answered in time.)';
const ASK_FOR_PERSON = /human|person/i;
/** Six seconds of Step Aside: short enough to wait out. */
const STEP_ASIDE_MINUTES = 0.1;
const STEP_ASIDE_MS = STEP_ASIDE_MINUTES * 60_000;
/** Nine seconds. */
const SHORT_LIMIT_HOURS = 0.0025;
const SHORT_LIMIT_MS = SHORT_LIMIT_HOURS * 3_600_000;
const WAITING = /^Message (msg_\w+): the conversation was handed over to a person at (\S+) and no person of the workspace has written since, so the workflow stays quiet until a person has answered and [\d.]+ minutes have passed after their last message, or until (\S+) if no person answers/;

const HANDS_OVER = { id: 'e2eHandOver00001', channel: 'telegram' };
const EXPIRES = { id: 'e2eHandOver00002', channel: 'whatsapp', limitHours: SHORT_LIMIT_HOURS };

const eventMessage = `$('${TRIGGER}').first().json`;

function handOverWorkflow({ id, channel, credential, limitHours }) {
	const options = { directions: ['customer'], channelTypes: [channel], outputDataOnly: true, stepAsideMinutes: STEP_ASIDE_MINUTES };
	if (limitHours !== undefined) options.handOverLimitHours = limitHours;
	const toolParameters = {
		resource: 'conversation',
		operation: 'handOver',
		descriptionType: 'manual',
		toolDescription: 'Hand the conversation over to a person of the support team when the customer asks for a human.',
		conversationId: w.byId(`={{ ${eventMessage}.conversation_id }}`),
		reason: "={{ $fromAI('reason', `Why a person must take over, in one sentence`, 'string') }}",
	};
	const workflow = w.workflow({
		id,
		name: `Hand over ${id}`,
		nodes: [
			w.omnichannelTrigger(TRIGGER, credential, { events: ['message.created'], options }),
			w.node(
				AGENT,
				'@n8n/n8n-nodes-langchain.agent',
				{ promptType: 'define', text: `={{ ($json.handOver && $json.handOver.expired ? '${EXPIRED_PROMPT} ' : '') + $json.content }}`, options: { systemMessage: SYSTEM_PROMPT } },
				{ typeVersion: 3.1 },
			),
			w.node(MODEL, '@n8n/n8n-nodes-langchain.lmChatOpenAi', { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} }, {
				typeVersion: 1.2,
				credentials: { openAiApi: { id: 'fakeChatModel01', name: 'Fake chat model' } },
			}),
			w.node(MEMORY, NODE_TYPES.memory, {}, { credentials: { omnichannelApi: { id: credential.id, name: credential.name } } }),
			w.node(HAND_OVER, `${NODE_TYPES.action}Tool`, toolParameters, { credentials: { omnichannelApi: { id: credential.id, name: credential.name } } }),
			w.node(HANDED_OVER, 'n8n-nodes-base.if', {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
					conditions: [{ id: 'handed-over', leftValue: `={{ $('${HAND_OVER}').isExecuted }}`, rightValue: '', operator: { type: 'boolean', operation: 'true', singleValue: true } }],
					combinator: 'and',
				},
				looseTypeValidation: true,
				options: {},
			}, { typeVersion: 2.2 }),
			w.node(NOTIFY, 'n8n-nodes-base.noOp'),
			w.omnichannelNode(REPLY, credential, {
				resource: 'message',
				operation: 'sendText',
				conversationId: w.byId(`={{ ${eventMessage}.conversation_id }}`),
				text: '={{ $json.output }}',
				options: { clientRequestId: `=n8n_ai-reply-{{ ${eventMessage}.id }}` },
			}),
		],
		connections: [
			[TRIGGER, AGENT],
			[AGENT, HANDED_OVER],
		],
	});
	workflow.connections[HANDED_OVER] = { main: [[{ node: NOTIFY, type: 'main', index: 0 }], [{ node: REPLY, type: 'main', index: 0 }]] };
	workflow.connections[MODEL] = { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] };
	workflow.connections[MEMORY] = { ai_memory: [[{ node: AGENT, type: 'ai_memory', index: 0 }]] };
	workflow.connections[HAND_OVER] = { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] };
	return workflow;
}

/** The model: asks for a person when the customer does (once per run), otherwise answers with a number. */
function modelTurn(body, count) {
	const last = body.messages.at(-1);
	const prompt = textOf(body.messages.filter((m) => m.role === 'user').at(-1) ?? {});
	if (last.role === 'tool') return { content: 'Handed over.' };
	const tool = (body.tools ?? []).find((t) => /hand/i.test(t.function.name));
	if (ASK_FOR_PERSON.test(prompt) && tool) return { tool_calls: [toolCall(`call_${count}`, tool.function.name, { reason: 'The customer asks for a person' })] };
	if (prompt.startsWith(EXPIRED_PROMPT)) return { content: `Sorry, no colleague was free in time: I am back to help. Answer ${count}` };
	return { content: `Answer ${count}` };
}

const time = (message) => Date.parse(message.created_at);

describe('Hand Over to a Person, as an AI Agent tool, honoured by the trigger (regular mode)', () => {
	let ctx;
	let model;

	beforeAll(async () => {
		model = await startFakeChatModel(modelTurn);
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		await n8n.importCredentials([credential, modelCredential(model.url)]);
		await n8n.importWorkflows([handOverWorkflow({ ...HANDS_OVER, credential }), handOverWorkflow({ ...EXPIRES, credential })]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		const hooksBefore = (await client.listAll('/webhooks')).length;
		for (const { id } of [HANDS_OVER, EXPIRES]) await n8n.publishWorkflow(id);
		await waitFor(async () => (await client.listAll('/webhooks')).length >= hooksBefore + 2, { what: 'the triggers to register their webhooks', timeoutMs: 60_000 });
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await ctx?.close();
		await model?.close();
	});

	const messages = async (conversationId) => (await ctx.client.listAll('/messages', { conversation_id: conversationId })).reverse();
	const markers = (all, part) => all.filter((m) => String(m.client_request_id).startsWith(`n8nhandover1_${part}_`));
	const botReplies = (all) => all.filter((m) => String(m.client_request_id).startsWith('n8n_ai-reply-'));
	async function newConversation(channelType) {
		const channel = (await ctx.client.listAll('/channels')).find((c) => c.type === channelType && c.is_active);
		return (await ctx.client.control('POST', '/conversations', { channel_id: channel.id })).id;
	}
	const inbound = async (conversationId, text) => await ctx.client.control('POST', '/inbound', { conversation_id: conversationId, text });

	/** Waits until `count` executions of the workflow since `before` have finished; returns them with their run data. */
	async function finished(workflowId, before, count) {
		const fresh = async () => {
			const list = (await ctx.n8n.listExecutions({ workflowId })).filter((e) => !before.has(String(e.id)));
			return list.length >= count && list.every((e) => e.finished || e.stoppedAt) ? list : undefined;
		};
		await waitFor(fresh, { what: `${count} finished executions of ${workflowId}`, timeoutMs: 120_000, intervalMs: 500 });
		await sleep(1500);
		const list = await waitFor(fresh, { what: `every execution of ${workflowId} to finish`, timeoutMs: 60_000, intervalMs: 500 });
		return await Promise.all(list.map(async (execution) => ({ ...execution, ...(await ctx.n8n.api.getExecution(execution.id)) })));
	}
	const executionIds = async (workflowId) => new Set((await ctx.n8n.listExecutions({ workflowId })).map((e) => String(e.id)));
	const hintsOf = (executions) => executions.flatMap((e) => (e.data.resultData.runData[TRIGGER]?.[0]?.hints ?? []).map((hint) => hint.message));
	const triggerItems = (executions) => executions.flatMap((e) => (e.data.resultData.runData[TRIGGER]?.[0]?.data?.main?.[0] ?? []).map((item) => item.json));

	test(
		'the agent hands over: one message, one note (two hand-overs at once included); 3 customer messages get no model request and no reply; a person writes; after the period the bot answers with the whole conversation in order',
		async () => {
			const { client } = ctx;
			const conversationId = await newConversation(HANDS_OVER.channel);
			const person = (await client.control('POST', '/users', { name: 'Agent Priya' })).id;
			let before = await executionIds(HANDS_OVER.id);

			await inbound(conversationId, 'Hi, my lamp arrived broken');
			await finished(HANDS_OVER.id, before, 1);
			// Two messages asking for a person at the same moment: two executions, each may hand over.
			const asked = await Promise.all([inbound(conversationId, 'I want to talk to a human'), inbound(conversationId, 'A person please')]);
			const handOverRuns = await finished(HANDS_OVER.id, before, 3);
			const afterHandOver = await messages(conversationId);
			const requestsAfterHandOver = model.requests.length;

			before = await executionIds(HANDS_OVER.id);
			const held = [];
			for (const text of ['hello?', 'anyone there?', 'please answer']) held.push(await inbound(conversationId, text));
			const heldRuns = await finished(HANDS_OVER.id, before, 3);
			const whileHandedOver = await messages(conversationId);
			const requestsWhileHandedOver = model.requests.length - requestsAfterHandOver;

			const taken = (await client.api('POST', '/messages/text', { conversation_id: conversationId, text: 'Priya here, sorry about the lamp', from_user_id: person, client_request_id: `person-${Date.now()}` })).message;
			await sleep(Math.max(0, time(taken) + STEP_ASIDE_MS + 300 - Date.now()));
			before = await executionIds(HANDS_OVER.id);
			const requestsBeforeBack = model.requests.length;
			const back = await inbound(conversationId, 'Thanks, what happens now?');
			await finished(HANDS_OVER.id, before, 1);
			const all = await messages(conversationId);
			const backRequest = model.requests[requestsBeforeBack];

			const counts = {
				suite: 'hand-over regular mode',
				modelRequests: model.requests.length,
				modelRequestsWhileHandedOver: requestsWhileHandedOver,
				handOverMessages: markers(all, 'm').length,
				handOverNotes: markers(all, 'n').length,
				botRepliesWhileHandedOver: botReplies(whileHandedOver).length - botReplies(afterHandOver).length,
				messagesSent: all.filter((m) => !m.from_customer).length,
				handOverExecutions: handOverRuns.length,
				waitingHints: hintsOf(heldRuns).filter((hint) => WAITING.test(hint)).length,
				botAnsweredAgain: botReplies(all).some((m) => time(m) > time(back)),
			};
			console.log(JSON.stringify(counts));

			expect(handOverRuns.filter((e) => e.status !== 'success')).toEqual([]);
			expect(markers(all, 'm')).toHaveLength(1);
			expect(markers(all, 'n')).toHaveLength(1);
			expect(markers(all, 'm')[0].content).toBe(HAND_OVER_MESSAGE);
			expect(markers(all, 'n')[0]).toMatchObject({ from_user_id: null, content: expect.stringContaining('The customer asks for a person') });
			expect(requestsWhileHandedOver).toBe(0);
			expect(counts.botRepliesWhileHandedOver).toBe(0);
			expect(hintsOf(heldRuns)).toEqual(held.map(() => expect.stringMatching(WAITING)));
			expect(heldRuns.filter((e) => e.data.resultData.runData[AGENT])).toEqual([]);
			expect(counts.botAnsweredAgain).toBe(true);

			// The whole conversation, in order, in the memory of the answer after the period.
			const turns = receivedTurns(backRequest);
			expect(turns.prompt).toBe(back.content);
			const earlier = all.filter((m) => time(m) < time(back));
			const expected = earlier.map((m) => {
				if (m.from_customer) return { role: 'user', text: m.content };
				if (String(m.client_request_id).startsWith('n8nhandover1_n_')) return { role: 'assistant', text: `${NOTE_MARK}${m.content}` };
				if (String(m.client_request_id).startsWith('n8n')) return { role: 'assistant', text: m.content };
				return { role: 'assistant', text: `${PERSON_MARK}${m.content}` };
			});
			expect(turns.history).toEqual(expected);
			for (const text of ['Hi, my lamp arrived broken', ...asked.map((m) => m.content), HAND_OVER_MESSAGE, 'hello?', 'please answer', 'Priya here, sorry about the lamp']) {
				expect(turns.history.map((t) => t.text).join('\n')).toContain(text);
			}
			expect(turns.history.some((t) => t.text.startsWith(NOTE_MARK))).toBe(true);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'no person within a short Hand-Over Limit: the bot answers again, and its item and answer say the hand-over expired',
		async () => {
			const conversationId = await newConversation(EXPIRES.channel);
			let before = await executionIds(EXPIRES.id);
			await inbound(conversationId, 'I need a person');
			await finished(EXPIRES.id, before, 1);
			const afterHandOver = await messages(conversationId);
			const handedOverAt = time(markers(afterHandOver, 'm')[0]);
			before = await executionIds(EXPIRES.id);
			await inbound(conversationId, 'hello?');
			const heldRuns = await finished(EXPIRES.id, before, 1);
			await sleep(Math.max(0, handedOverAt + SHORT_LIMIT_MS + 500 - Date.now()));
			before = await executionIds(EXPIRES.id);
			const requestsBefore = model.requests.length;
			const later = await inbound(conversationId, 'Is anybody there?');
			const laterRuns = await finished(EXPIRES.id, before, 1);
			const all = await messages(conversationId);
			const answer = botReplies(all).find((m) => time(m) > time(later));
			const [item] = triggerItems(laterRuns);

			const counts = {
				suite: 'hand-over expired regular mode',
				modelRequestsAfterLimit: model.requests.length - requestsBefore,
				handOverMessages: markers(all, 'm').length,
				handOverNotes: markers(all, 'n').length,
				botRepliesWhileHandedOver: botReplies(all).filter((m) => time(m) > handedOverAt && time(m) < time(later)).length,
				messagesSent: all.filter((m) => !m.from_customer).length,
				expiredItem: item?.handOver ?? null,
				answer: answer?.content ?? null,
			};
			console.log(JSON.stringify(counts));

			expect(hintsOf(heldRuns)).toEqual([expect.stringMatching(WAITING)]);
			expect(markers(all, 'm')).toHaveLength(1);
			expect(markers(all, 'n')).toHaveLength(1);
			expect(counts.botRepliesWhileHandedOver).toBe(0);
			expect(item.handOver).toMatchObject({ expired: true, since: markers(all, 'm')[0].created_at, limitHours: SHORT_LIMIT_HOURS });
			expect(answer.content).toMatch(/no colleague was free in time/);
		},
		TEST_TIMEOUT_MS,
	);
});
