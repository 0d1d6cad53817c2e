/**
 * Omnichannel Chat Memory in-process: which messages become which turns, the
 * message being answered left out, the window, the checks before any
 * request, one read per agent run (none after the trigger's read), and an
 * n8n without the AI node SDK. The real AI Agent: chat-memory.n8n.test.js.
 */
import type { IDataObject, INode, ISupplyDataFunctions } from 'n8n-workflow';

import { OmnichannelChatMemory } from '../../nodes/OmnichannelChatMemory/OmnichannelChatMemory.node';
import { SDK_MISSING } from '../../nodes/OmnichannelChatMemory/memory';
import { MAX_WINDOW_LENGTH } from '../../nodes/OmnichannelChatMemory/parameters';
import { conversationOfItem, currentMessagesOfItem } from '../../nodes/shared/triggerItem';
import { PERSON_MARK, SYSTEM_MARK, historyTurns, messageText } from '../../nodes/OmnichannelChatMemory/turns';
import { readRecentMessages } from '../../nodes/shared/conversation';
import type { ConversationMessage } from '../../nodes/shared/conversation';
import { SEND_KEY_PREFIX } from '../../nodes/shared/sendKeys';

const CONVERSATION = 'conv_1';
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, second)).toISOString();
let serial = 0;
const msg = (second: number, fields: IDataObject): ConversationMessage => ({
	id: `msg_${String(second).padStart(3, '0')}_${serial++}`,
	conversation_id: CONVERSATION,
	message_type: 'text',
	created_at: at(second),
	from_customer: false,
	from_user_id: null,
	client_request_id: '',
	...fields,
});
const customer = (second: number, content: string, fields: IDataObject = {}) => msg(second, { from_customer: true, content, ...fields });
const bot = (second: number, content: string) => msg(second, { from_user_id: 'usr_owner', client_request_id: `${SEND_KEY_PREFIX}${second}`, content });
const person = (second: number, content: string) => msg(second, { from_user_id: 'usr_priya', content });
const system = (second: number, content: string) => msg(second, { content });
/** The reader's order: newest first. */
const newestFirst = (...messages: ConversationMessage[]) => [...messages].reverse();

describe('turns', () => {
	const earlier = [customer(1, 'Hi'), bot(2, 'Hello! How can I help?'), system(3, 'Conversation assigned to Priya'), person(4, 'Priya here, checking'), customer(5, 'Thanks')];
	const now = customer(6, 'Where is my order?');

	test('oldest first; the customer as user, the package and people as assistant, a person marked; System left out by default', () => {
		const turns = historyTurns(newestFirst(...earlier, now), { current: [now], windowLength: 20, includeSystemMessages: false });
		expect(turns).toEqual([
			{ role: 'user', text: 'Hi' },
			{ role: 'assistant', text: 'Hello! How can I help?' },
			{ role: 'assistant', text: `${PERSON_MARK}Priya here, checking` },
			{ role: 'user', text: 'Thanks' },
		]);
	});

	test('Include System Messages: System as assistant, marked', () => {
		const turns = historyTurns(newestFirst(...earlier, now), { current: [now], windowLength: 20, includeSystemMessages: true });
		expect(turns[2]).toEqual({ role: 'assistant', text: `${SYSTEM_MARK}Conversation assigned to Priya` });
		expect(turns).toHaveLength(5);
	});

	test('the message being answered and anything newer are not history, also when the list lacks it', () => {
		const later = person(7, 'I will answer this one');
		const options = { current: [now], windowLength: 20, includeSystemMessages: false };
		const texts = (latest: ConversationMessage[]) => historyTurns(latest, options).map((turn) => turn.text);
		expect(texts(newestFirst(...earlier, now, later))).toEqual(['Hi', 'Hello! How can I help?', `${PERSON_MARK}Priya here, checking`, 'Thanks']);
		expect(texts(newestFirst(...earlier))).toEqual(texts(newestFirst(...earlier, now, later)));
	});

	test("a burst's messages are all left out", () => {
		const burst = [customer(6, 'Hello'), customer(7, 'my parcel'), customer(8, 'is late')];
		const turns = historyTurns(newestFirst(...earlier, ...burst), { current: burst, windowLength: 20, includeSystemMessages: false });
		expect(turns.map((turn) => turn.text)).toEqual(['Hi', 'Hello! How can I help?', `${PERSON_MARK}Priya here, checking`, 'Thanks']);
	});

	test('the window keeps the latest turns, counted after System messages are left out', () => {
		const turns = historyTurns(newestFirst(...earlier, now), { current: [now], windowLength: 2, includeSystemMessages: false });
		expect(turns.map((turn) => turn.text)).toEqual([`${PERSON_MARK}Priya here, checking`, 'Thanks']);
	});

	test('without a current message (Define Below, no trigger event) every latest message is history', () => {
		expect(historyTurns(newestFirst(...earlier), { current: [], windowLength: 20, includeSystemMessages: true })).toHaveLength(5);
	});

	test.each<[string, IDataObject, string]>([
		['a text', { message_type: 'text', content: ' Hello ' }, 'Hello'],
		['an email', { message_type: 'email', content: 'Subject: order' }, 'Subject: order'],
		['an image with a caption', { message_type: 'image', content: 'my receipt' }, '[image] my receipt'],
		['a document without caption', { message_type: 'document', content: '' }, '[document]'],
		['a voice message', { message_type: 'voice', content: '' }, '[voice]'],
		['a location', { message_type: 'location', content: '52.52,13.405' }, '[location] 52.52,13.405'],
		['a location with its place', { message_type: 'location', content: '52.52,13.405', name: 'Shop', address: 'Main St 1' }, '[location: Shop, Main St 1] 52.52,13.405'],
		['an empty text', { message_type: 'text', content: '' }, '[text]'],
		['a message without type', { content: 'plain' }, 'plain'],
	])('%s reads as %p', (_, fields, text) => {
		expect(messageText(fields)).toBe(text);
	});

	test("a person's image is marked too", () => {
		const photo = msg(1, { from_user_id: 'usr_priya', message_type: 'image', content: 'label' });
		expect(historyTurns([photo], { current: [], windowLength: 5, includeSystemMessages: false })).toEqual([
			{ role: 'assistant', text: `${PERSON_MARK}[image] label` },
		]);
	});
});

