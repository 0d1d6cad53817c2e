'use strict';
// Robustness: a bounded number of random and garbage requests (seeded, so a
// failure can be replayed) to every route. Every answer must be a success or
// a 4xx with an `{error}` JSON body, never a 5xx or a dropped connection, and
// the server must still answer afterwards.

const { openSandbox, request } = require('./helpers');
const { createPrng } = require('../prng');

const SEED = 1234567;
const REQUESTS_PER_ROUTE = 18;

const PUBLIC_ROUTES = [
	['GET', '/me'],
	['GET', '/conversations'],
	['GET', '/messages'],
	['POST', '/messages/text'],
	['POST', '/messages/image'],
	['POST', '/messages/audio'],
	['POST', '/messages/video'],
	['POST', '/messages/document'],
	['POST', '/messages/location'],
	['GET', '/contacts'],
	['POST', '/contacts'],
	['GET', '/contacts/{contact}'],
	['PATCH', '/contacts/{contact}'],
	['POST', '/contacts/merge'],
	['GET', '/channels'],
	['GET', '/webhooks'],
	['POST', '/webhooks'],
	['GET', '/webhooks/{webhook}'],
	['DELETE', '/webhooks/{webhook}'],
];
// /faults and /bulk are left out: random but valid settings could slow the
// run down (latency) or allocate a lot (bulk) without testing robustness.
const CONTROL_ROUTES = [
	['POST', '/workspaces'],
	['POST', '/keys'],
	['POST', '/users'],
	['POST', '/channels'],
	['POST', '/conversations'],
	['POST', '/inbound'],
	['GET', '/messages/{message}'],
	['GET', '/deliveries'],
	['GET', '/workspaces/{app}'],
];

const FIELD_NAMES = [
	'name', 'phone', 'email', 'company', 'lead_status', 'comment', 'text', 'client_request_id', 'conversation_id', 'as_system',
	'from_user_id', 'reply_to_message_id', 'latitude', 'longitude', 'primary_id', 'secondary_id', 'url', 'events', 'description',
	'app_id', 'mode', 'scopes', 'ip_allowlist', 'expires_at', 'type', 'is_active', 'channel_id', 'customer_id', 'status',
	'__proto__', 'constructor', '', 'page',
];
const QUERY_NAMES = ['page', 'per_page', 'search', 'lead_status', 'last_updated_at', 'conversation_id', 'message_session_id', 'event_id', 'x'];

function generators(prng, ids) {
	const strings = () =>
		prng.pick([
			'', ' ', 'a', 'new', 'true', '*', '-1', '0', '1.5', '1e309', 'NaN', '😀'.repeat(prng.int(1, 5)), 'x'.repeat(prng.int(100, 5000)),
			'http://127.0.0.1:9/fuzz', '/relative', 'javascript:alert(1)', '\u0000\u0001', '../../etc/passwd', '%00', '<script>',
			ids.conversation, ids.contact, ids.user, ids.channel, ids.message, 'conv_00000000000000000000', '2026-01-01T00:00:00Z',
		]);
	const value = (depth = 0) => {
		switch (prng.int(0, depth > 2 ? 4 : 7)) {
			case 0: return strings();
			case 1: return prng.pick([0, -1, 1, 91, 181, 3.14, -0.0001, 1e21, 2 ** 53 + 1]);
			case 2: return prng.pick([true, false]);
			case 3: return null;
			case 4: return strings();
			case 5: return Array.from({ length: prng.int(0, 3) }, () => value(depth + 1));
			case 6: return object(depth + 1);
			default: return ['*', 'message.created'];
		}
	};
	const object = (depth = 0) => {
		const out = {};
		for (let i = prng.int(0, 6); i > 0; i--) out[prng.pick(FIELD_NAMES)] = value(depth);
		return out;
	};
	const garbage = () =>
		prng.pick(['{', '}', '[1,2', '{"name":}', 'null', '"str"', '12', '{"a":1}{"b":2}', '\u00ff\u00fe', '{"name": "x" // c\n}', 'name=x&y=z', '']);
	const query = () => {
		const parts = [];
		for (let i = prng.int(0, 4); i > 0; i--) {
			const raw = String(prng.chance(0.5) ? value(3) : strings());
			parts.push(`${prng.pick(QUERY_NAMES)}=${prng.chance(0.8) ? encodeURIComponent(raw) : raw.replace(/[#\s]/g, '')}`);
		}
		return parts.length ? `?${parts.join('&')}` : '';
	};
	return { value, object, garbage, query };
}

