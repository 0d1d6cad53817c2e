/**
 * Message operations run through n8n's workflow engine against the sandbox:
 * what the node outputs, and what the sandbox stored (its control view).
 */
import { createHash } from 'crypto';

import { runNode } from '../support/host/action-node.cjs';
import { api, control, messagesOf, newConversation, storedMessage } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { byId, fromList, useSandbox } from '../support/suite.cjs';

const suite = useSandbox();

const send = async (operation: string, parameters: Json, items?: Json[]) =>
	await runNode({
		credentials: suite.credentials,
		parameters: { resource: 'message', operation, ...parameters },
		items: items as never,
	});

const binaryItem = (data: Buffer, mimeType: string, fileName?: string) => ({
	json: {},
	binary: { data: { data: data.toString('base64'), mimeType, fileName } },
});

describe('Send Text', () => {
	test('sends into the conversation and outputs the Message', async () => {
		const conversation = await newConversation(suite.sb);
		const result = await send('sendText', { conversationId: fromList(conversation.id), text: 'Hello from n8n 👋' });
		expect(result.status).toBe('success');
		expect(result.json).toHaveLength(1);
		const [message] = result.json;
		expect(message).toMatchObject({
			conversation_id: conversation.id,
			content: 'Hello from n8n 👋',
			message_type: 'text',
			from_customer: false,
		});
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		const stored = await storedMessage(suite.sb, message.id as string);
		expect(stored.client_request_id).toBe(message.client_request_id);
		expect(stored.attributed_to).toBe('user');
	});

	test('one output item per input item, paired, each sent once', async () => {
		const conversation = await newConversation(suite.sb);
		const items = Array.from({ length: 12 }, (_, index) => ({ json: { index } }));
		const result = await send(
			'sendText',
			{ conversationId: byId(conversation.id), text: '={{ "Message " + $json.index }}' },
			items,
		);
		expect(result.json.map((message) => message.content)).toEqual(items.map((item) => `Message ${item.json.index}`));
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, index) => ({ item: index })));
		const stored = await messagesOf(suite.sb, conversation.id);
		expect(stored).toHaveLength(12);
		expect(new Set(stored.map((message) => message.client_request_id)).size).toBe(12);
	});

	test('Send As System wins over From User ID, as the spec says', async () => {
		const conversation = await newConversation(suite.sb);
		const agent = await control(suite.sb, 'POST', '/users', { name: 'Agent Smith' });
		const result = await send('sendText', {
			conversationId: byId(conversation.id),
			text: 'System notice',
			options: { sendAsSystem: true, fromUserId: agent.id },
		});
		const stored = await storedMessage(suite.sb, result.json[0].id as string);
		expect(stored).toMatchObject({ as_system: true, from_user_id: null, attributed_to: 'system' });
		// From User ID is not even sent when System is chosen.
		expect(stored.requested_from_user_id).toBeNull();
	});

	test('From User ID and Reply To Message ID', async () => {
		const conversation = await newConversation(suite.sb);
		const inbound = await control(suite.sb, 'POST', '/inbound', { conversation_id: conversation.id, text: 'Hi?' });
		const agent = await control(suite.sb, 'POST', '/users', { name: 'Agent Jones' });
		const result = await send('sendText', {
			conversationId: byId(conversation.id),
			text: 'Hello!',
			options: { fromUserId: agent.id, replyToMessageId: inbound.id },
		});
		expect(result.json[0].from_user_id).toBe(agent.id);
		const stored = await storedMessage(suite.sb, result.json[0].id as string);
		expect(stored).toMatchObject({ as_system: false, from_user_id: agent.id, reply_to_message_id: inbound.id });
	});
});

