/**
 * Every limit of the spec is checked before any request, naming the field and
 * the item; the sandbox's request counter proves that nothing was sent.
 */
import { runNode } from '../support/host/action-node.cjs';
import type { RunResult } from '../support/host/action-node.cjs';
import { messagesOf, newConversation, resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { byId, useSandbox } from '../support/suite.cjs';

const suite = useSandbox();
let conversationId: string;

beforeAll(async () => {
	conversationId = (await newConversation(suite.sb)).id;
});

const MiB = 1024 * 1024;

async function runWithoutRequests(resource: string, operation: string, parameters: Json, items?: Json[]): Promise<RunResult> {
	await resetStats(suite.sb);
	const result = await runNode({
		credentials: suite.credentials,
		parameters: { resource, operation, ...parameters },
		items: items as never,
	});
	expect((await stats(suite.sb)).requests).toBe(0);
	return result;
}

/** What failed (field and item) in the message; what to do in the description. */
function expectInvalid(result: RunResult, field: string, itemIndex = 0): void {
	expect(result.status).toBe('error');
	expect(result.error?.message).toMatch(new RegExp(`^Invalid '${field}': .+ \\[item ${itemIndex}\\]$`));
	expect(result.error?.description).toMatch(/^[A-Z].+\.$/);
	expect(result.error?.context?.itemIndex).toBe(itemIndex);
}

const text = (value: string) => ({ conversationId: byId(conversationId), text: value });
const file = (mimeType: string, size = 10, extra: Json = {}) => ({
	json: {},
	binary: { data: { data: Buffer.alloc(size, 1).toString('base64'), mimeType, fileName: 'f', ...extra } },
});

describe('messages', () => {
	test.each([
		['an empty text', '={{ "" }}'],
		['a text of 4001 characters', 'a'.repeat(4001)],
		['4001 emoji (code points, not UTF-16 units)', '😀'.repeat(4001)],
	])('Text: %s', async (_, value) => {
		const result = await runWithoutRequests('message', 'sendText', text(value));
		expectInvalid(result, 'Text');
	});

	test('Text: 4000 emoji are accepted (4000 code points)', async () => {
		const result = await runNode({
			credentials: suite.credentials,
			parameters: { resource: 'message', operation: 'sendText', ...text('😀'.repeat(4000)) },
		});
		expect(result.status).toBe('success');
	});

	test('Conversation: empty', async () => {
		const result = await runWithoutRequests('message', 'sendText', { conversationId: byId('={{ " " }}'), text: 'x' });
		expectInvalid(result, 'Conversation');
	});

	test('Caption: over 1024 characters', async () => {
		const result = await runWithoutRequests(
			'message',
			'sendImage',
			{ conversationId: byId(conversationId), binaryPropertyName: 'data', options: { caption: 'c'.repeat(1025) } },
			[file('image/png')],
		);
		expectInvalid(result, 'Caption');
	});

	test.each([
		['Latitude', 90.000001, 0],
		['Latitude', -91, 0],
		['Longitude', 0, 180.5],
		['Longitude', 0, -181],
	])('%s out of range (%d, %d)', async (field, latitude, longitude) => {
		const result = await runWithoutRequests('message', 'sendLocation', { conversationId: byId(conversationId), latitude, longitude });
		expectInvalid(result, field as string);
	});

	test('Input Binary Field: the item has no such binary property', async () => {
		const result = await runWithoutRequests('message', 'sendDocument', { conversationId: byId(conversationId), binaryPropertyName: 'attachment' }, [
			file('application/pdf'),
		]);
		expectInvalid(result, 'Input Binary Field');
		expect(result.error?.message).toContain('"attachment"');
	});

	test.each([
		['sendImage', 'application/pdf'],
		['sendAudio', 'video/mp4'],
		['sendVideo', 'image/png'],
	])('MIME Type: %s refuses %s', async (operation, mimeType) => {
		const result = await runWithoutRequests('message', operation, { conversationId: byId(conversationId), binaryPropertyName: 'data' }, [file(mimeType)]);
		expectInvalid(result, 'MIME Type');
	});

	test('MIME Type: an override that does not match the kind', async () => {
		const result = await runWithoutRequests(
			'message',
			'sendImage',
			{ conversationId: byId(conversationId), binaryPropertyName: 'data', options: { mimeType: 'text/plain' } },
			[file('image/png')],
		);
		expectInvalid(result, 'MIME Type');
	});

	test('files over 25 MiB, from their data or their stored size', async () => {
		const real = await runWithoutRequests('message', 'sendDocument', { conversationId: byId(conversationId), binaryPropertyName: 'data' }, [
			file('application/pdf', 25 * MiB + 1),
		]);
		expectInvalid(real, 'Input Binary Field');
		expect(real.error?.message).toContain('25 MiB');
		const stored = await runWithoutRequests('message', 'sendVideo', { conversationId: byId(conversationId), binaryPropertyName: 'data' }, [
			file('video/mp4', 3, { bytes: 30 * MiB }),
		]);
		expectInvalid(stored, 'Input Binary Field');
	});

	test('a file of exactly 25 MiB is sent', async () => {
		const result = await runNode({
			credentials: suite.credentials,
			parameters: { resource: 'message', operation: 'sendDocument', conversationId: byId(conversationId), binaryPropertyName: 'data' },
			items: [file('application/octet-stream', 25 * MiB)] as never,
		});
		expect(result.error).toBeUndefined();
		expect(result.json[0].message_type).toBe('document');
	});
});

describe('contacts', () => {
	test.each([
		['Name', { name: '   ' }],
		['Name', { name: 'n'.repeat(201) }],
		['Phone', { name: 'ok', additionalFields: { phone: '1'.repeat(51) } }],
		['Email', { name: 'ok', additionalFields: { email: `${'e'.repeat(195)}@x.com` } }],
		['Company', { name: 'ok', additionalFields: { company: 'c'.repeat(201) } }],
		['Job Title', { name: 'ok', additionalFields: { jobTitle: 'j'.repeat(201) } }],
		['Address', { name: 'ok', additionalFields: { address: 'a'.repeat(501) } }],
		['City', { name: 'ok', additionalFields: { city: 'c'.repeat(101) } }],
		['Country', { name: 'ok', additionalFields: { country: 'c'.repeat(101) } }],
		['Lead Status', { name: 'ok', additionalFields: { leadStatus: '={{ "hot" }}' } }],
	])('Create: %s', async (field, parameters) => {
		expectInvalid(await runWithoutRequests('contact', 'create', parameters), field);
	});

	test('Update: no field to update', async () => {
		expectInvalid(await runWithoutRequests('contact', 'update', { contactId: byId('ct_x'), updateFields: {} }), 'Update Fields');
	});

	test('Update: an empty name cannot clear the required name', async () => {
		expectInvalid(await runWithoutRequests('contact', 'update', { contactId: byId('ct_x'), updateFields: { name: '' } }), 'Name');
	});

	test('Merge: the same contact twice', async () => {
		const result = await runWithoutRequests('contact', 'merge', { primaryContactId: byId('ct_same'), secondaryContactId: byId('ct_same') });
		expectInvalid(result, 'Secondary Contact');
	});

	test('Get Many: an unknown lead status filter', async () => {
		const result = await runWithoutRequests('contact', 'getAll', { returnAll: true, filters: { leadStatus: '={{ "hot" }}' } });
		expectInvalid(result, 'Lead Status');
	});

	test('Conversation Get Many: an unreadable Updated Since', async () => {
		const result = await runWithoutRequests('conversation', 'getAll', { returnAll: true, filters: { updatedSince: 'yesterday-ish' } });
		expectInvalid(result, 'Updated Since');
	});
});

describe('several items', () => {
	const items = [{ json: { text: 'first' } }, { json: { text: '' } }, { json: { text: 'third' } }];

	test('one invalid item stops the node before anything is sent', async () => {
		const conversation = await newConversation(suite.sb);
		const result = await runWithoutRequests('message', 'sendText', { conversationId: byId(conversation.id), text: '={{ $json.text }}' }, items);
		expectInvalid(result, 'Text', 1);
		expect(await messagesOf(suite.sb, conversation.id)).toHaveLength(0);
	});

	test('with Continue On Fail, the invalid item is an error item and the others are sent', async () => {
		const conversation = await newConversation(suite.sb);
		const result = await runNode({
			credentials: suite.credentials,
			parameters: { resource: 'message', operation: 'sendText', conversationId: byId(conversation.id), text: '={{ $json.text }}' },
			items,
			settings: { onError: 'continueRegularOutput' },
		});
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.json[0].content).toBe('first');
		expect(result.json[1]).toMatchObject({ error: "Invalid 'Text': it is empty [item 1]", description: 'Enter 1 to 4000 characters.' });
		expect(result.json[2].content).toBe('third');
		expect(await messagesOf(suite.sb, conversation.id)).toHaveLength(2);
	});
});
