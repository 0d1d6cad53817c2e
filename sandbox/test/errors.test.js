'use strict';
// Every error is JSON {"error": "..."} with the right status, also
// for framework-level failures (bad JSON, unknown routes, methods, sizes).

const net = require('node:net');
const { openSandbox } = require('./helpers');

let t;
beforeAll(async () => {
	t = await openSandbox();
});
afterAll(() => t.close());

/** Asserts the API's error shape: only `error` (plus required_scope on scope 403s). */
function expectErrorBody(res, status) {
	expect(res.status).toBe(status);
	expect(res.headers.get('content-type')).toMatch(/^application\/json/);
	expect(Object.keys(res.body)).toEqual(['error']);
	expect(res.body.error).toMatch(/^[a-z0-9][a-z0-9 _:,./*"'()-]*$/);
}

test('unknown public route: 404 (after authentication)', async () => {
	expectErrorBody(await t.api.get('/nope'), 404);
	expectErrorBody(await t.api.get('/contacts/ct_1/extra'), 404);
	expectErrorBody(await t.api.get('/nope', undefined, { key: null }), 401);
});

test('unknown route outside the API and on the control surface: 404', async () => {
	const origin = t.sb.base_url.replace('/api/public/v1', '');
	for (const url of [`${origin}/`, `${origin}/api/public/v2/me`, `${t.sb.control_url}/nope`]) {
		const res = await fetch(url);
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ error: 'not found' });
	}
});

test('wrong method on an existing path: 405 with Allow', async () => {
	const res = await t.api.put('/contacts', { name: 'x' });
	expectErrorBody(res, 405);
	expect(res.headers.get('allow')).toContain('GET');
	expect(res.headers.get('allow')).toContain('POST');
	expectErrorBody(await t.api.delete('/contacts/ct_x'), 405);
	expectErrorBody(await t.api.post('/me', {}), 405);
});

test('invalid JSON body: 400', async () => {
	for (const raw of ['{', '{"name":', "{'name':'x'}", 'name=x', '\u0000']) {
		expectErrorBody(await t.api.post('/contacts', undefined, { raw, headers: { 'Content-Type': 'application/json' } }), 400);
	}
});

test('a JSON body that is not an object: 400', async () => {
	for (const raw of ['[]', '1', '"x"', 'true', 'null']) {
		expectErrorBody(await t.api.post('/messages/text', undefined, { raw, headers: { 'Content-Type': 'application/json' } }), 400);
	}
});

test('an empty body with a JSON content type: 400 on writes that need a body, fine on DELETE', async () => {
	expectErrorBody(await t.api.post('/contacts', undefined, { raw: '', headers: { 'Content-Type': 'application/json' } }), 400);
	const hook = (await t.api.post('/webhooks', { url: 'http://127.0.0.1:9/h', events: ['*'] })).body;
	const res = await t.api.delete(`/webhooks/${hook.id}`, undefined, { raw: '', headers: { 'Content-Type': 'application/json' } });
	expect(res.status).toBe(204);
});

test('wrong field types: 400', async () => {
	expectErrorBody(await t.api.post('/contacts', { name: { first: 'a' } }), 400);
	expectErrorBody(await t.api.post('/webhooks', { url: ['http://x'], events: ['*'] }), 400);
	expectErrorBody(await t.api.post('/contacts/merge', { primary_id: [], secondary_id: {} }), 400);
});

test('unsupported content type: 415; text/plain is not JSON: 400', async () => {
	expectErrorBody(await t.api.post('/contacts', undefined, { raw: '<x/>', headers: { 'Content-Type': 'application/xml' } }), 415);
	expectErrorBody(await t.api.post('/contacts', undefined, { raw: '{"name":"x"}', headers: { 'Content-Type': 'text/plain' } }), 400);
});

test('a huge JSON body: 413', async () => {
	const raw = JSON.stringify({ name: 'x', comment: 'y'.repeat(2 * 1024 * 1024) });
	expectErrorBody(await t.api.post('/contacts', undefined, { raw, headers: { 'Content-Type': 'application/json' } }), 413);
	expect((await t.api.get('/me')).status).toBe(200);
});

test('a broken multipart body: 400', async () => {
	const res = await t.api.post('/messages/image', undefined, {
		raw: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated',
		headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' },
	});
	expect(res.status).toBeGreaterThanOrEqual(400);
	expect(res.status).toBeLessThan(500);
	expect(res.body).toEqual({ error: expect.any(String) });
});

test('malformed HTTP gets a JSON 400 and the server keeps serving', async () => {
	const { port } = t.sb;
	const answer = await new Promise((resolve, reject) => {
		const socket = net.connect(port, '127.0.0.1', () => socket.write('GARBAGE / HTTP/9\r\n\r\n'));
		let data = '';
		socket.on('data', (chunk) => (data += chunk));
		socket.on('end', () => resolve(data));
		socket.on('error', reject);
		socket.setTimeout(2000, () => socket.destroy(new Error('timeout')));
	});
	expect(answer).toMatch(/^HTTP\/1\.1 400/);
	expect(answer).toContain('{"error":"bad request"}');
	expect((await t.api.get('/me')).status).toBe(200);
});

test('bad percent-encoding in the path: 4xx JSON', async () => {
	const res = await t.api.get('/contacts/%E0%A4%A');
	expect(res.status).toBeGreaterThanOrEqual(400);
	expect(res.status).toBeLessThan(500);
	expect(res.body).toEqual({ error: expect.any(String) });
});

test('no error ever has Fastify\'s {statusCode, error, message} shape', async () => {
	const responses = [
		await t.api.post('/contacts', undefined, { raw: '{', headers: { 'Content-Type': 'application/json' } }),
		await t.api.get('/nope'),
		await t.api.patch('/me', {}),
		await t.api.get('/contacts?page=0'),
	];
	for (const res of responses) {
		expect(res.body.statusCode).toBeUndefined();
		expect(res.body.message).toBeUndefined();
	}
});