describe('Send Image, Audio, Video, Document', () => {
	const cases = [
		{ operation: 'sendImage', kind: 'image', mimeType: 'image/png', fileName: 'chart.png', caption: 'Q3 chart' },
		{ operation: 'sendAudio', kind: 'audio', mimeType: 'audio/ogg', fileName: 'note.ogg', caption: undefined },
		{ operation: 'sendVideo', kind: 'video', mimeType: 'video/mp4', fileName: 'demo.mp4', caption: 'Demo' },
		{ operation: 'sendDocument', kind: 'document', mimeType: 'application/pdf', fileName: 'offer.pdf', caption: 'Offer' },
	];
	test.each(cases)('$operation uploads the binary with its name and type', async ({ operation, kind, mimeType, fileName, caption }) => {
		const conversation = await newConversation(suite.sb);
		const data = Buffer.from(`${kind} bytes ${'x'.repeat(3000)}`);
		const result = await send(
			operation,
			{ conversationId: byId(conversation.id), binaryPropertyName: 'data', options: caption ? { caption } : {} },
			[binaryItem(data, mimeType, fileName)],
		);
		expect(result.error).toBeUndefined();
		expect(result.json[0]).toMatchObject({ message_type: kind, content: caption ?? '' });
		const stored = await storedMessage(suite.sb, result.json[0].id as string);
		expect(stored).toMatchObject({
			file_name: fileName,
			content_type: mimeType,
			size: data.length,
			sha256: createHash('sha256').update(data).digest('hex'),
		});
	});

	test('File Name and MIME Type options override the binary metadata', async () => {
		const conversation = await newConversation(suite.sb);
		const result = await send(
			'sendDocument',
			{
				conversationId: byId(conversation.id),
				binaryPropertyName: 'attachment',
				options: { fileName: 'renamed.csv', mimeType: 'text/csv' },
			},
			[{ json: {}, binary: { attachment: binaryItem(Buffer.from('a,b\n1,2\n'), 'application/octet-stream', 'raw.bin').binary.data } }],
		);
		const stored = await storedMessage(suite.sb, result.json[0].id as string);
		expect(stored).toMatchObject({ file_name: 'renamed.csv', content_type: 'text/csv' });
	});

	test('an image without a file name gets one from its kind and extension', async () => {
		const conversation = await newConversation(suite.sb);
		const item = binaryItem(Buffer.from('gif'), 'image/gif');
		(item.binary.data as Json).fileExtension = 'gif';
		const result = await send('sendImage', { conversationId: byId(conversation.id), binaryPropertyName: 'data' }, [item]);
		expect((await storedMessage(suite.sb, result.json[0].id as string)).file_name).toBe('image.gif');
	});
});

describe('Send Location', () => {
	test('sends the coordinates, place name and address', async () => {
		const conversation = await newConversation(suite.sb);
		const result = await send('sendLocation', {
			conversationId: byId(conversation.id),
			latitude: 52.520008,
			longitude: 13.404954,
			options: { placeName: 'Office', address: 'Alexanderplatz 1, Berlin', sendAsSystem: true },
		});
		expect(result.json[0]).toMatchObject({ message_type: 'location', content: '52.520008,13.404954' });
		const stored = await storedMessage(suite.sb, result.json[0].id as string);
		expect(stored).toMatchObject({ as_system: true, latitude: 52.520008, longitude: 13.404954, name: 'Office' });
	});
});

describe('Get Many messages', () => {
	test('filters by conversation; Limit and Return All', async () => {
		const conversation = await newConversation(suite.sb);
		for (let index = 0; index < 7; index++) {
			await control(suite.sb, 'POST', '/inbound', { conversation_id: conversation.id, text: `inbound ${index}` });
		}
		const all = await send('getAll', { returnAll: true, filters: { conversationId: byId(conversation.id) } });
		expect(all.json).toHaveLength(7);
		expect(all.json.every((message) => message.conversation_id === conversation.id)).toBe(true);
		const limited = await send('getAll', { returnAll: false, limit: 3, filters: { conversationId: byId(conversation.id) } });
		expect(limited.json.map((message) => message.id)).toEqual(all.json.slice(0, 3).map((message) => message.id));
	});

	test('filters by message session', async () => {
		const page = await api(suite.sb, 'GET', '/messages?per_page=1');
		const sessionId = page.data[0].message_session_id as string;
		const result = await send('getAll', { returnAll: true, filters: { messageSessionId: sessionId } });
		expect(result.json.length).toBeGreaterThan(0);
		expect(result.json.every((message) => message.message_session_id === sessionId)).toBe(true);
		const expected = await api(suite.sb, 'GET', `/messages?per_page=500&message_session_id=${sessionId}`);
		expect(result.json).toHaveLength(expected.total);
	});
});
