'use strict';
// Control PUT/DELETE /faults and GET/DELETE /stats: injected latency,
// errors and resets on the public API only, "after the handler" faults on
// writes, and request statistics.

const { openSandbox, allPages, sleep } = require('./helpers');

let t;
beforeAll(async () => {
	t = await openSandbox();
});
afterAll(() => t.close());
afterEach(async () => {
	await t.control.delete('/faults');
	await t.control.put('/faults', { rate_limit_per_second: 0 });
});

const DEFAULTS = {
	latency_ms: 0,
	jitter_ms: 0,
	error_rate: 0,
	error_status: 503,
	reset_rate: 0,
	rate_limit_per_second: 60,
	webhook_fail_rate: 0,
	webhook_duplicate_rate: 0,
	retry_schedule_ms: [5000, 30000, 120000, 600000, 1800000, 3600000],
};

describe('settings', () => {
	test('DELETE restores the defaults', async () => {
		const res = await t.control.delete('/faults');
		expect(res.status).toBe(200);
		expect(res.body).toEqual(DEFAULTS);
		expect((await t.control.get('/faults')).body).toEqual(DEFAULTS);
	});

	test('PUT returns the active settings and keeps omitted ones', async () => {
		const first = await t.control.put('/faults', { latency_ms: 5, error_status: 502 });
		expect(first.status).toBe(200);
		expect(first.body).toMatchObject({ latency_ms: 5, error_status: 502, rate_limit_per_second: 0 });
		const second = await t.control.put('/faults', { jitter_ms: 3, retry_schedule_ms: [10, 20] });
		expect(second.body).toMatchObject({ latency_ms: 5, error_status: 502, jitter_ms: 3, retry_schedule_ms: [10, 20] });
	});

	test.each([
		[{ error_rate: 1.5 }],
		[{ error_rate: -0.1 }],
		[{ reset_rate: 'often' }],
		[{ error_status: 418 }],
		[{ latency_ms: -5 }],
		[{ rate_limit_per_second: -1 }],
		[{ retry_schedule_ms: 'fast' }],
		[{ retry_schedule_ms: [10, -1] }],
		[{ webhook_fail_rate: 2 }],
		[{ webhook_duplicate_rate: null }],
		[{ chaos_monkey: true }],
	])('400 for %j, and nothing changes', async (body) => {
		const before = (await t.control.get('/faults')).body;
		const res = await t.control.put('/faults', { latency_ms: 7, ...body });
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.any(String) });
		expect((await t.control.get('/faults')).body).toEqual(before);
	});
});

