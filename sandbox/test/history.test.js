'use strict';
// History on the control surface: conversations, contacts and messages at
// given past times (POST /conversations `created_at`, POST /contacts,
// POST /messages, POST /messages/bulk) and a bulk period of support activity
// (POST /bulk-history), all silent, all keeping the API's orders.

const { openSandbox, allPages, startReceiver, sleep } = require('./helpers');

let t;
let channel;
let person;
beforeAll(async () => {
	t = await openSandbox({ seed: 'empty' });
	channel = (await t.control.post('/channels', { type: 'whatsapp', name: 'History WhatsApp' })).body;
	person = (await t.control.post('/users', { name: 'Pat Person' })).body;
});
afterAll(() => t.close());

const DAY = 24 * 3600 * 1000;
const iso = (ms) => new Date(ms).toISOString();
const base = Date.now() - 10 * DAY;

/** The API's order: created_at (or `field`) descending, then id descending. */
function inApiOrder(records, field = 'created_at') {
	for (let i = 1; i < records.length; i++) {
		const [a, b] = [records[i - 1], records[i]];
		const newer = Date.parse(a[field]) > Date.parse(b[field]) || (a[field] === b[field] && a.id > b.id);
		if (!newer) return false;
	}
	return true;
}

async function conversationAt(ms) {
	const res = await t.control.post('/conversations', { channel_id: channel.id, created_at: iso(ms) });
	expect(res.status).toBe(200);
	return res.body;
}

describe('POST /conversations with created_at', () => {
	test('the conversation is created then, listed by its activity among the others', async () => {
		const old = await conversationAt(base);
		const live = (await t.control.post('/conversations', { channel_id: channel.id })).body;
		expect(old).toMatchObject({ created_at: iso(base), updated_at: iso(base) });
		const list = await allPages(t.api, '/conversations');
		expect(list.findIndex((c) => c.id === live.id)).toBeLessThan(list.findIndex((c) => c.id === old.id));
		expect(inApiOrder(list, 'updated_at')).toBe(true);
	});

	test('a time in the future or not a date is a 400', async () => {
		expect((await t.control.post('/conversations', { channel_id: channel.id, created_at: iso(Date.now() + 60_000) })).status).toBe(400);
		expect((await t.control.post('/conversations', { channel_id: channel.id, created_at: 'yesterday' })).status).toBe(400);
	});
});

describe('POST /contacts (control)', () => {
	test('a contact created at a given time sits where its time puts it', async () => {
		const older = (await t.control.post('/contacts', { name: 'Old Lead', email: 'old@example.com', created_at: iso(base - DAY) })).body;
		const newer = (await t.control.post('/contacts', { name: 'New Lead', created_at: iso(base) })).body;
		expect(older).toMatchObject({ name: 'Old Lead', email: 'old@example.com', created_at: iso(base - DAY) });
		const list = await allPages(t.api, '/contacts');
		expect(list.map((c) => c.id).indexOf(newer.id)).toBeLessThan(list.map((c) => c.id).indexOf(older.id));
		expect(inApiOrder(list)).toBe(true);
	});
});