describe('the session from the agent’s input item', () => {
	const message = customer(9, 'Where is my order?');
	const burst = { text: 'a\nb', count: 2, messages: [customer(8, 'a'), message] };

	test('whole event, Output Data Only, and a polling trigger’s message record', () => {
		expect(conversationOfItem({ id: 'evt_1', type: 'message.created', data: message })).toBe(CONVERSATION);
		expect(conversationOfItem({ ...message })).toBe(CONVERSATION);
		expect(conversationOfItem({ id: message.id, conversation_id: CONVERSATION, message_type: 'text' })).toBe(CONVERSATION);
		expect(conversationOfItem({ sessionId: 'x' })).toBeUndefined();
	});

	test('the current messages: the event’s message, or its burst (once)', () => {
		expect(currentMessagesOfItem({ type: 'message.created', data: message }).map((m) => m.id)).toEqual([message.id]);
		expect(currentMessagesOfItem({ ...message, burst }).map((m) => m.id)).toEqual(burst.messages.map((m) => m.id));
		expect(currentMessagesOfItem({ type: 'message.created', data: message, burst }).map((m) => m.id)).toEqual(burst.messages.map((m) => m.id));
		expect(currentMessagesOfItem({ conversation_id: CONVERSATION })).toEqual([]);
	});
});

/** A stand-in for n8n's supply-data context: parameters, the agent's input item, an execution id, and a scripted API. */
function supplyContext(parameters: IDataObject, inputItem: IDataObject | undefined, latest: ConversationMessage[], executionId = `exec_${serial++}`) {
	const requests: IDataObject[] = [];
	const node = { name: 'Omnichannel Chat Memory', type: 'omnichannelChatMemory', typeVersion: 1, parameters: {} } as unknown as INode;
	const values: IDataObject = { sessionIdType: 'fromTrigger', contextWindowLength: 20, options: {}, ...parameters };
	const context = {
		getNode: () => node,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => values[name] ?? fallback,
		getInputData: () => (inputItem ? [{ json: inputItem }] : []),
		getExecutionId: () => executionId,
		getExecutionCancelSignal: () => undefined,
		getCredentials: async () => ({ baseUrl: 'http://127.0.0.1:9/api/public/v1', apiKey: 'svc_test_abcdefgh12.0123456789abcdefghij' }),
		addInputData: () => ({ index: 0 }),
		addOutputData: () => undefined,
		logAiEvent: () => undefined,
		getNextRunIndex: () => 0,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IDataObject) => {
				requests.push(options);
				return { statusCode: 200, headers: {}, body: { data: latest } };
			},
		},
	};
	return { context: context as unknown as ISupplyDataFunctions, requests };
}

interface LcMessage {
	content: unknown;
	_getType(): string;
}
interface SuppliedMemory {
	loadMemoryVariables(values: IDataObject): Promise<{ chat_history: LcMessage[] }>;
	saveContext(input: IDataObject, output: IDataObject): Promise<void>;
	chatHistory: { getMessages(): Promise<LcMessage[]> };
}

/** A LangChain message's text: the SDK gives its content as text blocks. */
const textOf = (message: LcMessage): string =>
	Array.isArray(message.content) ? message.content.map((block: { text?: string }) => block.text ?? '').join('') : String(message.content);

async function supply(context: ISupplyDataFunctions): Promise<SuppliedMemory> {
	return (await new OmnichannelChatMemory().supplyData.call(context, 0)).response as SuppliedMemory;
}

