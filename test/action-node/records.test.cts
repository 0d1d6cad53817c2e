/**
 * Identity, conversation, contact and channel operations run through n8n's
 * workflow engine against the sandbox.
 */
import { runNode } from '../support/host/action-node.cjs';
import { api, newConversation, resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { byId, fromList, useSandbox } from '../support/suite.cjs';

const suite = useSandbox();

const run = async (resource: string, operation: string, parameters: Json = {}, extra: Json = {}) =>
	await runNode({ credentials: suite.credentials, parameters: { resource, operation, ...parameters }, ...extra });

test('Identity: Get returns the key identity', async () => {
	const result = await run('identity', 'get');
	expect(result.json).toHaveLength(1);
	expect(result.json[0]).toMatchObject({ app_id: suite.sb.app_id, mode: 'test' });
	expect(result.json[0].scopes).toEqual(expect.arrayContaining(['messages:write', 'customers:read']));
});

describe('Conversation: Get Many', () => {
	test('Return All outputs every conversation once, newest activity first', async () => {
		const expected = await api(suite.sb, 'GET', '/conversations?per_page=500');
		const result = await run('conversation', 'getAll', { returnAll: true });
		expect(result.json.map((conversation) => conversation.id)).toEqual(expected.data.map((c: Json) => c.id));
		expect(result.items.every((item) => (item.pairedItem as Json).item === 0)).toBe(true);
	});

	test('Updated Since is sent as last_updated_at in UNIX seconds', async () => {
		const all = (await api(suite.sb, 'GET', '/conversations?per_page=500')).data as Json[];
		const middle = all[Math.floor(all.length / 2)].updated_at as string;
		const seconds = Math.floor(Date.parse(middle) / 1000);
		const expected = await api(suite.sb, 'GET', `/conversations?per_page=500&last_updated_at=${seconds}`);
		const result = await run('conversation', 'getAll', { returnAll: true, filters: { updatedSince: middle } });
		expect(result.json.map((conversation) => conversation.id)).toEqual(expected.data.map((c: Json) => c.id));
		expect(result.json.length).toBeLessThan(all.length);
	});

	test('a date-time without zone is read in the workflow time zone', async () => {
		const conversation = await newConversation(suite.sb);
		// One hour ago as Tokyo wall-clock time without zone: read as UTC it
		// would be 8 hours ahead, and the new conversation would be missing.
		const anHourAgo = new Date(Date.now() - 3600_000);
		const wallClock = anHourAgo.toLocaleString('sv-SE', { timeZone: 'Asia/Tokyo' }).replace(' ', 'T');
		const result = await run(
			'conversation',
			'getAll',
			{ returnAll: true, filters: { updatedSince: wallClock } },
			{ timezone: 'Asia/Tokyo' },
		);
		expect(result.json.map((c) => c.id)).toContain(conversation.id);
		expect(result.json.every((c) => Date.parse(c.updated_at as string) >= anHourAgo.getTime() - 1000)).toBe(true);
	});

	test('the Channel filter keeps the conversations of one channel', async () => {
		const all = (await api(suite.sb, 'GET', '/conversations?per_page=500')).data as Json[];
		const channelId = all[0].channel_id as string;
		const result = await run('conversation', 'getAll', { returnAll: false, limit: 2, filters: { channelId: fromList(channelId) } });
		expect(result.json).toEqual(all.filter((c) => c.channel_id === channelId).slice(0, 2));
	});
});

describe('Contact', () => {
	test('Create sends the fields and outputs the contact', async () => {
		const result = await run('contact', 'create', {
			name: '  Ada Lovelace  ',
			additionalFields: { email: 'ada@example.com', phone: '+44 20 7946 0000', leadStatus: 'qualified', jobTitle: 'Analyst', comment: 'VIP' },
		});
		expect(result.json[0]).toMatchObject({
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			phone: '+44 20 7946 0000',
			lead_status: 'qualified',
			job_title: 'Analyst',
		});
		const fetched = await api(suite.sb, 'GET', `/contacts/${result.json[0].id}`);
		expect(fetched).toEqual(result.json[0]);
	});

	test('Get outputs the contact', async () => {
		const created = await api(suite.sb, 'POST', '/contacts', { name: 'Grace Hopper', company: 'Navy' });
		const result = await run('contact', 'get', { contactId: byId(created.id) });
		expect(result.json).toEqual([created]);
	});

	test('Get Many searches on the server and filters by lead status', async () => {
		await api(suite.sb, 'POST', '/contacts', { name: 'Zebulon Quux', lead_status: 'won' });
		const search = await run('contact', 'getAll', { returnAll: true, filters: { search: 'zebulon' } });
		expect(search.json.map((contact) => contact.name)).toEqual(['Zebulon Quux']);
		const won = await run('contact', 'getAll', { returnAll: true, filters: { leadStatus: 'won' } });
		const expected = await api(suite.sb, 'GET', '/contacts?per_page=500&lead_status=won');
		expect(won.json.map((contact) => contact.id)).toEqual(expected.data.map((c: Json) => c.id));
		expect(won.json.every((contact) => contact.lead_status === 'won')).toBe(true);
	});

	test('Update sends only the fields set, keeps the name, and outputs the contact', async () => {
		const created = await api(suite.sb, 'POST', '/contacts', {
			name: 'Linus Example',
			email: 'linus@example.com',
			company: 'Old Co',
			city: 'Helsinki',
		});
		await resetStats(suite.sb);
		const result = await run('contact', 'update', {
			contactId: byId(created.id),
			updateFields: { company: 'New Co', city: '' },
		});
		expect(result.json[0]).toMatchObject({
			id: created.id,
			name: 'Linus Example',
			email: 'linus@example.com',
			company: 'New Co',
			city: '',
		});
		// The name is fetched first (the API requires it), then PATCH, then the result.
		expect((await stats(suite.sb)).by_route).toEqual({ 'GET /contacts/{id}': 2, 'PATCH /contacts/{id}': 1 });
	});

	test('Update with a name does not fetch the contact first', async () => {
		const created = await api(suite.sb, 'POST', '/contacts', { name: 'Old Name' });
		await resetStats(suite.sb);
		const result = await run('contact', 'update', { contactId: byId(created.id), updateFields: { name: 'New Name', leadStatus: 'lost' } });
		expect(result.json[0]).toMatchObject({ name: 'New Name', lead_status: 'lost' });
		expect((await stats(suite.sb)).by_route).toEqual({ 'GET /contacts/{id}': 1, 'PATCH /contacts/{id}': 1 });
	});

	test('Merge outputs the primary contact and removes the secondary', async () => {
		const primary = await api(suite.sb, 'POST', '/contacts', { name: 'Primary Person', email: 'p@example.com' });
		const secondary = await api(suite.sb, 'POST', '/contacts', { name: 'Secondary Person', phone: '+1 555 0100' });
		const result = await run('contact', 'merge', {
			primaryContactId: byId(primary.id),
			secondaryContactId: fromList(secondary.id),
		});
		expect(result.json[0]).toMatchObject({ id: primary.id, name: 'Primary Person', phone: '+1 555 0100' });
		const gone = await run('contact', 'get', { contactId: byId(secondary.id) });
		expect(gone.error?.httpCode).toBe('404');
	});
});

describe('Channel: Get Many', () => {
	test('Return All and Limit', async () => {
		const expected = (await api(suite.sb, 'GET', '/channels?per_page=500')).data as Json[];
		const all = await run('channel', 'getAll', { returnAll: true });
		expect(all.json).toEqual(expected);
		const two = await run('channel', 'getAll', { returnAll: false, limit: 2 });
		expect(two.json).toEqual(expected.slice(0, 2));
	});
});

test('Continue On Fail: a failing item becomes an error item, the others go on', async () => {
	const created = await api(suite.sb, 'POST', '/contacts', { name: 'Exists' });
	const result = await run(
		'contact',
		'get',
		{ contactId: byId('={{ $json.id }}') },
		{
			items: [{ json: { id: created.id } }, { json: { id: 'ct_doesnotexist' } }, { json: { id: created.id } }],
			settings: { onError: 'continueRegularOutput' },
		},
	);
	expect(result.status).toBe('success');
	expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	expect(result.json[0].id).toBe(created.id);
	expect(result.json[1]).toMatchObject({ error: 'The contact "ct_doesnotexist" was not found', httpCode: '404' });
	expect(result.json[2].id).toBe(created.id);
});

test('an unknown conversation is a 400 with the API text, naming the item', async () => {
	const result = await run('message', 'sendText', { conversationId: byId('conv_missing'), text: 'hi' }, {
		items: [{ json: {} }, { json: {} }],
	});
	expect(result.status).toBe('error');
	expect(result.error?.httpCode).toBe('400');
	expect(result.error?.message).toMatch(/^The Omnichannel API rejected the request: /);
	expect(result.error?.context?.itemIndex).toBe(0);
});