describe('POST /messages (control): a message at a given time', () => {
	let conversation;
	beforeAll(async () => {
		conversation = await conversationAt(base);
	});

	const post = async (fields) => await t.control.post('/messages', { conversation_id: conversation.id, ...fields });

	test('each author: customer, a person, System, a package send with its key; a rating', async () => {
		const customer = (await post({ created_at: iso(base + 1000), from_customer: true, content: 'Hello?' })).body;
		const personal = (await post({ created_at: iso(base + 2000), from_user_id: person.id, content: 'Hi, Pat here' })).body;
		const system = (await post({ created_at: iso(base + 3000), as_system: true, client_request_id: 'n8nhandover1_n_0123456789abcdef', content: 'note' })).body;
		const bot = (await post({ created_at: iso(base + 4000), client_request_id: 'n8n_bot-1', content: 'Bot answer' })).body;
		const rating = (await post({ created_at: iso(base + 5000), from_customer: true, message_type: 'rating', content: '4/5' })).body;
		expect(customer).toMatchObject({ from_customer: true, from_user_id: null, client_request_id: '', attributed_to: 'customer', send_state: 'sent' });
		expect(personal).toMatchObject({ from_customer: false, from_user_id: person.id, attributed_to: 'user' });
		expect(system).toMatchObject({ from_user_id: null, as_system: true, attributed_to: 'system', client_request_id: 'n8nhandover1_n_0123456789abcdef' });
		const info = (await t.control.get(`/workspaces/${t.sb.app_id}`)).body;
		expect(bot).toMatchObject({ from_user_id: info.owner_user_id, client_request_id: 'n8n_bot-1' });
		expect(rating).toMatchObject({ message_type: 'rating', content: '4/5', created_at: iso(base + 5000) });
		const listed = (await t.api.get(`/messages?conversation_id=${conversation.id}&per_page=500`)).body.data;
		expect(listed.map((m) => m.id)).toEqual([rating, bot, system, personal, customer].map((m) => m.id));
		const [listedConversation] = (await allPages(t.api, '/conversations')).filter((c) => c.id === conversation.id);
		expect(listedConversation.updated_at).toBe(iso(base + 5000));
	});

	test('an older message inserted later is listed in its place; equal times are ordered by id descending', async () => {
		await post({ created_at: iso(base + 1500), from_customer: true, content: 'late insert' });
		await post({ created_at: iso(base + 1500), from_customer: true, content: 'same time' });
		const all = await allPages(t.api, '/messages');
		expect(inApiOrder(all)).toBe(true);
		const sameTime = all.filter((m) => m.created_at === iso(base + 1500));
		expect(sameTime).toHaveLength(2);
		expect(sameTime[0].id > sameTime[1].id).toBe(true);
		// The conversation's activity stays at its newest message.
		const [listedConversation] = (await allPages(t.api, '/conversations')).filter((c) => c.id === conversation.id);
		expect(listedConversation.updated_at).toBe(iso(base + 5000));
	});

	test('a message near an earlier one joins its session; one after a gap of more than 6 hours starts another', async () => {
		const other = await conversationAt(base);
		const first = (await t.control.post('/messages', { conversation_id: other.id, created_at: iso(base + 60_000), from_customer: true })).body;
		const late = (await t.control.post('/messages', { conversation_id: other.id, created_at: iso(base + 8 * 3600_000), from_customer: true })).body;
		const between = (await t.control.post('/messages', { conversation_id: other.id, created_at: iso(base + 120_000), from_user_id: person.id })).body;
		expect(between.message_session_id).toBe(first.message_session_id);
		expect(late.message_session_id).not.toBe(first.message_session_id);
	});

	test('refused with 400: unknown conversation, before the conversation, in the future, unknown user, a used key, an unknown type or state', async () => {
		const cases = [
			{ conversation_id: 'conv_nope', created_at: iso(base + 1000) },
			{ created_at: iso(base - 1000) },
			{ created_at: iso(Date.now() + 60_000) },
			{ created_at: iso(base + 1000), from_user_id: 'usr_nope' },
			{ created_at: iso(base + 1000), client_request_id: 'n8n_bot-1' },
			{ created_at: iso(base + 1000), message_type: 'sticker' },
			{ created_at: iso(base + 1000), send_state: 'lost' },
		];
		for (const fields of cases) {
			const res = await t.control.post('/messages', { conversation_id: conversation.id, ...fields });
			expect([res.status, fields]).toEqual([400, fields]);
		}
	});

	test('history is silent: a webhook subscribed to every event receives nothing', async () => {
		const receiver = await startReceiver();
		try {
			await t.api.post('/webhooks', { url: receiver.url, events: ['*'] });
			await post({ created_at: iso(base + 9000), from_customer: true });
			await t.control.post('/messages/bulk', { messages: [{ conversation_id: conversation.id, created_at: iso(base + 9500), from_customer: true }] });
			await sleep(300);
			expect(receiver.received).toHaveLength(0);
		} finally {
			await receiver.close();
		}
	});
});

