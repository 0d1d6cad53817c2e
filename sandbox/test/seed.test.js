'use strict';
// Seeds: the deterministic demo world and the empty one, and
// isolation between several sandboxes in one process.

const { openSandbox, allPages } = require('./helpers');

const CHANNEL_TYPES = ['telegram', 'whatsapp', 'whatsapp_business', 'instagram', 'facebook', 'email', 'livechat'];

let demo;
beforeAll(async () => {
	demo = await openSandbox({ seed: 'demo' });
});
afterAll(() => demo.close());

test('demo: one channel of every type, exactly one inactive', async () => {
	const channels = await allPages(demo.api, '/channels');
	expect(channels.map((c) => c.type).sort()).toEqual(CHANNEL_TYPES.slice().sort());
	expect(channels.filter((c) => !c.is_active)).toHaveLength(1);
	expect(channels.every((c) => c.name.length > 0 && c.app_id === demo.sb.app_id)).toBe(true);
});

test('demo: 3 users (one owner), 50 contacts, 30 conversations, 165 messages', async () => {
	const info = (await demo.control.get(`/workspaces/${demo.sb.app_id}`)).body;
	expect(info.users).toHaveLength(3);
	expect(info.users.filter((u) => u.role === 'owner')).toHaveLength(1);
	expect((await demo.api.get('/contacts')).body.total).toBe(50);
	expect((await demo.api.get('/conversations')).body.total).toBe(30);
	expect((await demo.api.get('/messages')).body.total).toBe(165);
	expect(info.counts).toMatchObject({ channels: 7, contacts: 50, conversations: 30, messages: 165, webhooks: 0 });
});

test('demo: conversations reference real channels and contacts, statuses from the contract', async () => {
	const channels = new Map((await allPages(demo.api, '/channels')).map((c) => [c.id, c]));
	const contacts = new Set((await allPages(demo.api, '/contacts')).map((c) => c.id));
	for (const conversation of await allPages(demo.api, '/conversations')) {
		expect(channels.get(conversation.channel_id).type).toBe(conversation.channel);
		expect(contacts.has(conversation.customer_id)).toBe(true);
		expect(['open', 'pending', 'closed']).toContain(conversation.status);
	}
});

test('demo: the owner created the seeded keys, realistic contacts', async () => {
	const info = (await demo.control.get(`/workspaces/${demo.sb.app_id}`)).body;
	const messages = await allPages(demo.api, '/messages');
	expect(messages.some((m) => m.from_user_id === info.owner_user_id)).toBe(true);
	const contact = (await demo.api.get('/contacts?per_page=1')).body.data[0];
	expect(contact.name).toMatch(/^\S+ \S+$/);
	expect(contact.email).toMatch(/@example\.com$/);
});

test('demo content is deterministic across runs', async () => {
	const other = await openSandbox({ seed: 'demo' });
	try {
		const names = async (t) => (await allPages(t.api, '/contacts')).map((c) => `${c.name}|${c.email}|${c.lead_status}`);
		expect(await names(other)).toEqual(await names(demo));
		const texts = async (t) => (await allPages(t.api, '/messages')).map((m) => m.content).sort();
		expect(await texts(other)).toEqual(await texts(demo));
	} finally {
		await other.close();
	}
});

test('empty: a workspace, an owner and keys, nothing else', async () => {
	const empty = await openSandbox({ seed: 'empty' });
	try {
		for (const path of ['/contacts', '/conversations', '/messages', '/channels', '/webhooks']) {
			expect((await empty.api.get(path)).body.total).toBe(0);
		}
		expect((await empty.api.get('/me', undefined, { key: empty.sb.live_key })).body.mode).toBe('live');
		const info = (await empty.control.get(`/workspaces/${empty.sb.app_id}`)).body;
		expect(info.users).toEqual([{ id: info.owner_user_id, name: expect.any(String), role: 'owner' }]);
	} finally {
		await empty.close();
	}
});

test('sandboxes in one process are independent', async () => {
	const other = await openSandbox({ seed: 'empty' });
	try {
		expect(other.sb.port).not.toBe(demo.sb.port);
		expect(other.sb.app_id).not.toBe(demo.sb.app_id);
		expect((await demo.api.get('/me', undefined, { key: other.sb.key })).status).toBe(401);
		await other.api.post('/contacts', { name: 'Only in other' });
		expect((await demo.api.get('/contacts?search=only%20in%20other')).body.total).toBe(0);
		await other.control.put('/faults', { error_rate: 1 });
		expect((await demo.api.get('/me')).status).toBe(200);
	} finally {
		await other.close();
	}
});

test('close() is idempotent and frees the port', async () => {
	const sb = await openSandbox({ seed: 'empty' });
	await Promise.all([sb.close(), sb.close()]);
	await sb.close();
	await expect(fetch(`${sb.sb.base_url}/me`)).rejects.toThrow();
});

test('startSandbox rejects bad options', async () => {
	const { startSandbox } = require('..');
	await expect(startSandbox({ seed: 'full' })).rejects.toThrow(/seed/);
	await expect(startSandbox({ contacts: -1 })).rejects.toThrow(/contacts/);
	await expect(startSandbox({ port: 70000 })).rejects.toThrow(/port/);
});