/** One random request: JSON object, any JSON, garbage text, multipart, or no body. */
function randomBody(prng, gen) {
	switch (prng.int(0, 5)) {
		case 0:
		case 1:
			return { body: JSON.stringify(gen.object()), type: 'application/json' };
		case 2:
			return { body: JSON.stringify(gen.value()), type: 'application/json' };
		case 3:
			return { body: gen.garbage(), type: prng.pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/xml']) };
		case 4: {
			const form = new FormData();
			for (let i = prng.int(0, 5); i > 0; i--) form.set(prng.pick(FIELD_NAMES) || 'x', String(gen.value(3)));
			if (prng.chance(0.6)) {
				form.set(prng.pick(['file', 'file', 'other']), new Blob([Buffer.alloc(prng.int(0, 2048), 7)], { type: prng.pick(['image/png', 'audio/ogg', 'text/plain', '']) }), prng.pick(['a.png', '', 'x']));
			}
			return { body: form, type: null };
		}
		default:
			return { body: undefined, type: prng.pick([null, 'application/json']) };
	}
}

let t;
let ids;
beforeAll(async () => {
	t = await openSandbox();
	const conversation = (await t.api.get('/conversations?per_page=1')).body.data[0];
	const message = (await t.api.get('/messages?per_page=1')).body.data[0];
	const info = (await t.control.get(`/workspaces/${t.sb.app_id}`)).body;
	const webhook = (await t.api.post('/webhooks', { url: 'http://127.0.0.1:9/fuzz', events: ['*'] })).body;
	ids = {
		conversation: conversation.id,
		contact: conversation.customer_id,
		channel: conversation.channel_id,
		message: message.id,
		user: info.users[1].id,
		webhook: webhook.id,
		app: t.sb.app_id,
	};
});
afterAll(() => t.close());

function expand(path, prng) {
	return path
		.replace('{contact}', prng.chance(0.5) ? ids.contact : encodeURIComponent(String(prng.pick(['ct_x', '%', '..', '😀', ids.message]))))
		.replace('{webhook}', prng.chance(0.5) ? ids.webhook : 'wh_unknown')
		.replace('{message}', prng.chance(0.5) ? ids.message : 'msg_unknown')
		.replace('{app}', prng.chance(0.5) ? ids.app : 'app_unknown');
}

async function fire(base, method, path, prng, gen, headers) {
	// fetch sends no body with GET; DELETE gets one now and then.
	const { body, type } =
		method === 'GET' ? { body: undefined, type: null } : method === 'DELETE' && prng.chance(0.7) ? { body: undefined, type: null } : randomBody(prng, gen);
	const url = `${base}${expand(path, prng)}${gen.query()}`;
	const allHeaders = { ...headers };
	if (type) allHeaders['Content-Type'] = type;
	const res = await request(url, { method, headers: allHeaders, raw: body });
	return { res, description: `${method} ${url} ${typeof body === 'string' ? body.slice(0, 80) : body ? '[form]' : ''}` };
}

function check({ res, description }) {
	const ok = res.status >= 200 && res.status < 300;
	const clientError = res.status >= 400 && res.status < 500;
	if (!(ok || clientError)) throw new Error(`unexpected ${res.status} for ${description}: ${res.text.slice(0, 200)}`);
	if (res.status === 204) return;
	if (res.body === undefined) throw new Error(`non-JSON answer for ${description}: ${res.text.slice(0, 200)}`);
	if (clientError) {
		const keys = Object.keys(res.body || {});
		if (typeof res.body.error !== 'string' || !keys.every((k) => k === 'error' || k === 'required_scope')) {
			throw new Error(`bad error body for ${description}: ${res.text.slice(0, 200)}`);
		}
	}
}

test('random requests to every public route get a success or a JSON 4xx', async () => {
	const prng = createPrng(SEED);
	const gen = generators(prng, ids);
	const statuses = new Map();
	for (const [method, path] of PUBLIC_ROUTES) {
		for (let i = 0; i < REQUESTS_PER_ROUTE; i++) {
			const outcome = await fire(t.sb.base_url, method, path, prng, gen, { Authorization: `Bearer ${t.sb.key}` });
			check(outcome);
			statuses.set(outcome.res.status, (statuses.get(outcome.res.status) || 0) + 1);
		}
	}
	// The fuzz reaches both outcomes, so it really exercises validation.
	expect(statuses.get(400)).toBeGreaterThan(50);
	expect([...statuses.keys()].some((s) => s >= 200 && s < 300)).toBe(true);
	expect((await t.api.get('/me')).status).toBe(200);
});

test('random requests to the control surface get a success or a JSON 4xx', async () => {
	const prng = createPrng(SEED + 1);
	const gen = generators(prng, ids);
	for (const [method, path] of CONTROL_ROUTES) {
		for (let i = 0; i < REQUESTS_PER_ROUTE; i++) check(await fire(t.sb.control_url, method, path, prng, gen, {}));
	}
	expect((await t.control.get('/stats')).status).toBe(200);
});

test('random Authorization headers are 401 or accepted, never anything else', async () => {
	const prng = createPrng(SEED + 2);
	const headers = ['', 'Bearer', 'Bearer  ', `bearer ${t.sb.key}`, `Bearer ${t.sb.key} extra`, `Bearer ${t.sb.key}\t`, 'Token abc', `Bearer ${'a'.repeat(5000)}`, `Bearer svc_test_${'A'.repeat(65)}.${'b'.repeat(20)}`];
	for (let i = 0; i < 40; i++) {
		const header = prng.pick(headers);
		const res = await request(`${t.sb.base_url}/me`, { headers: header === '' ? {} : { Authorization: header } });
		expect([200, 401]).toContain(res.status);
		if (res.status === 401) expect(Object.keys(res.body)).toEqual(['error']);
	}
	expect((await t.api.get('/me')).status).toBe(200);
});