describe('POST /messages/bulk', () => {
	test('many messages at once, listed in the API order; one bad message stores none', async () => {
		const conversation = await conversationAt(base);
		const before = (await t.api.get('/messages?per_page=1')).body.total;
		const messages = Array.from({ length: 50 }, (_, i) => ({ conversation_id: conversation.id, created_at: iso(base + ((i * 7919) % 50) * 1000), from_customer: i % 2 === 0 }));
		const res = await t.control.post('/messages/bulk', { messages });
		expect(res.status).toBe(200);
		expect(res.body.messages).toHaveLength(50);
		const bad = await t.control.post('/messages/bulk', { messages: [messages[0], { ...messages[1], message_type: 'nope' }] });
		expect(bad.status).toBe(400);
		expect(bad.body.error).toMatch(/^messages\[1\]: /);
		expect((await t.api.get('/messages?per_page=1')).body.total).toBe(before + 50);
		expect(inApiOrder(await allPages(t.api, '/messages'))).toBe(true);
	});
});

describe('POST /bulk-history', () => {
	test('a day of activity: the counts asked, every message inside the day, pages in the API order, each conversation at its newest message', async () => {
		const ws = (await t.control.post('/workspaces', {})).body;
		const { key } = (await t.control.post('/keys', { app_id: ws.app_id })).body;
		await t.control.post('/channels', { app_id: ws.app_id, type: 'telegram', name: 'T' });
		await t.control.post('/channels', { app_id: ws.app_id, type: 'email', name: 'E' });
		const from = base;
		const to = base + DAY;
		const res = await t.control.post('/bulk-history', { app_id: ws.app_id, from: iso(from), to: iso(to), conversations: 300, messages: 3000, seed: 7 });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ conversations: 300, messages: 3000 });
		const get = (path) => t.api.get(path, undefined, { key });
		const messages = await allPages({ get }, '/messages');
		const conversations = await allPages({ get }, '/conversations');
		expect(messages).toHaveLength(3000);
		expect(conversations).toHaveLength(300);
		expect(messages.every((m) => Date.parse(m.created_at) >= from && Date.parse(m.created_at) < to)).toBe(true);
		expect(inApiOrder(messages)).toBe(true);
		expect(inApiOrder(conversations, 'updated_at')).toBe(true);
		const newest = new Map();
		for (const m of messages) if (!newest.has(m.conversation_id)) newest.set(m.conversation_id, m.created_at);
		expect(conversations.every((c) => newest.get(c.id) === c.updated_at && Date.parse(c.created_at) <= Date.parse(c.updated_at))).toBe(true);
		// What a report needs is there: customers, the package's sends, people, System, hand-over marks and ratings.
		const kinds = new Set(messages.map((m) => (m.from_customer ? (m.message_type === 'rating' ? 'rating' : 'customer') : m.client_request_id.startsWith('n8nhandover1_') ? 'handover' : m.client_request_id.startsWith('n8n_') ? 'package' : m.from_user_id ? 'person' : 'system')));
		expect([...kinds].sort()).toEqual(['customer', 'handover', 'package', 'person', 'rating', 'system']);
		// The same seed makes the same activity.
		const again = (await t.control.post('/workspaces', {})).body;
		await t.control.post('/channels', { app_id: again.app_id, type: 'telegram', name: 'T' });
		await t.control.post('/channels', { app_id: again.app_id, type: 'email', name: 'E' });
		await t.control.post('/bulk-history', { app_id: again.app_id, from: iso(from), to: iso(to), conversations: 300, messages: 3000, seed: 7 });
		const { key: againKey } = (await t.control.post('/keys', { app_id: again.app_id })).body;
		const replay = await allPages({ get: (path) => t.api.get(path, undefined, { key: againKey }) }, '/messages');
		expect(replay.map((m) => [m.created_at, m.from_customer, m.content, m.message_type])).toEqual(messages.map((m) => [m.created_at, m.from_customer, m.content, m.message_type]));
	});

	test('refused with 400: no period, a period in the future or backwards, counts out of range', async () => {
		const cases = [
			{ conversations: 1, messages: 1 },
			{ from: iso(base), to: iso(Date.now() + DAY), conversations: 1, messages: 1 },
			{ from: iso(base + DAY), to: iso(base), conversations: 1, messages: 1 },
			{ from: iso(base), to: iso(base + DAY), conversations: 0, messages: 1 },
			{ from: iso(base), to: iso(base + DAY), conversations: 10, messages: 5 },
		];
		for (const body of cases) expect([(await t.control.post('/bulk-history', body)).status, body]).toEqual([400, body]);
	});
});