describe('injection', () => {
	test('latency_ms delays public requests (429s included), not control requests', async () => {
		await t.control.put('/faults', { latency_ms: 120 });
		let started = Date.now();
		expect((await t.api.get('/me')).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(110);
		started = Date.now();
		expect((await t.api.get('/me', undefined, { key: null })).status).toBe(401);
		expect(Date.now() - started).toBeGreaterThanOrEqual(110);
		await t.control.put('/faults', { rate_limit_per_second: 0.2 });
		const key = (await t.control.post('/keys', {})).body.key;
		await t.api.get('/me', undefined, { key });
		started = Date.now();
		expect((await t.api.get('/me', undefined, { key })).status).toBe(429);
		expect(Date.now() - started).toBeGreaterThanOrEqual(110);
		// A control request under 3 s of injected latency: had it been delayed
		// it would take 3 s at least, so the bound leaves seconds of slack.
		await t.control.put('/faults', { latency_ms: 3000 });
		started = Date.now();
		await t.control.get('/stats');
		expect(Date.now() - started).toBeLessThan(3000);
	});

	test('jitter_ms adds up to that much on top', async () => {
		await t.control.put('/faults', { latency_ms: 20, jitter_ms: 400 });
		const times = [];
		for (let i = 0; i < 8; i++) {
			const started = Date.now();
			await t.api.get('/me');
			times.push(Date.now() - started);
		}
		expect(Math.min(...times)).toBeGreaterThanOrEqual(19);
		// Eight draws all under a quarter of the jitter: odds of 1 in 65,536.
		expect(Math.max(...times)).toBeGreaterThan(120);
		// Never more than latency + jitter (plus seconds of slack for a busy machine).
		expect(Math.max(...times)).toBeLessThan(20 + 400 + 2000);
	});

	test.each([500, 502, 504])('error_rate 1 with error_status %i', async (status) => {
		await t.control.put('/faults', { error_rate: 1, error_status: status });
		const res = await t.api.get('/channels');
		expect(res.status).toBe(status);
		expect(res.body).toEqual({ error: expect.any(String) });
		expect(res.headers.get('retry-after')).toBeNull();
	});

	test('503 carries Retry-After: 1', async () => {
		await t.control.put('/faults', { error_rate: 1, error_status: 503 });
		const res = await t.api.get('/contacts');
		expect(res.status).toBe(503);
		expect(res.headers.get('retry-after')).toBe('1');
	});

	test('error_rate 0.5 fails about half the requests', async () => {
		await t.control.put('/faults', { error_rate: 0.5 });
		let failed = 0;
		for (let i = 0; i < 80; i++) if ((await t.api.get('/me')).status === 503) failed++;
		expect(failed).toBeGreaterThan(15);
		expect(failed).toBeLessThan(65);
	});

	test('reset_rate 1 drops the connection without an answer', async () => {
		await t.control.put('/faults', { reset_rate: 1 });
		await expect(t.api.get('/me')).rejects.toThrow();
		await t.control.delete('/faults');
		await t.control.put('/faults', { rate_limit_per_second: 0 });
		expect((await t.api.get('/me')).status).toBe(200);
	});

	test('faults never touch the control surface', async () => {
		await t.control.put('/faults', { error_rate: 1, reset_rate: 0 });
		for (let i = 0; i < 5; i++) expect((await t.control.get('/stats')).status).toBe(200);
		await t.control.put('/faults', { error_rate: 0, reset_rate: 1 });
		expect((await t.control.get('/faults')).status).toBe(200);
		expect((await t.control.post('/users', { name: 'Still here' })).status).toBe(200);
	});

	test('writes: some injected errors come after the change happened', async () => {
		await t.control.put('/faults', { error_rate: 1 });
		const names = Array.from({ length: 40 }, (_, i) => `Ghost ${i}`);
		for (const name of names) expect((await t.api.post('/contacts', { name })).status).toBe(503);
		await t.control.delete('/faults');
		await t.control.put('/faults', { rate_limit_per_second: 0 });
		const stored = (await allPages(t.api, '/contacts')).filter((c) => names.includes(c.name));
		// A coin flip per write: all on one side would be 2 * 0.5^40.
		expect(stored.length).toBeGreaterThan(0);
		expect(stored.length).toBeLessThan(names.length);
	});

	test('retried sends with one client_request_id each create exactly one message', async () => {
		const channel = (await t.control.post('/channels', { type: 'livechat', name: 'Retry chat' })).body;
		const conversation = (await t.control.post('/conversations', { channel_id: channel.id })).body;
		await t.control.put('/faults', { error_rate: 0.4, reset_rate: 0.2 });
		for (let n = 0; n < 8; n++) {
			const body = { client_request_id: `retry-${n}`, conversation_id: conversation.id, text: `message ${n}` };
			let ok = null;
			for (let attempt = 0; attempt < 60 && !ok; attempt++) {
				try {
					const res = await t.api.post('/messages/text', body);
					if (res.status === 200) ok = res.body.message;
				} catch {
					// dropped connection: retry
				}
			}
			expect(ok).not.toBeNull();
		}
		await t.control.delete('/faults');
		await t.control.put('/faults', { rate_limit_per_second: 0 });
		const messages = await allPages(t.api, `/messages?conversation_id=${conversation.id}`);
		expect(messages.map((m) => m.content).sort()).toEqual(Array.from({ length: 8 }, (_, n) => `message ${n}`).sort());
	});
});

describe('stats', () => {
	test('counts public requests by status and by route pattern', async () => {
		const reset = await t.control.delete('/stats');
		expect(reset.body).toEqual({ requests: 0, by_status: {}, by_route: {}, max_per_second: 0 });
		const contact = (await t.api.get('/contacts?per_page=1')).body.data[0];
		await t.api.get(`/contacts/${contact.id}`);
		await t.api.get('/contacts/ct_unknown');
		await t.api.patch(`/contacts/${contact.id}`, { name: contact.name });
		await t.api.get('/me', undefined, { key: null });
		await t.control.get('/faults'); // not counted
		const stats = (await t.control.get('/stats')).body;
		expect(stats.requests).toBe(5);
		expect(stats.by_status).toEqual({ 200: 3, 404: 1, 401: 1 });
		expect(stats.by_route).toEqual({ 'GET /contacts': 1, 'GET /contacts/{id}': 2, 'PATCH /contacts/{id}': 1, 'GET /me': 1 });
	});

	test('injected errors and resets are counted ("reset" for dropped connections)', async () => {
		await t.control.delete('/stats');
		await t.control.put('/faults', { reset_rate: 1 });
		await t.api.get('/channels').catch(() => undefined);
		await t.control.put('/faults', { reset_rate: 0, error_rate: 1, error_status: 502 });
		await t.api.get('/channels');
		const stats = (await t.control.get('/stats')).body;
		expect(stats.by_status).toEqual({ reset: 1, 502: 1 });
		expect(stats.by_route).toEqual({ 'GET /channels': 2 });
	});

	test('max_per_second is the busiest one-second window', async () => {
		await t.control.delete('/stats');
		await Promise.all(Array.from({ length: 25 }, () => t.api.get('/me')));
		await sleep(1100);
		await Promise.all(Array.from({ length: 5 }, () => t.api.get('/me')));
		const stats = (await t.control.get('/stats')).body;
		expect(stats.requests).toBe(30);
		expect(stats.max_per_second).toBe(25);
	});

	test('unknown routes are counted under "<METHOD> (unmatched)"', async () => {
		await t.control.delete('/stats');
		await t.api.get('/nope/123');
		expect((await t.control.get('/stats')).body.by_route).toEqual({ 'GET (unmatched)': 1 });
	});
});
