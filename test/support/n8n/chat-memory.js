'use strict';
// Omnichannel Chat Memory under n8n's AI Agent, shared by the regular-mode
// and queue-mode files: a workflow (trigger → AI Agent with the memory and a
// stand-in chat model → Send Text of the agent's answer), a conversation
// played turn by turn (customer messages, a person of the workspace, System),
// and what the model received for each turn, checked against the
// conversation as the sandbox holds it.
const { NODE_TYPES } = require('../../../harness/node-types');
const { sleep, waitFor, workflows: w } = require('../../../harness');

const TRIGGER = 'Customer wrote in';
const AGENT = 'AI Agent';
const MODEL = 'Chat model';
const MEMORY = 'Conversation memory';
const REPLY = 'Reply';
const SYSTEM_PROMPT = 'You answer customers of our shop.';
const PERSON_MARK = '[Person of the workspace]: ';
/** The reply's key: this package's prefix, so the memory (and Step Aside) count it as the bot's own send. */
const REPLY_KEY_PREFIX = 'n8n_ai-reply-';

/** The stand-in model's credential (n8n's OpenAI credential with a custom base URL). */
const modelCredential = (url) => ({ id: 'fakeChatModel01', name: 'Fake chat model', type: 'openAiApi', data: { apiKey: 'sk-fake-model-for-tests', url, header: false } });

/** The trigger's event, whole (`data` is the message) or Output Data Only (the message). */
const eventMessage = `($('${TRIGGER}').first().json.data || $('${TRIGGER}').first().json)`;

function memoryWorkflow({ id, credential, triggerOptions = {}, memoryParameters = {} }) {
	const workflow = w.workflow({
		id,
		name: `Chat memory ${id}`,
		nodes: [
			w.omnichannelTrigger(TRIGGER, credential, { events: ['message.created'], options: { directions: ['customer'], ...triggerOptions } }),
			w.node(
				AGENT,
				'@n8n/n8n-nodes-langchain.agent',
				{ promptType: 'define', text: '={{ $json.burst ? $json.burst.text : ($json.data || $json).content }}', options: { systemMessage: SYSTEM_PROMPT } },
				{ typeVersion: 3.1 },
			),
			w.node(MODEL, '@n8n/n8n-nodes-langchain.lmChatOpenAi', { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} }, {
				typeVersion: 1.2,
				credentials: { openAiApi: { id: 'fakeChatModel01', name: 'Fake chat model' } },
			}),
			w.node(MEMORY, NODE_TYPES.memory, memoryParameters, { credentials: { omnichannelApi: { id: credential.id, name: credential.name } } }),
			w.omnichannelNode(REPLY, credential, {
				resource: 'message',
				operation: 'sendText',
				conversationId: w.byId(`={{ ${eventMessage}.conversation_id }}`),
				text: '={{ $json.output }}',
				options: { clientRequestId: `=${REPLY_KEY_PREFIX}{{ ${eventMessage}.id }}`, replyToMessageId: `={{ ${eventMessage}.id }}` },
			}),
		],
		connections: [
			[TRIGGER, AGENT],
			[AGENT, REPLY],
		],
	});
	workflow.connections[MODEL] = { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] };
	workflow.connections[MEMORY] = { ai_memory: [[{ node: AGENT, type: 'ai_memory', index: 0 }]] };
	return workflow;
}

/** The stand-in model's answer: numbered, so each reply in the conversation names its turn. */
const answerOf = (body, count) => ({ content: `Answer ${count}` });

/** A message's text as the model received it (a string, or text parts). */
const textOf = (message) =>
	Array.isArray(message.content) ? message.content.map((part) => part.text ?? '').join('') : String(message.content ?? '');

/** A new conversation on an active channel, and a person of the workspace who can write in it. */
async function newConversation(client) {
	const channel = (await client.listAll('/channels')).find((c) => c.is_active);
	const conversation = await client.control('POST', '/conversations', { channel_id: channel.id });
	const person = await client.control('POST', '/users', { name: `Priya ${conversation.id.slice(-4)}`, role: 'agent' });
	return { conversationId: conversation.id, personId: person.id };
}

