'use strict';
// Conversation > Hand Over to a Person as an AI Agent tool in a real n8n,
// shared by the regular-mode and the queue-mode files: a workflow (the
// trigger with Step Aside → AI Agent with the Omnichannel Chat Memory, a
// stand-in OpenAI-compatible model and the hand-over tool → Handed over? →
// Notify the team, or Reply), the model's script, and the scenarios, each
// summarised from the conversation (markers, bot replies), the model's
// requests and the executions' run data (the trigger's hints and items).
const http = require('http');

const { sleep, waitFor, workflows: w } = require('../../../harness');
const { NODE_TYPES } = require('../../../harness/node-types');
const { toolCall } = require('./mcp');
const { textOf, receivedTurns } = require('./chat-memory');

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
/** The trigger's hint while no person has answered (shared/handOverToPerson/state.ts). */
const WAITING = /^Message (msg_\w+): the conversation was handed over to a person at (\S+) and no person of the workspace has written since, so the workflow stays quiet until a person has answered and [\d.]+ minutes have passed after their last message, or until (\S+) if no person answers/;

const eventMessage = `$('${TRIGGER}').first().json`;

function handOverWorkflow({ id, channel, credential, limitHours, modelCredentialId = 'fakeChatModel01' }) {
	const options = { directions: ['customer'], channelTypes: [channel], outputDataOnly: true, stepAsideMinutes: STEP_ASIDE_MINUTES };
	if (limitHours !== undefined) options.handOverLimitHours = limitHours;
	const omnichannelCredential = { omnichannelApi: { id: credential.id, name: credential.name } };
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
				credentials: { openAiApi: { id: modelCredentialId, name: 'Fake chat model' } },
			}),
			w.node(MEMORY, NODE_TYPES.memory, {}, { credentials: omnichannelCredential }),
			w.node(
				HAND_OVER,
				`${NODE_TYPES.action}Tool`,
				{
					resource: 'conversation',
					operation: 'handOver',
					descriptionType: 'manual',
					toolDescription: 'Hand the conversation over to a person of the support team when the customer asks for a human.',
					conversationId: w.byId(`={{ ${eventMessage}.conversation_id }}`),
					reason: "={{ $fromAI('reason', `Why a person must take over, in one sentence`, 'string') }}",
				},
				{ credentials: omnichannelCredential },
			),
			w.node(
				HANDED_OVER,
				'n8n-nodes-base.if',
				{
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
						conditions: [{ id: 'handed-over', leftValue: `={{ $('${HAND_OVER}').isExecuted }}`, rightValue: '', operator: { type: 'boolean', operation: 'true', singleValue: true } }],
						combinator: 'and',
					},
					looseTypeValidation: true,
					options: {},
				},
				{ typeVersion: 2.2 },
			),
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

/**
 * modelTurn behind an OpenAI-compatible server on 127.0.0.1, with two
 * switches: `toolCallDelayMs` holds back the answers that call the hand-over
 * tool, so two executions handing over at once have both read the
 * conversation before either sends; while `failing`, the request after a
 * tool's result is refused (400, which n8n's OpenAI client does not retry).
 */
