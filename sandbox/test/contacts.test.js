'use strict';
// Contacts endpoints and field limits: create, update, merge, search and
// the lead_status filter.

const { openSandbox, allPages, ID_PATTERN, ISO_PATTERN } = require('./helpers');

let t;
beforeAll(async () => {
	t = await openSandbox({ seed: 'empty' });
});
afterAll(() => t.close());

const create = (body) => t.api.post('/contacts', body);
const CONTACT_KEYS = ['id', 'app_id', 'name', 'phone', 'email', 'company', 'job_title', 'lead_status', 'lead_source', 'address', 'city', 'country', 'created_at', 'updated_at'];

describe('create (POST /contacts)', () => {
	test('201 with exactly the Contact fields; comment is stored but not returned', async () => {
		const res = await create({ name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000', comment: 'vip', lead_status: 'new' });
		expect(res.status).toBe(201);
		expect(Object.keys(res.body).sort()).toEqual(CONTACT_KEYS.slice().sort());
		expect(res.body).toMatchObject({
			id: expect.stringMatching(ID_PATTERN('ct')),
			app_id: t.sb.app_id,
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			phone: '+44 20 7946 0000',
			company: '',
			lead_status: 'new',
			created_at: expect.stringMatching(ISO_PATTERN),
		});
		expect(res.body.updated_at).toBe(res.body.created_at);
		const get = await t.api.get(`/contacts/${res.body.id}`);
		expect(get.body).toEqual(res.body);
		expect(get.body.comment).toBeUndefined();
	});

	test('name is trimmed and must be 1..200 characters after trimming', async () => {
		expect((await create({ name: '  Grace  ' })).body.name).toBe('Grace');
		expect((await create({ name: 'x'.repeat(200) })).status).toBe(201);
		expect((await create({ name: ` ${'x'.repeat(200)} ` })).status).toBe(201);
		for (const name of ['', '   ', 'x'.repeat(201)]) expect((await create({ name })).status).toBe(400);
	});

	test('name is required and must be a string', async () => {
		for (const body of [{}, { name: null }, { name: 5 }, { name: ['a'] }, { email: 'a@b.c' }]) {
			const res = await create(body);
			expect(res.status).toBe(400);
			expect(res.body).toEqual({ error: expect.any(String) });
		}
	});

	test.each([
		['phone', 50],
		['email', 200],
		['company', 200],
		['job_title', 200],
		['address', 500],
		['city', 100],
		['country', 100],
	])('%s: up to %i characters', async (field, max) => {
		expect((await create({ name: 'Limit', [field]: 'a'.repeat(max) })).status).toBe(201);
		const tooLong = await create({ name: 'Limit', [field]: 'a'.repeat(max + 1) });
		expect(tooLong.status).toBe(400);
		expect(tooLong.body.error).toContain(field);
	});

	test('limits count characters (code points), not UTF-16 units', async () => {
		expect((await create({ name: '😀'.repeat(200) })).status).toBe(201);
		expect((await create({ name: '😀'.repeat(201) })).status).toBe(400);
	});

	test.each(['', 'new', 'contacted', 'qualified', 'won', 'lost'])('lead_status %j is accepted', async (status) => {
		const res = await create({ name: 'Lead', lead_status: status });
		expect(res.status).toBe(201);
		expect(res.body.lead_status).toBe(status);
	});

	test.each(['open', 'New', 'customer'])('lead_status %j is refused', async (status) => {
		expect((await create({ name: 'Lead', lead_status: status })).status).toBe(400);
	});

	test('optional fields must be strings', async () => {
		for (const field of ['phone', 'email', 'company', 'lead_source', 'comment']) {
			expect((await create({ name: 'Typed', [field]: 42 })).status).toBe(400);
		}
	});

	test('the body must be a JSON object', async () => {
		for (const raw of ['[]', '"name"', '42', 'null']) {
			const res = await t.api.post('/contacts', undefined, { raw, headers: { 'Content-Type': 'application/json' } });
			expect(res.status).toBe(400);
		}
	});
});

describe('get (GET /contacts/{id})', () => {
	test('unknown id is 404', async () => {
		const res = await t.api.get('/contacts/ct_doesnotexist0000000');
		expect(res.status).toBe(404);
		expect(res.body).toEqual({ error: expect.any(String) });
	});

	test('a contact of another workspace is 404 (isolation)', async () => {
		const mine = (await create({ name: 'Mine' })).body;
		const { app_id } = (await t.control.post('/workspaces', {})).body;
		const { key } = (await t.control.post('/keys', { app_id })).body;
		expect((await t.api.get(`/contacts/${mine.id}`, undefined, { key })).status).toBe(404);
		expect((await t.api.patch(`/contacts/${mine.id}`, { name: 'Stolen' }, { key })).status).toBe(404);
		expect((await t.api.get('/contacts', undefined, { key })).body.total).toBe(0);
		expect((await t.api.get(`/contacts/${mine.id}`)).body.name).toBe('Mine');
	});
});

describe('update (PATCH /contacts/{id})', () => {
	test('200 {"message": "contact updated"}; absent fields unchanged, "" clears, updated_at moves', async () => {
		const created = (await create({ name: 'Linus', email: 'l@example.com', company: 'Kernel', city: 'Portland' })).body;
		const res = await t.api.patch(`/contacts/${created.id}`, { name: 'Linus T', company: '', country: 'USA' });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ message: 'contact updated' });
		const after = (await t.api.get(`/contacts/${created.id}`)).body;
		expect(after).toMatchObject({ name: 'Linus T', email: 'l@example.com', company: '', city: 'Portland', country: 'USA' });
		expect(after.created_at).toBe(created.created_at);
		expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
	});

	test('name is required on update too; the same limits apply', async () => {
		const { id } = (await create({ name: 'Needs name' })).body;
		expect((await t.api.patch(`/contacts/${id}`, { email: 'x@y.z' })).status).toBe(400);
		expect((await t.api.patch(`/contacts/${id}`, { name: 'ok', phone: '1'.repeat(51) })).status).toBe(400);
		expect((await t.api.patch(`/contacts/${id}`, { name: 'ok', lead_status: 'bogus' })).status).toBe(400);
		expect((await t.api.get(`/contacts/${id}`)).body.name).toBe('Needs name');
	});

	test('unknown id is 404', async () => {
		expect((await t.api.patch('/contacts/ct_doesnotexist0000000', { name: 'x' })).status).toBe(404);
	});
});

