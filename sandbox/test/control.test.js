'use strict';
// Control endpoints (no auth, not part of the public API):
// workspaces, keys, users, channels, conversations, inbound, bulk, messages.
// Faults, stats and deliveries are covered in faults.test.js and webhooks.test.js.

const { openSandbox, allPages, ID_PATTERN } = require('./helpers');

let t;
beforeAll(async () => {
	t = await openSandbox({ seed: 'empty' });
});
afterAll(() => t.close());

/** A fresh workspace with a key and an api client for it. */
async function workspace() {
	const ws = (await t.control.post('/workspaces', {})).body;
	const { key } = (await t.control.post('/keys', { app_id: ws.app_id })).body;
	return { ...ws, key, get: (path) => t.api.get(path, undefined, { key }) };
}

describe('POST /workspaces', () => {
	test('returns a new empty workspace with an owner', async () => {
		const res = await t.control.post('/workspaces', {});
		expect(res.status).toBe(200);
		expect(res.body.app_id).toEqual(expect.any(String));
		expect(res.body.app_id).not.toBe(t.sb.app_id);
		expect(res.body.owner_user_id).toMatch(ID_PATTERN('usr'));
		const ws = await workspace();
		for (const path of ['/contacts', '/conversations', '/messages', '/channels', '/webhooks']) expect((await ws.get(path)).body.total).toBe(0);
	});

	test('works without a body', async () => {
		const res = await fetch(`${t.sb.control_url}/workspaces`, { method: 'POST' });
		expect(res.status).toBe(200);
	});

	test('GET /workspaces/{app_id} lists users and counts; unknown is 404', async () => {
		const info = (await t.control.get(`/workspaces/${t.sb.app_id}`)).body;
		expect(info.users).toEqual([{ id: info.owner_user_id, name: expect.any(String), role: 'owner' }]);
		expect(info.counts).toEqual({ channels: 0, contacts: 0, conversations: 0, messages: 0, webhooks: 0 });
		expect((await t.control.get('/workspaces/app_nope')).status).toBe(404);
	});
});

describe('POST /keys', () => {
	test('defaults: the seeded workspace, test mode, every scope', async () => {
		const res = await t.control.post('/keys', {});
		expect(res.status).toBe(200);
		expect(Object.keys(res.body).sort()).toEqual(['app_id', 'key', 'key_id']);
		expect(res.body.app_id).toBe(t.sb.app_id);
		const me = (await t.api.get('/me', undefined, { key: res.body.key })).body;
		expect(me).toMatchObject({ mode: 'test', key_id: res.body.key_id });
		expect(me.scopes).toHaveLength(8);
	});

	test('mode, scopes and name are honoured', async () => {
		const { key } = (await t.control.post('/keys', { mode: 'live', scopes: ['channels:read'], name: 'narrow' })).body;
		expect(key).toMatch(/^svc_live_/);
		expect((await t.api.get('/me', undefined, { key })).body).toMatchObject({ mode: 'live', scopes: ['channels:read'], name: 'narrow' });
	});

	test.each([
		[{ mode: 'prod' }],
		[{ scopes: 'all' }],
		[{ scopes: [1] }],
		[{ ip_allowlist: '127.0.0.1' }],
		[{ expires_at: 'tomorrow' }],
		[{ expires_at: 12345 }],
		[{ created_by_user_id: 'usr_nope' }],
	])('400 for %j', async (body) => {
		const res = await t.control.post('/keys', body);
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.any(String) });
	});

	test('unknown app_id is 404', async () => {
		expect((await t.control.post('/keys', { app_id: 'app_nope' })).status).toBe(404);
	});

	test('POST /keys/{key_id}/revoke: 204, then the key is refused', async () => {
		const { key, key_id } = (await t.control.post('/keys', {})).body;
		const res = await t.control.post(`/keys/${key_id}/revoke`);
		expect(res.status).toBe(204);
		expect((await t.api.get('/me', undefined, { key })).status).toBe(401);
	});
});