async function startScriptedModel({ toolCallDelayMs = 0, failing = false } = {}) {
	const model = { requests: [], refused: 0, failing, url: '', close: async () => {} };
	const server = http.createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk) => (raw += chunk));
		req.on('end', () => {
			const body = JSON.parse(raw);
			model.requests.push(body);
			if (model.failing && body.messages.at(-1).role === 'tool') {
				model.refused++;
				res.writeHead(400, { 'content-type': 'application/json' });
				return res.end(JSON.stringify({ error: { message: 'refused by the test', type: 'invalid_request_error' } }));
			}
			const message = { role: 'assistant', content: null, ...modelTurn(body, model.requests.length) };
			const answer = () => {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(
					JSON.stringify({
						id: `chatcmpl-${model.requests.length}`,
						object: 'chat.completion',
						created: Math.floor(Date.now() / 1000),
						model: body.model,
						choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
						usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
					}),
				);
			};
			if (message.tool_calls && toolCallDelayMs > 0) setTimeout(answer, toolCallDelayMs);
			else answer();
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	model.url = `http://127.0.0.1:${server.address().port}/v1`;
	model.close = () => new Promise((resolve) => server.close(resolve));
	return model;
}

const time = (message) => Date.parse(message.created_at);
const markers = (all, part) => all.filter((m) => String(m.client_request_id).startsWith(`n8nhandover1_${part}_`));
const botReplies = (all) => all.filter((m) => String(m.client_request_id).startsWith('n8n_ai-reply-'));

/** Talking in the sandbox and reading n8n's executions of one workflow. */
function talk({ n8n, client, workflowId }) {
	const messages = async (conversationId) => (await client.listAll('/messages', { conversation_id: conversationId })).reverse();
	const executionIds = async () => new Set((await n8n.listExecutions({ workflowId })).map((e) => String(e.id)));
	/** Waits until `count` executions since `before` have finished; returns them with their run data. */
	async function finished(before, count) {
		const fresh = async () => {
			const list = (await n8n.listExecutions({ workflowId })).filter((e) => !before.has(String(e.id)));
			return list.length >= count && list.every((e) => e.finished || e.stoppedAt) ? list : undefined;
		};
		await waitFor(fresh, { what: `${count} finished executions of ${workflowId}`, timeoutMs: 120_000, intervalMs: 500 });
		await sleep(1500);
		const list = await waitFor(fresh, { what: `every execution of ${workflowId} to finish`, timeoutMs: 60_000, intervalMs: 500 });
		return await Promise.all(list.map(async (execution) => ({ ...execution, ...(await n8n.api.getExecution(execution.id)) })));
	}
	return {
		messages,
		executionIds,
		finished,
		async newConversation(channelType) {
			const channel = (await client.listAll('/channels')).find((c) => c.type === channelType && c.is_active);
			return (await client.control('POST', '/conversations', { channel_id: channel.id })).id;
		},
		inbound: async (conversationId, text) => await client.control('POST', '/inbound', { conversation_id: conversationId, text }),
		newPerson: async (name) => (await client.control('POST', '/users', { name })).id,
		personWrites: async (conversationId, personId, text) =>
			(await client.api('POST', '/messages/text', { conversation_id: conversationId, text, from_user_id: personId, client_request_id: `person-${Date.now()}-${Math.random().toString(36).slice(2)}` })).message,
	};
}

const hintsOf = (executions) => executions.flatMap((e) => (e.data.resultData.runData[TRIGGER]?.[0]?.hints ?? []).map((hint) => hint.message));
const triggerItems = (executions) => executions.flatMap((e) => (e.data.resultData.runData[TRIGGER]?.[0]?.data?.main?.[0] ?? []).map((item) => item.json));

/**
 * A customer talks to the bot; two messages ask for a person at the same
 * moment (two executions, both may hand over); three more customer messages;
 * a person writes; after the step-aside period, one more customer message.
 */
async function handsOverUntilAPersonAnswers({ n8n, client, model, workflowId, channel }) {
	const t = talk({ n8n, client, workflowId });
	const conversationId = await t.newConversation(channel);
	const person = await t.newPerson('Agent Priya');
	let before = await t.executionIds();

	await t.inbound(conversationId, 'Hi, my lamp arrived broken');
	await t.finished(before, 1);
	const requestsBeforeAsking = model.requests.length;
	const asked = await Promise.all([t.inbound(conversationId, 'I want to talk to a human'), t.inbound(conversationId, 'A person please')]);
	const handOverRuns = await t.finished(before, 3);
	const toolResultsAtOnce = model.requests.slice(requestsBeforeAsking).filter((body) => body.messages.at(-1).role === 'tool').length;
	const afterHandOver = await t.messages(conversationId);
	const requestsAfterHandOver = model.requests.length;

	before = await t.executionIds();
	const held = [];
	for (const text of ['hello?', 'anyone there?', 'please answer']) held.push(await t.inbound(conversationId, text));
	const heldRuns = await t.finished(before, 3);
	const whileHandedOver = await t.messages(conversationId);
	const requestsWhileHandedOver = model.requests.length - requestsAfterHandOver;

	const taken = await t.personWrites(conversationId, person, 'Priya here, sorry about the lamp');
	await sleep(Math.max(0, time(taken) + STEP_ASIDE_MS + 300 - Date.now()));
	before = await t.executionIds();
	const requestsBeforeBack = model.requests.length;
	const back = await t.inbound(conversationId, 'Thanks, what happens now?');
	const backRuns = await t.finished(before, 1);
	const all = await t.messages(conversationId);

	const counts = {
		modelRequests: model.requests.length,
		modelRequestsWhileHandedOver: requestsWhileHandedOver,
		handOverMessages: markers(all, 'm').length,
		handOverNotes: markers(all, 'n').length,
		botRepliesWhileHandedOver: botReplies(whileHandedOver).length - botReplies(afterHandOver).length,
		messagesSent: all.filter((m) => !m.from_customer).length,
		handOverExecutions: handOverRuns.length,
		toolCallsAtOnce: toolResultsAtOnce,
		waitingHints: hintsOf(heldRuns).filter((hint) => WAITING.test(hint)).length,
		botAnsweredAgain: botReplies(all).some((m) => time(m) > time(back)),
	};
	return { counts, all, asked, held, back, handOverRuns, heldRuns, backRuns, backRequest: model.requests[requestsBeforeBack] };
}

function expectHandedOverUntilAPersonAnswers(result) {
	const { counts, all, asked, held, back, handOverRuns, heldRuns, backRequest } = result;
	expect(handOverRuns.filter((e) => e.status !== 'success')).toEqual([]);
	expect(markers(all, 'm')).toHaveLength(1);
	expect(markers(all, 'n')).toHaveLength(1);
	expect(markers(all, 'm')[0].content).toBe(HAND_OVER_MESSAGE);
	expect(markers(all, 'n')[0]).toMatchObject({ from_user_id: null, content: expect.stringContaining('The customer asks for a person') });
	expect(counts.modelRequestsWhileHandedOver).toBe(0);
	expect(counts.botRepliesWhileHandedOver).toBe(0);
	expect(hintsOf(heldRuns).sort()).toEqual(held.map(() => expect.stringMatching(WAITING)));
	expect(heldRuns.filter((e) => e.data.resultData.runData[AGENT])).toEqual([]);
	expect(counts.botAnsweredAgain).toBe(true);

	// The whole conversation, in order, in the memory of the answer after the period.
	const turns = receivedTurns(backRequest);
	expect(turns.prompt).toBe(back.content);
	const expected = all
		.filter((m) => time(m) < time(back))
		.map((m) => {
			if (m.from_customer) return { role: 'user', text: m.content };
			if (String(m.client_request_id).startsWith('n8nhandover1_n_')) return { role: 'assistant', text: `${NOTE_MARK}${m.content}` };
			if (String(m.client_request_id).startsWith('n8n')) return { role: 'assistant', text: m.content };
			return { role: 'assistant', text: `${PERSON_MARK}${m.content}` };
		});
	expect(turns.history).toEqual(expected);
	const history = turns.history.map((t) => t.text).join('\n');
	for (const text of ['Hi, my lamp arrived broken', ...asked.map((m) => m.content), HAND_OVER_MESSAGE, ...held.map((m) => m.content), 'Priya here, sorry about the lamp']) {
		expect(history).toContain(text);
	}
	expect(turns.history.some((t) => t.text.startsWith(NOTE_MARK))).toBe(true);
}

/** The customer asks for a person; writes once during the hand-over; writes again after the limit, with no person. */
async function handOverExpires({ n8n, client, model, workflowId, channel }) {
	const t = talk({ n8n, client, workflowId });
	const conversationId = await t.newConversation(channel);
	let before = await t.executionIds();
	await t.inbound(conversationId, 'I need a person');
	await t.finished(before, 1);
	const handedOverAt = time(markers(await t.messages(conversationId), 'm')[0]);
	before = await t.executionIds();
	await t.inbound(conversationId, 'hello?');
	const heldRuns = await t.finished(before, 1);
	await sleep(Math.max(0, handedOverAt + SHORT_LIMIT_MS + 500 - Date.now()));
	before = await t.executionIds();
	const requestsBefore = model.requests.length;
	const later = await t.inbound(conversationId, 'Is anybody there?');
	const laterRuns = await t.finished(before, 1);
	const all = await t.messages(conversationId);
	const answer = botReplies(all).find((m) => time(m) > time(later));
	const [item] = triggerItems(laterRuns);
	const counts = {
		modelRequestsAfterLimit: model.requests.length - requestsBefore,
		handOverMessages: markers(all, 'm').length,
		handOverNotes: markers(all, 'n').length,
		botRepliesWhileHandedOver: botReplies(all).filter((m) => time(m) > handedOverAt && time(m) < time(later)).length,
		messagesSent: all.filter((m) => !m.from_customer).length,
		expiredItem: item?.handOver ?? null,
		answer: answer?.content ?? null,
	};
	return { counts, all, heldRuns, item, answer };
}

function expectExpired({ counts, all, heldRuns, item, answer }) {
	expect(hintsOf(heldRuns)).toEqual([expect.stringMatching(WAITING)]);
	expect(markers(all, 'm')).toHaveLength(1);
	expect(markers(all, 'n')).toHaveLength(1);
	expect(counts.botRepliesWhileHandedOver).toBe(0);
	expect(item.handOver).toMatchObject({ expired: true, since: markers(all, 'm')[0].created_at, limitHours: SHORT_LIMIT_HOURS });
	expect(answer.content).toMatch(/no colleague was free in time/);
}

/**
 * The hand-over expires with no person, and the customer's first message
 * after the limit asks for a person again: the agent hands over anew (the
 * trigger's verdict, kept in the execution, gives it a new episode), and the
 * bot is quiet again.
 */
async function handsOverAgainAfterExpiry({ n8n, client, model, workflowId, channel }) {
	const t = talk({ n8n, client, workflowId });
	const conversationId = await t.newConversation(channel);
	let before = await t.executionIds();
	await t.inbound(conversationId, 'I need a person');
	await t.finished(before, 1);
	const handedOverAt = time(markers(await t.messages(conversationId), 'm')[0]);
	await sleep(Math.max(0, handedOverAt + SHORT_LIMIT_MS + 500 - Date.now()));
	before = await t.executionIds();
	await t.inbound(conversationId, 'Still no human here?');
	const againRuns = await t.finished(before, 1);
	before = await t.executionIds();
	const requestsBefore = model.requests.length;
	await t.inbound(conversationId, 'hello?');
	const heldRuns = await t.finished(before, 1);
	const all = await t.messages(conversationId);
	const counts = {
		handOverMessages: markers(all, 'm').length,
		handOverNotes: markers(all, 'n').length,
		episodes: new Set(markers(all, 'm').map((m) => m.client_request_id.split('_')[2])).size,
		modelRequestsAfterSecondHandOver: model.requests.length - requestsBefore,
		botReplies: botReplies(all).length,
	};
	return { counts, againItem: triggerItems(againRuns)[0], heldHints: hintsOf(heldRuns) };
}

module.exports = {
	SHORT_LIMIT_HOURS,
	TRIGGER,
	AGENT,
	handOverWorkflow,
	modelTurn,
	startScriptedModel,
	markers,
	botReplies,
	talk,
	handsOverUntilAPersonAnswers,
	expectHandedOverUntilAPersonAnswers,
	handOverExpires,
	expectExpired,
	handsOverAgainAfterExpiry,
};
