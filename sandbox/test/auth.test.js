'use strict';
// Authentication: key format, lookup, revocation, expiry, scopes, IP
// allowlist.

const { openSandbox, ID_PATTERN, ISO_PATTERN } = require('./helpers');

/** Every public route with the scope it needs. */
const SCOPED_ROUTES = [
	['GET', '/conversations', 'conversations:read'],
	['GET', '/messages', 'messages:read'],
	['POST', '/messages/text', 'messages:write'],
	['POST', '/messages/image', 'messages:write'],
	['POST', '/messages/audio', 'messages:write'],
	['POST', '/messages/video', 'messages:write'],
	['POST', '/messages/document', 'messages:write'],
	['POST', '/messages/location', 'messages:write'],
	['GET', '/contacts', 'customers:read'],
	['POST', '/contacts', 'customers:write'],
	['GET', '/contacts/ct_00000000000000000000', 'customers:read'],
	['PATCH', '/contacts/ct_00000000000000000000', 'customers:write'],
	['POST', '/contacts/merge', 'customers:write'],
	['GET', '/channels', 'channels:read'],
	['GET', '/webhooks', 'webhooks:read'],
	['POST', '/webhooks', 'webhooks:write'],
	['GET', '/webhooks/wh_00000000000000000000', 'webhooks:read'],
	['DELETE', '/webhooks/wh_00000000000000000000', 'webhooks:write'],
];

let t;
beforeAll(async () => {
	t = await openSandbox();
});
afterAll(() => t.close());

async function newKey(options = {}) {
	const res = await t.control.post('/keys', { mode: 'test', ...options });
	expect(res.status).toBe(200);
	return res.body;
}

describe('identity (GET /me)', () => {
	test('reports the key: app_id, ids, mode, every scope, created_at', async () => {
		const res = await t.api.get('/me');
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			app_id: t.sb.app_id,
			key_id: expect.any(String),
			name: expect.any(String),
			public_id: expect.any(String),
			mode: 'test',
			scopes: expect.arrayContaining([
				'conversations:read',
				'messages:read',
				'messages:write',
				'customers:read',
				'customers:write',
				'channels:read',
				'webhooks:read',
				'webhooks:write',
			]),
			created_at: expect.stringMatching(ISO_PATTERN),
		});
		expect(res.body.scopes).toHaveLength(8);
		expect(t.sb.key).toContain(`_${res.body.public_id}.`);
	});

	test('the live key reports mode live and the same workspace', async () => {
		const res = await t.api.get('/me', undefined, { key: t.sb.live_key });
		expect(res.status).toBe(200);
		expect(res.body.mode).toBe('live');
		expect(res.body.app_id).toBe(t.sb.app_id);
		expect(t.sb.live_key).toMatch(/^svc_live_/);
		expect(t.sb.key).toMatch(/^svc_test_/);
	});

	test('needs no scope beyond a valid key', async () => {
		const { key } = await newKey({ scopes: [] });
		const res = await t.api.get('/me', undefined, { key });
		expect(res.status).toBe(200);
		expect(res.body.scopes).toEqual([]);
	});

	test('a key created through the control surface is usable at once', async () => {
		const { key, key_id, app_id } = await newKey({ name: 'ci key', mode: 'live' });
		expect(key).toMatch(/^svc_live_[A-Za-z0-9]{8,64}\.[A-Za-z0-9_-]{16,128}$/);
		expect(app_id).toBe(t.sb.app_id);
		const me = await t.api.get('/me', undefined, { key });
		expect(me.body).toMatchObject({ key_id, name: 'ci key', mode: 'live' });
	});
});