describe('POST /users', () => {
	test('creates an agent usable as from_user_id', async () => {
		const res = await t.control.post('/users', { name: 'Agent Smith' });
		expect(res.status).toBe(200);
		expect(res.body.id).toMatch(ID_PATTERN('usr'));
		const info = (await t.control.get(`/workspaces/${t.sb.app_id}`)).body;
		expect(info.users).toContainEqual({ id: res.body.id, name: 'Agent Smith', role: 'agent' });
	});

	test('400 without a name, 404 for an unknown workspace', async () => {
		expect((await t.control.post('/users', {})).status).toBe(400);
		expect((await t.control.post('/users', { name: 5 })).status).toBe(400);
		expect((await t.control.post('/users', { name: 'x', app_id: 'app_nope' })).status).toBe(404);
	});
});

describe('POST /channels', () => {
	test.each(['telegram', 'whatsapp', 'whatsapp_business', 'instagram', 'facebook', 'email', 'livechat'])('creates a %s channel', async (type) => {
		const res = await t.control.post('/channels', { type, name: `My ${type}` });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			id: expect.stringMatching(ID_PATTERN('ch')),
			app_id: t.sb.app_id,
			type,
			external_id: expect.any(String),
			name: `My ${type}`,
			username: expect.any(String),
			phone_number: expect.any(String),
			email: expect.any(String),
			is_active: true,
			created_at: expect.any(String),
		});
		const listed = await allPages(t.api, '/channels');
		expect(listed[0]).toEqual(res.body);
	});

	test('is_active false; bad type or name is 400', async () => {
		expect((await t.control.post('/channels', { type: 'email', name: 'Off', is_active: false })).body.is_active).toBe(false);
		expect((await t.control.post('/channels', { type: 'sms', name: 'x' })).status).toBe(400);
		expect((await t.control.post('/channels', { type: 'email' })).status).toBe(400);
		expect((await t.control.post('/channels', { type: 'email', name: 'x', is_active: 'no' })).status).toBe(400);
	});

	test('a channel in another workspace stays there', async () => {
		const ws = await workspace();
		await t.control.post('/channels', { app_id: ws.app_id, type: 'telegram', name: 'Theirs' });
		expect((await ws.get('/channels')).body.total).toBe(1);
		expect((await t.api.get('/channels')).body.data.some((c) => c.name === 'Theirs')).toBe(false);
	});
});

describe('POST /conversations', () => {
	test('creates an open conversation and a customer contact when none is given', async () => {
		const channel = (await t.control.post('/channels', { type: 'whatsapp', name: 'WA' })).body;
		const res = await t.control.post('/conversations', { channel_id: channel.id });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			id: expect.stringMatching(ID_PATTERN('conv')),
			app_id: t.sb.app_id,
			channel: 'whatsapp',
			channel_id: channel.id,
			external_id: expect.any(String),
			customer_id: expect.stringMatching(ID_PATTERN('ct')),
			status: 'open',
			created_at: expect.any(String),
			updated_at: expect.any(String),
		});
		expect((await t.api.get(`/contacts/${res.body.customer_id}`)).status).toBe(200);
		expect((await t.api.get('/conversations?per_page=1')).body.data[0]).toEqual(res.body);
	});

	test('uses the given customer and status', async () => {
		const channel = (await t.control.post('/channels', { type: 'email', name: 'Mail' })).body;
		const contact = (await t.api.post('/contacts', { name: 'Given' })).body;
		const res = await t.control.post('/conversations', { channel_id: channel.id, customer_id: contact.id, status: 'pending' });
		expect(res.body).toMatchObject({ customer_id: contact.id, status: 'pending', channel: 'email' });
	});

	test('400 for unknown channel or customer, or a bad status', async () => {
		const channel = (await t.control.post('/channels', { type: 'email', name: 'Mail' })).body;
		expect((await t.control.post('/conversations', {})).status).toBe(400);
		expect((await t.control.post('/conversations', { channel_id: 'ch_nope' })).status).toBe(400);
		expect((await t.control.post('/conversations', { channel_id: channel.id, customer_id: 'ct_nope' })).status).toBe(400);
		expect((await t.control.post('/conversations', { channel_id: channel.id, status: 'archived' })).status).toBe(400);
	});
});

