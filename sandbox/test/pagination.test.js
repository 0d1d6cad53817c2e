'use strict';
// The pagination envelope, defaults, validation and orders of
// every list endpoint, and delta sync on conversations.

const { openSandbox, allPages, ISO_PATTERN } = require('./helpers');

let t;
beforeAll(async () => {
	t = await openSandbox();
	const hook = await t.api.post('/webhooks', { url: 'http://127.0.0.1:9/x', events: ['*'] });
	expect(hook.status).toBe(201);
});
afterAll(() => t.close());

const LIST_ROUTES = ['/contacts', '/conversations', '/messages', '/channels', '/webhooks'];

/** Newest first: (timestamp desc, id desc). */
function expectOrdered(items, field) {
	for (let i = 1; i < items.length; i++) {
		const a = items[i - 1];
		const b = items[i];
		const ta = Date.parse(a[field]);
		const tb = Date.parse(b[field]);
		expect(ta >= tb).toBe(true);
		if (ta === tb) expect(a.id > b.id).toBe(true);
	}
}

describe('envelope', () => {
	test('default per_page is 20 with 1-based from/to', async () => {
		const res = await t.api.get('/contacts');
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			current_page: 1,
			from: 1,
			to: 20,
			per_page: 20,
			last_page: 3,
			total: 50,
			has_next: true,
			data: expect.any(Array),
		});
		expect(res.body.data).toHaveLength(20);
	});

	test('the last page is partial and has_next is false', async () => {
		const res = await t.api.get('/contacts?page=3');
		expect(res.body).toMatchObject({ current_page: 3, from: 41, to: 50, last_page: 3, total: 50, has_next: false });
		expect(res.body.data).toHaveLength(10);
	});

	test('a page past the last is 200, empty, from/to null, has_next false', async () => {
		const res = await t.api.get('/contacts?page=9&per_page=20');
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ current_page: 9, from: null, to: null, per_page: 20, last_page: 3, total: 50, has_next: false, data: [] });
	});

	test('an empty list has last_page 1 and null from/to', async () => {
		const { app_id } = (await t.control.post('/workspaces', {})).body;
		const { key } = (await t.control.post('/keys', { app_id })).body;
		for (const path of LIST_ROUTES) {
			const res = await t.api.get(path, undefined, { key });
			expect(res.body).toEqual({ current_page: 1, from: null, to: null, per_page: 20, last_page: 1, total: 0, has_next: false, data: [] });
		}
	});

	test('per_page 1 and 500 are accepted', async () => {
		expect((await t.api.get('/channels?per_page=1')).body).toMatchObject({ per_page: 1, last_page: 7, to: 1 });
		expect((await t.api.get('/messages?per_page=500')).body).toMatchObject({ per_page: 500, last_page: 1, total: 165 });
	});

	test('paging through every list returns each id once and all of them', async () => {
		for (const path of LIST_ROUTES) {
			const first = await t.api.get(`${path}?per_page=7`);
			const items = [];
			for (let page = 1; page <= first.body.last_page; page++) {
				items.push(...(await t.api.get(`${path}?per_page=7&page=${page}`)).body.data);
			}
			expect(items).toHaveLength(first.body.total);
			expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
		}
	});
});

describe('validation: 400 with an error body', () => {
	const bad = [
		'page=0',
		'page=-1',
		'page=1.5',
		'page=abc',
		'page=',
		'page=1e2',
		'per_page=0',
		'per_page=501',
		'per_page=2.5',
		'per_page=x',
		'per_page=',
		'page=1&page=2',
	];
	test.each(LIST_ROUTES.flatMap((path) => bad.map((query) => [path, query])))('GET %s?%s', async (path, query) => {
		const res = await t.api.get(`${path}?${query}`);
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.any(String) });
	});

	test.each(['unknown', 'NEW', 'won,lost'])('unknown lead_status %s', async (status) => {
		const res = await t.api.get(`/contacts?lead_status=${status}`);
		expect(res.status).toBe(400);
	});

	test.each(['-1', '1.5', 'yesterday', '', '2026-01-01'])('invalid last_updated_at %j', async (value) => {
		const res = await t.api.get(`/conversations?last_updated_at=${value}`);
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.any(String) });
	});

	test('unknown query parameters are ignored', async () => {
		expect((await t.api.get('/channels?foo=bar')).status).toBe(200);
	});
});

describe('orders', () => {
	test('contacts: created_at desc, then id desc', async () => {
		await t.control.post('/bulk', { contacts: 600 });
		const items = await allPages(t.api, '/contacts');
		expect(items.length).toBe(650);
		expectOrdered(items, 'created_at');
	});

	test('channels: created_at desc', async () => {
		expectOrdered(await allPages(t.api, '/channels'), 'created_at');
	});

	test('messages: created_at desc, then id desc', async () => {
		expectOrdered(await allPages(t.api, '/messages'), 'created_at');
	});

	test('conversations: updated_at desc, newest activity first', async () => {
		const before = await allPages(t.api, '/conversations');
		expectOrdered(before, 'updated_at');
		const oldest = before[before.length - 1];
		const send = await t.api.post('/messages/text', { client_request_id: 'order-1', conversation_id: oldest.id, text: 'bump' });
		expect(send.status).toBe(200);
		const after = await allPages(t.api, '/conversations');
		expect(after[0].id).toBe(oldest.id);
		expect(Date.parse(after[0].updated_at)).toBeGreaterThan(Date.parse(oldest.updated_at));
		expectOrdered(after, 'updated_at');
	});

	test('timestamps are ISO 8601', async () => {
		const item = (await t.api.get('/conversations?per_page=1')).body.data[0];
		expect(item.created_at).toMatch(ISO_PATTERN);
		expect(item.updated_at).toMatch(ISO_PATTERN);
	});
});

describe('delta sync: last_updated_at (seconds, updated_at >= value)', () => {
	test('0 returns everything, a future time nothing', async () => {
		expect((await t.api.get('/conversations?last_updated_at=0')).body.total).toBe(30);
		const future = Math.floor(Date.now() / 1000) + 3600;
		expect((await t.api.get(`/conversations?last_updated_at=${future}`)).body).toMatchObject({ total: 0, data: [] });
	});

	test('every cut point returns exactly the conversations updated at or after it', async () => {
		const all = await allPages(t.api, '/conversations');
		for (const pick of [0, 5, 17, 29]) {
			const since = Math.floor(Date.parse(all[pick].updated_at) / 1000);
			const expected = all.filter((c) => Date.parse(c.updated_at) >= since * 1000).map((c) => c.id);
			const got = await allPages(t.api, `/conversations?last_updated_at=${since}`);
			expect(got.map((c) => c.id)).toEqual(expected);
			expect(got.length).toBeGreaterThan(pick);
		}
	});

	test('a conversation with new activity shows up in the next delta', async () => {
		const since = Math.floor(Date.now() / 1000);
		const target = (await t.api.get('/conversations?page=2&per_page=5')).body.data[0];
		await t.control.post('/inbound', { conversation_id: target.id, text: 'hello again' });
		const delta = await t.api.get(`/conversations?last_updated_at=${since}`);
		expect(delta.body.data.map((c) => c.id)).toContain(target.id);
		expect(delta.body.data[0].id).toBe(target.id);
	});
});