describe('401: missing, malformed, unknown, revoked, expired', () => {
	const expect401 = (res) => {
		expect(res.status).toBe(401);
		expect(res.body).toEqual({ error: expect.any(String) });
		expect(res.body.error).toMatch(/^[a-z0-9 :,._-]+$/);
	};

	test('missing Authorization header', async () => {
		expect401(await t.api.get('/me', undefined, { key: null }));
	});

	test.each([
		['no bearer scheme', (k) => k],
		['basic scheme', (k) => `Basic ${k}`],
		['bearer without key', () => 'Bearer '],
		['wrong prefix', (k) => `Bearer ${k.replace('svc_test_', 'sk_test_')}`],
		['unknown mode', (k) => `Bearer ${k.replace('svc_test_', 'svc_prod_')}`],
		['no dot', (k) => `Bearer ${k.replace('.', '')}`],
		['short id', () => 'Bearer svc_test_abc.0123456789abcdefghij'],
		['short secret', () => 'Bearer svc_test_abcdefgh.short'],
		['bad characters', () => 'Bearer svc_test_abcd$fgh.0123456789abcdefghij'],
	])('malformed key: %s', async (_label, header) => {
		expect401(await t.api.get('/me', undefined, { key: null, headers: { Authorization: header(t.sb.key) } }));
	});

	test('well-formed but unknown key', async () => {
		expect401(await t.api.get('/me', undefined, { key: 'svc_test_abcdefgh.0123456789abcdefghij' }));
	});

	test('right id, wrong secret', async () => {
		const forged = t.sb.key.replace(/\.[^.]+$/, '.AAAAAAAAAAAAAAAAAAAAAAAA');
		expect401(await t.api.get('/me', undefined, { key: forged }));
	});

	test('right id and secret, wrong mode prefix', async () => {
		expect401(await t.api.get('/me', undefined, { key: t.sb.key.replace('svc_test_', 'svc_live_') }));
	});

	test('revoked key: works before, 401 after; revoking an unknown key is 404', async () => {
		const { key, key_id } = await newKey();
		expect((await t.api.get('/conversations', undefined, { key })).status).toBe(200);
		const revoke = await t.control.post(`/keys/${key_id}/revoke`);
		expect(revoke.status).toBe(204);
		expect401(await t.api.get('/conversations', undefined, { key }));
		expect((await t.control.post('/keys/key_nope/revoke')).status).toBe(404);
	});

	test('expired key (expires_at in the past) is 401, a future expiry works', async () => {
		const past = await newKey({ expires_at: new Date(Date.now() - 1000).toISOString() });
		expect401(await t.api.get('/me', undefined, { key: past.key }));
		const future = await newKey({ expires_at: new Date(Date.now() + 3_600_000).toISOString() });
		expect((await t.api.get('/me', undefined, { key: future.key })).status).toBe(200);
	});

	test('a key of another workspace is valid but sees only its workspace', async () => {
		const { app_id } = (await t.control.post('/workspaces', {})).body;
		const { key } = await newKey({ app_id });
		const me = await t.api.get('/me', undefined, { key });
		expect(me.body.app_id).toBe(app_id);
	});
});

describe('403: IP allowlist', () => {
	test('a request from outside the allowlist: exact body, no required_scope', async () => {
		const { key } = await newKey({ ip_allowlist: ['10.1.2.3', '192.168.0.0/16'] });
		const res = await t.api.get('/contacts', undefined, { key });
		expect(res.status).toBe(403);
		expect(res.body).toEqual({ error: 'ip address not allowed' });
	});

	test.each([[['127.0.0.1']], [['::ffff:127.0.0.1']], [['127.0.0.0/8']], [['10.0.0.1', '127.0.0.1']]])(
		'127.0.0.1 is allowed by %j',
		async (allowlist) => {
			const { key } = await newKey({ ip_allowlist: allowlist });
			expect((await t.api.get('/contacts', undefined, { key })).status).toBe(200);
		},
	);

	test('/me is also refused outside the allowlist', async () => {
		const { key } = await newKey({ ip_allowlist: ['10.9.9.9'] });
		expect((await t.api.get('/me', undefined, { key })).status).toBe(403);
	});

	test('the allowlist is checked before scopes', async () => {
		const { key } = await newKey({ ip_allowlist: ['10.9.9.9'], scopes: [] });
		const res = await t.api.get('/contacts', undefined, { key });
		expect(res.body).toEqual({ error: 'ip address not allowed' });
	});
});

describe('403: scopes', () => {
	test.each(SCOPED_ROUTES)('%s %s needs %s', async (method, path, scope) => {
		const others = SCOPED_ROUTES.map((route) => route[2]).filter((s) => s !== scope);
		const { key } = await newKey({ scopes: [...new Set(others)] });
		const res = await t.api[method.toLowerCase()](path, method === 'GET' || method === 'DELETE' ? undefined : {}, { key });
		expect(res.status).toBe(403);
		expect(res.body).toEqual({ error: 'insufficient scope', required_scope: scope });
	});

	test('holding exactly the scope is enough', async () => {
		const { key } = await newKey({ scopes: ['channels:read'] });
		const res = await t.api.get('/channels', undefined, { key });
		expect(res.status).toBe(200);
		expect((await t.api.get('/contacts', undefined, { key })).body.required_scope).toBe('customers:read');
	});

	test('authentication comes before scopes: a bad key is 401 even on a scoped route', async () => {
		expect((await t.api.get('/channels', undefined, { key: 'svc_test_abcdefgh.0123456789abcdefghij' })).status).toBe(401);
	});

	test('media and location sends need messages:write', async () => {
		const { key } = await newKey({ scopes: ['messages:read'] });
		const res = await t.api.post('/messages/location', { latitude: 1, longitude: 2 }, { key });
		expect(res.body).toEqual({ error: 'insufficient scope', required_scope: 'messages:write' });
	});
});

describe('identifiers', () => {
	test('keys and ids follow the sandbox formats', async () => {
		const me = await t.api.get('/me');
		expect(me.body.key_id).toMatch(ID_PATTERN('key'));
		const channel = (await t.api.get('/channels?per_page=1')).body.data[0];
		expect(channel.id).toMatch(ID_PATTERN('ch'));
	});
});
