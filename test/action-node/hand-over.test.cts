/**
 * Conversation > Hand Over to a Person, through n8n-core's WorkflowExecute
 * against the sandbox: bad input fails naming the field before any request;
 * the message and the System note carry the hand-over's markers; a Retry (a
 * new execution that reads the conversation again), a copy, and two
 * hand-overs at once send one message and one note; once a person wrote, or
 * the hand-over's own limit passed, the next hand-over is a new one.
 */
import { handOverMarkerOf } from '../../nodes/shared/handOverToPerson';
import { newExecutionId, runAsTool, runNode } from '../support/host/action-node.cjs';
import { api, messagesOf, newConversation, pause, resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { byId, useSandbox } from '../support/suite.cjs';

const suite = useSandbox();

const handOver = async (conversationId: string, extra: Json = {}, executionId = newExecutionId()) =>
	await runNode({
		credentials: suite.credentials,
		parameters: { resource: 'conversation', operation: 'handOver', conversationId: byId(conversationId), reason: 'The customer disputes a charge', ...extra },
		executionId,
		mode: 'webhook',
	});

const markersOf = async (conversationId: string) => {
	const all = await messagesOf(suite.sb, conversationId);
	return {
		messages: all.filter((message) => handOverMarkerOf(message)?.part === 'message'),
		notes: all.filter((message) => handOverMarkerOf(message)?.part === 'note'),
	};
};

describe('bad input fails naming the field, before any request', () => {
	const cases: Array<[string, Json, RegExp]> = [
		['no conversation (an expression that resolves to nothing)', { conversationId: byId('={{ $json.conversationId }}') }, /^Invalid 'Conversation': it is empty \[item 0\]$/],
		['a limit of 0', { options: { limitHours: 0 } }, /^Invalid 'Hand-Over Limit \(Hours\)': 0 is out of range \[item 0\]$/],
		['a negative limit', { options: { limitHours: -2 } }, /^Invalid 'Hand-Over Limit \(Hours\)': -2 is out of range \[item 0\]$/],
		['a limit that is no number', { options: { limitHours: 'soon' } }, /^Invalid 'Hand-Over Limit \(Hours\)': expected a number/],
		['a message over 4000 characters', { message: 'x'.repeat(4001) }, /^Invalid 'Message to Customer': it has 4001 characters; the most allowed is 4000 \[item 0\]$/],
		['a reason that makes the note too long', { reason: 'y'.repeat(4000) }, /^Invalid 'Reason': it has \d+ characters; the most allowed is 4000/],
		['neither a message nor a note', { message: '', teamNote: false }, /^Invalid 'Message to Customer': it is empty and Note for the Team is off/],
	];
	test.each(cases)('%s', async (_, extra, message) => {
		const conversation = await newConversation(suite.sb);
		await resetStats(suite.sb);
		const result = await handOver(conversation.id, extra);
		expect(result.error?.message).toMatch(message);
		expect(result.error?.context?.itemIndex).toBe(0);
		expect((await stats(suite.sb)).requests).toBe(0);
	});
});

test('the message to the customer and the System note, marked as one hand-over; the output for notifying people', async () => {
	const conversation = await newConversation(suite.sb);
	const result = await handOver(conversation.id);
	expect(result.error).toBeUndefined();
	const [output] = result.json;
	const { messages, notes } = await markersOf(conversation.id);
	expect(messages).toHaveLength(1);
	expect(notes).toHaveLength(1);
	expect(messages[0]).toMatchObject({ content: 'A colleague will answer you here shortly.', from_customer: false });
	expect(notes[0]).toMatchObject({ content: 'Handed over to a person by the bot. Reason: The customer disputes a charge', from_user_id: null });
	expect(handOverMarkerOf(messages[0])?.episode).toBe(handOverMarkerOf(notes[0])?.episode);
	expect(output).toMatchObject({
		handedOver: true,
		conversationId: conversation.id,
		reason: 'The customer disputes a charge',
		handedOverAt: messages[0].created_at,
		message: { id: messages[0].id },
		note: { id: notes[0].id },
	});
});

test('a Retry, a copy of the delivery, two hand-overs at once and a second call of the tool: one message, one note', async () => {
	const conversation = await newConversation(suite.sb);
	await api(suite.sb, 'POST', '/messages/text', { conversation_id: conversation.id, text: 'Bot: how can I help?', client_request_id: 'n8n_bot-1' });
	await Promise.all([handOver(conversation.id), handOver(conversation.id)]);
	const executionId = newExecutionId();
	const first = await handOver(conversation.id, {}, executionId);
	// The same execution calling the tool again.
	await handOver(conversation.id, {}, executionId);
	// A Retry runs in a new execution: it reads the conversation, which now holds the hand-over's own sends.
	const retried = await handOver(conversation.id, { message: 'Edited: someone will answer' }, newExecutionId());
	const { messages, notes } = await markersOf(conversation.id);
	const counts = { handOverMessages: messages.length, handOverNotes: notes.length };
	console.log(JSON.stringify({ suite: 'hand-over exactly once', ...counts }));
	expect(counts).toEqual({ handOverMessages: 1, handOverNotes: 1 });
	expect(retried.json[0].message).toMatchObject({ id: messages[0].id, content: 'A colleague will answer you here shortly.' });
	expect(first.json[0].note).toMatchObject({ id: notes[0].id });
});

test('after a person wrote, or after the bot answered again, the next hand-over is a new one', async () => {
	const conversation = await newConversation(suite.sb);
	await handOver(conversation.id);
	await api(suite.sb, 'POST', '/messages/text', { conversation_id: conversation.id, text: 'Priya here', client_request_id: 'inbox-1' });
	await handOver(conversation.id);
	await api(suite.sb, 'POST', '/messages/text', { conversation_id: conversation.id, text: 'Bot again', client_request_id: 'n8n_bot-2' });
	await handOver(conversation.id);
	const { messages, notes } = await markersOf(conversation.id);
	expect(messages).toHaveLength(3);
	expect(notes).toHaveLength(3);
	expect(new Set(messages.map((message) => handOverMarkerOf(message)?.episode)).size).toBe(3);
});

test("the hand-over's own limit rides in its markers; once it passed, the next hand-over is a new one", async () => {
	const conversation = await newConversation(suite.sb);
	const first = await handOver(conversation.id, { options: { limitHours: 0.001 } });
	expect(first.json[0].limitHours).toBe(0.001);
	expect(handOverMarkerOf(first.json[0].message as Json)?.limitSeconds).toBe(4);
	await handOver(conversation.id, { options: { limitHours: 0.001 } });
	expect((await markersOf(conversation.id)).messages).toHaveLength(1);
	await pause(4000);
	// The limit is judged on the service's clock, by the newest message in the conversation.
	await api(suite.sb, 'POST', '/messages/text', { conversation_id: conversation.id, text: 'System: still open', client_request_id: 'sys-1', as_system: true });
	await handOver(conversation.id, { options: { limitHours: 0.001 } });
	expect((await markersOf(conversation.id)).messages).toHaveLength(2);
});

test('without a note, the message alone marks the hand-over; without a message, the note alone', async () => {
	const noNote = await newConversation(suite.sb);
	await handOver(noNote.id, { teamNote: false });
	expect(await markersOf(noNote.id)).toMatchObject({ messages: [expect.anything()], notes: [] });
	const noMessage = await newConversation(suite.sb);
	await handOver(noMessage.id, { message: '' });
	expect(await markersOf(noMessage.id)).toMatchObject({ messages: [], notes: [expect.anything()] });
});

test("Include Contact adds the customer's contact to the output, with two reads", async () => {
	const conversation = await newConversation(suite.sb);
	await api(suite.sb, 'POST', '/messages/text', { conversation_id: conversation.id, text: 'Bot: hello', client_request_id: 'n8n_bot-contact' });
	await resetStats(suite.sb);
	const result = await handOver(conversation.id, { options: { includeContact: true } });
	const { by_route: byRoute } = await stats(suite.sb);
	expect(result.json[0].contact).toMatchObject({ id: conversation.customer_id });
	expect({ conversations: byRoute['GET /conversations'], contacts: byRoute['GET /contacts/{id}'] }).toEqual({ conversations: 1, contacts: 1 });
});

describe('as an AI tool', () => {
	const toolParameters = (conversationId: string) => ({
		resource: 'conversation',
		operation: 'handOver',
		descriptionType: 'manual',
		toolDescription: 'Hand the conversation over to a person',
		conversationId: byId(conversationId),
		reason: "={{ $fromAI('reason', 'Why a person must take over', 'string') }}",
	});

	test.each([
		['an AI Agent calling it twice in one run', newExecutionId()],
		['an MCP client (no execution id) calling it twice', null],
	])('%s: one message, one note; the model fills the reason', async (_, executionId) => {
		const conversation = await newConversation(suite.sb);
		const run = await runAsTool({
			credentials: suite.credentials,
			parameters: toolParameters(conversation.id),
			calls: [{ reason: 'Angry about a late parcel' }, { reason: 'Asked again' }],
			executionId,
		});
		expect(run.schemaKeys).toEqual(['reason']);
		expect(run.outcomes.map((outcome) => outcome.error)).toEqual([undefined, undefined]);
		const { messages, notes } = await markersOf(conversation.id);
		expect({ messages: messages.length, notes: notes.length }).toEqual({ messages: 1, notes: 1 });
		expect(notes[0].content).toBe('Handed over to a person by the bot. Reason: Angry about a late parcel');
	});

	test('a message over the limit is an error the model can act on, and nothing is sent', async () => {
		const conversation = await newConversation(suite.sb);
		const run = await runAsTool({
			credentials: suite.credentials,
			parameters: { ...toolParameters(conversation.id), message: 'x'.repeat(4001) },
			calls: [{ reason: 'Wants a human' }],
		});
		expect(run.outcomes[0].error).toMatch(/Message to Customer/);
		expect(await markersOf(conversation.id)).toEqual({ messages: [], notes: [] });
	});
});