describe('merge (POST /contacts/merge)', () => {
	test('primary keeps its fields, fills empty ones, takes conversations; secondary is gone', async () => {
		const primary = (await create({ name: 'Primary', email: 'p@example.com', company: '' })).body;
		const secondary = (await create({ name: 'Secondary', email: 's@example.com', company: 'Second Co', phone: '+1 555 0101', comment: 'from s' })).body;
		const channel = (await t.control.post('/channels', { type: 'telegram', name: 'Bot' })).body;
		const conversation = (await t.control.post('/conversations', { channel_id: channel.id, customer_id: secondary.id })).body;
		expect(conversation.customer_id).toBe(secondary.id);

		const res = await t.api.post('/contacts/merge', { primary_id: primary.id, secondary_id: secondary.id });
		expect(res.status).toBe(200);
		expect(res.body.message).toBe('contacts merged');
		expect(res.body.contact).toMatchObject({ id: primary.id, name: 'Primary', email: 'p@example.com', company: 'Second Co', phone: '+1 555 0101' });
		expect(res.body.contact.comment).toBeUndefined();
		expect((await t.api.get(`/contacts/${primary.id}`)).body).toEqual(res.body.contact);
		expect((await t.api.get(`/contacts/${secondary.id}`)).status).toBe(404);
		const conversations = await allPages(t.api, '/conversations');
		expect(conversations.find((c) => c.id === conversation.id).customer_id).toBe(primary.id);
		expect(Date.parse(res.body.contact.updated_at)).toBeGreaterThan(Date.parse(primary.updated_at));
	});

	test('400 when an id is missing, unknown, or both are the same', async () => {
		const a = (await create({ name: 'A' })).body;
		const cases = [
			{},
			{ primary_id: a.id },
			{ secondary_id: a.id },
			{ primary_id: a.id, secondary_id: a.id },
			{ primary_id: a.id, secondary_id: 'ct_unknown000000000000' },
			{ primary_id: 'ct_unknown000000000000', secondary_id: a.id },
			{ primary_id: 1, secondary_id: 2 },
		];
		for (const body of cases) {
			const res = await t.api.post('/contacts/merge', body);
			expect(res.status).toBe(400);
			expect(res.body).toEqual({ error: expect.any(String) });
		}
		expect((await t.api.get(`/contacts/${a.id}`)).status).toBe(200);
	});
});

describe('list: search and lead_status', () => {
	let ids;
	beforeAll(async () => {
		const { app_id } = (await t.control.post('/workspaces', {})).body;
		const { key } = (await t.control.post('/keys', { app_id })).body;
		ids = { key };
		const make = async (body) => (await t.api.post('/contacts', body, { key })).body.id;
		ids.maria = await make({ name: 'María Rossi', email: 'maria@pasta.it', company: 'Pasta Fresca', phone: '+39 (02) 555-1234', lead_status: 'won' });
		ids.john = await make({ name: 'John Smith', email: 'JOHN@EXAMPLE.COM', company: 'Acme Rockets', phone: '020 7946 0018', lead_status: 'new' });
		ids.li = await make({ name: 'Li Wei', email: 'li@wei.cn', company: 'acme labs', phone: '', lead_status: 'new' });
	});
	const search = async (query) => (await t.api.get(`/contacts?${query}`, undefined, { key: ids.key })).body.data.map((c) => c.id).sort();

	test('case-insensitive substring on name, email and company', async () => {
		expect(await search('search=ROSSI')).toEqual([ids.maria]);
		expect(await search('search=example.com')).toEqual([ids.john]);
		expect(await search('search=ACME')).toEqual([ids.john, ids.li].sort());
		expect(await search('search=mar%C3%ADa')).toEqual([ids.maria]);
	});

	test('phone compared with all non-digits removed from both sides', async () => {
		expect(await search('search=025551234')).toEqual([ids.maria]);
		expect(await search(`search=${encodeURIComponent('(555) 12-34')}`)).toEqual([ids.maria]);
		expect(await search('search=7946')).toEqual([ids.john]);
	});

	test('a query without digits does not match every phone', async () => {
		expect(await search('search=%2B')).toEqual([]);
		expect(await search('search=zzz')).toEqual([]);
	});

	test('lead_status filters, alone and with search', async () => {
		expect(await search('lead_status=new')).toEqual([ids.john, ids.li].sort());
		expect(await search('lead_status=new&search=acme%20labs')).toEqual([ids.li]);
		expect(await search('lead_status=lost')).toEqual([]);
	});

	test('search results are paginated with correct totals', async () => {
		const res = await t.api.get('/contacts?search=acme&per_page=1&page=2', undefined, { key: ids.key });
		expect(res.body).toMatchObject({ total: 2, last_page: 2, from: 2, to: 2, has_next: false });
	});
});