describe('POST /inbound', () => {
	test('a customer message: from_customer, no user, bumps the conversation', async () => {
		const channel = (await t.control.post('/channels', { type: 'telegram', name: 'TG' })).body;
		const conversation = (await t.control.post('/conversations', { channel_id: channel.id })).body;
		const res = await t.control.post('/inbound', { conversation_id: conversation.id, text: 'Hi, I need help' });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			id: expect.stringMatching(ID_PATTERN('msg')),
			conversation_id: conversation.id,
			message_session_id: expect.stringMatching(ID_PATTERN('ses')),
			channel: 'telegram',
			channel_id: channel.id,
			from_customer: true,
			from_user_id: null,
			content: 'Hi, I need help',
			message_type: 'text',
			send_state: 'sent',
		});
		const listed = (await t.api.get(`/messages?conversation_id=${conversation.id}`)).body.data;
		expect(listed[0]).toEqual(res.body);
		const top = (await t.api.get('/conversations?per_page=1')).body.data[0];
		expect(top).toMatchObject({ id: conversation.id, updated_at: res.body.created_at });
	});

	test('404 for an unknown conversation, 400 for bad text', async () => {
		expect((await t.control.post('/inbound', { conversation_id: 'conv_nope', text: 'x' })).status).toBe(404);
		const channel = (await t.control.post('/channels', { type: 'telegram', name: 'TG' })).body;
		const conversation = (await t.control.post('/conversations', { channel_id: channel.id })).body;
		expect((await t.control.post('/inbound', { conversation_id: conversation.id, text: '' })).status).toBe(400);
		expect((await t.control.post('/inbound', { conversation_id: conversation.id })).status).toBe(400);
	});
});

describe('POST /bulk', () => {
	test('creates contacts, conversations and messages and reports counts', async () => {
		const ws = await workspace();
		const res = await t.control.post('/bulk', { app_id: ws.app_id, contacts: 300, conversations: 40, messages_per_conversation: 5 });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ contacts: 300, conversations: 40, messages: 200 });
		expect(res.body.totals).toEqual({ contacts: 300, conversations: 40, messages: 200 });
		expect((await ws.get('/contacts')).body.total).toBe(300);
		expect((await ws.get('/conversations')).body.total).toBe(40);
		expect((await ws.get('/messages')).body.total).toBe(200);
		const convs = (await ws.get('/conversations?per_page=500')).body.data;
		const customers = new Set(convs.map((c) => c.customer_id));
		for (const id of [...customers].slice(0, 5)) expect((await t.api.get(`/contacts/${id}`, undefined, { key: ws.key })).status).toBe(200);
	});

	test('conversations without contacts create their customers', async () => {
		const ws = await workspace();
		const res = await t.control.post('/bulk', { app_id: ws.app_id, conversations: 3 });
		expect(res.body).toMatchObject({ contacts: 3, conversations: 3, messages: 0 });
		expect((await ws.get('/channels')).body.total).toBe(1);
	});

	test.each([[{ contacts: -1 }], [{ contacts: 1.5 }], [{ contacts: '10' }], [{ conversations: 10, messages_per_conversation: 5000 }], [{ app_id: 'app_nope' }]])('rejects %j', async (body) => {
		const res = await t.control.post('/bulk', body);
		expect(res.status).toBeGreaterThanOrEqual(400);
		expect(res.status).toBeLessThan(500);
	});
});

describe('GET /messages/{id}', () => {
	test('the stored message with attribution details; 404 when unknown', async () => {
		const channel = (await t.control.post('/channels', { type: 'livechat', name: 'Chat' })).body;
		const conversation = (await t.control.post('/conversations', { channel_id: channel.id })).body;
		const sent = (await t.api.post('/messages/text', { client_request_id: 'ctl-1', conversation_id: conversation.id, text: 'yo', as_system: true })).body.message;
		const res = await t.control.get(`/messages/${sent.id}`);
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			id: sent.id,
			as_system: true,
			from_user_id: null,
			reply_to_message_id: null,
			client_request_id: 'ctl-1',
			attributed_to: 'system',
		});
		expect((await t.control.get('/messages/msg_nope')).status).toBe(404);
	});
});

describe('the control surface is not the public API', () => {
	test('needs no key and is not reachable under the public base path', async () => {
		expect((await fetch(`${t.sb.control_url}/stats`)).status).toBe(200);
		expect((await t.api.get('/__sandbox/stats')).status).toBe(404);
	});
});