describe('the memory node', () => {
	const history = [customer(1, 'Hi'), bot(2, 'Hello!'), person(3, 'A person here')];
	const now = customer(4, 'Where is my order?');
	const event = { id: 'evt_1', type: 'message.created', data: now };

	test('the agent gets the history as LangChain turns; load, save and the log’s re-read cost one request', async () => {
		const { context, requests } = supplyContext({}, event, newestFirst(...history, now));
		const memory = await supply(context);
		const { chat_history: turns } = await memory.loadMemoryVariables({ input: now.content });
		expect(turns.map((turn) => [turn._getType(), textOf(turn)])).toEqual([
			['human', 'Hi'],
			['ai', 'Hello!'],
			['ai', `${PERSON_MARK}A person here`],
		]);
		await memory.saveContext({ input: now.content }, { output: 'It left today.' });
		expect(await memory.chatHistory.getMessages()).toHaveLength(3);
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'GET', url: 'http://127.0.0.1:9/api/public/v1/messages', qs: { conversation_id: CONVERSATION, per_page: 100 } });
	});

	test('a second supply in the same execution (another tool round) reads nothing; another execution reads again', async () => {
		const latest = newestFirst(...history, now);
		const first = supplyContext({}, event, latest, 'exec_rounds');
		await (await supply(first.context)).loadMemoryVariables({});
		const second = supplyContext({}, event, latest, 'exec_rounds');
		await (await supply(second.context)).loadMemoryVariables({});
		const other = supplyContext({}, event, latest, 'exec_other');
		await (await supply(other.context)).loadMemoryVariables({});
		expect([first.requests.length, second.requests.length, other.requests.length]).toEqual([1, 0, 1]);
	});

	test("after the trigger's read in the same execution, the memory makes no request", async () => {
		const trigger = supplyContext({}, event, newestFirst(...history, now), 'exec_trigger_read');
		await readRecentMessages(trigger.context, CONVERSATION, { keepForExecution: true });
		const memory = supplyContext({}, event, [], 'exec_trigger_read');
		const { chat_history: turns } = await (await supply(memory.context)).loadMemoryVariables({});
		expect([trigger.requests.length, memory.requests.length, turns.length]).toEqual([1, 0, 3]);
	});

	test('Define Below overrides the trigger’s conversation', async () => {
		const { context, requests } = supplyContext({ sessionIdType: 'customKey', conversationId: { __rl: true, mode: 'id', value: 'conv_other' } }, event, []);
		await (await supply(context)).loadMemoryVariables({});
		expect(requests[0].qs).toMatchObject({ conversation_id: 'conv_other' });
	});

	test.each<[string, IDataObject, IDataObject | undefined, RegExp]>([
		['no trigger event in the input', {}, { sessionId: 'abc' }, /No conversation for the memory: set 'Conversation'/],
		['no input item at all', {}, undefined, /No conversation for the memory/],
		['an empty Conversation ID', { sessionIdType: 'customKey', conversationId: { __rl: true, mode: 'id', value: ' ' } }, event, /No conversation for the memory/],
		['a window of 0', { contextWindowLength: 0 }, event, /'Context Window Length \(Messages\)' must be a whole number from 1 to 50/],
		['a window above the cap', { contextWindowLength: MAX_WINDOW_LENGTH + 1 }, event, /Context Window Length/],
		['a fractional window', { contextWindowLength: 2.5 }, event, /Context Window Length/],
		['a window that is not a number', { contextWindowLength: 'ten' }, event, /Context Window Length/],
	])('%s: a clear error naming the field, before any request', async (_, parameters, item, error) => {
		const { context, requests } = supplyContext(parameters, item, []);
		await expect(new OmnichannelChatMemory().supplyData.call(context, 0)).rejects.toThrow(error);
		expect(requests).toHaveLength(0);
	});
});

describe('an n8n without the AI node SDK (1.x)', () => {
	test('the node file loads (so the package does), and the memory says why it cannot run, before any request', async () => {
		await jest.isolateModulesAsync(async () => {
			jest.doMock('@n8n/ai-node-sdk', () => {
				throw new Error("Cannot find module '@n8n/ai-node-sdk'");
			});
			const built = (await import('../../nodes/OmnichannelChatMemory/OmnichannelChatMemory.node')) as typeof import('../../nodes/OmnichannelChatMemory/OmnichannelChatMemory.node');
			const node = new built.OmnichannelChatMemory();
			expect(node.description.name).toBe('omnichannelChatMemory');
			const { context, requests } = supplyContext({}, { id: 'evt_1', type: 'message.created', data: customer(1, 'Hi') }, []);
			await expect(node.supplyData.call(context, 0)).rejects.toThrow(SDK_MISSING);
			expect(requests).toHaveLength(0);
		});
	});
});