/**
 * Plays `steps` into the conversation, one after the other: `{ customer }`
 * waits until the execution it starts has finished (the reply is sent);
 * `{ person }`, `{ personLocation }` and `{ system }` are written through the API.
 */
async function playConversation({ n8n, client, workflowId, conversation, model, steps }) {
	const { conversationId, personId } = conversation;
	let executions = (await n8n.listExecutions({ workflowId })).length;
	const sent = [];
	for (const [index, step] of steps.entries()) {
		const key = `test-${conversationId}-${index}`;
		if (step.customer !== undefined) {
			const requestsBefore = model.requests.length;
			sent.push(await client.control('POST', '/inbound', { conversation_id: conversationId, text: step.customer }));
			executions++;
			await waitFor(
				async () => {
					const list = await n8n.listExecutions({ workflowId });
					return list.length >= executions && list.every((e) => e.finished || e.stoppedAt) && model.requests.length > requestsBefore ? true : undefined;
				},
				{ what: `the execution of "${step.customer}" to finish`, timeoutMs: 90_000, intervalMs: 500 },
			);
		} else if (step.person !== undefined) {
			await client.api('POST', '/messages/text', { conversation_id: conversationId, client_request_id: key, text: step.person, from_user_id: personId });
		} else if (step.personLocation !== undefined) {
			await client.api('POST', '/messages/location', { conversation_id: conversationId, client_request_id: key, from_user_id: personId, ...step.personLocation });
		} else if (step.system !== undefined) {
			await client.api('POST', '/messages/text', { conversation_id: conversationId, client_request_id: key, text: step.system, as_system: true });
		}
		// Distinct created_at for each message: the API's order is by time, then id.
		await sleep(20);
	}
	return sent;
}

/** The turns the memory should give for a customer message: every earlier message but System, oldest first. */
function expectedTurns(all, current) {
	const earlier = all.filter((m) => Date.parse(m.created_at) < Date.parse(current.created_at) || (m.created_at === current.created_at && m.id < current.id));
	return earlier
		.filter((m) => m.from_customer || m.from_user_id)
		.map((m) => {
			if (m.from_customer) return { role: 'user', text: m.content };
			const text = m.message_type === 'location' ? `[location] ${m.content}` : m.content;
			return { role: 'assistant', text: m.client_request_id.startsWith(REPLY_KEY_PREFIX) ? text : `${PERSON_MARK}${text}` };
		});
}

/** What the model received for one turn: the system prompt, the history, the prompt. */
function receivedTurns(request) {
	const [system, ...rest] = request.messages;
	const prompt = rest.at(-1);
	return { system: textOf(system), history: rest.slice(0, -1).map((m) => ({ role: m.role, text: textOf(m) })), prompt: textOf(prompt) };
}

/** Counts for the one-line summary: turns the model saw per request, roles, marked persons. */
function summarize(label, received, extra = {}) {
	const roles = {};
	for (const turn of received.flatMap((r) => r.history)) roles[turn.role] = (roles[turn.role] ?? 0) + 1;
	const summary = {
		suite: `chat-memory ${label}`,
		agentRuns: received.length,
		historyTurnsPerRun: received.map((r) => r.history.length),
		roles,
		personMarked: received.flatMap((r) => r.history).filter((t) => t.text.startsWith(PERSON_MARK)).length,
		...extra,
	};
	console.log(JSON.stringify(summary));
	return summary;
}

module.exports = {
	TRIGGER,
	AGENT,
	MEMORY,
	SYSTEM_PROMPT,
	PERSON_MARK,
	REPLY_KEY_PREFIX,
	modelCredential,
	memoryWorkflow,
	answerOf,
	textOf,
	newConversation,
	playConversation,
	expectedTurns,
	receivedTurns,
	summarize,
};
