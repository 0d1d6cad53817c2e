'use strict';
// Text sends, listMessages, send_state, idempotency, validation, ids and the
// attribution rules (who a message is from: system, a user, the key's creator).

const { openSandbox, waitFor, allPages, sleep, useDemoSandbox, ID_PATTERN, ISO_PATTERN } = require('./helpers');

const t = useDemoSandbox();

let serial = 0;
const crid = () => `req-${process.pid}-${++serial}`;
const send = (body, options) => t.api.post('/messages/text', { client_request_id: crid(), conversation_id: t.world.active.id, text: 'hi', ...body }, options);
const stored = async (id) => (await t.control.get(`/messages/${id}`)).body;
const MESSAGE_KEYS = [
	'id', 'app_id', 'conversation_id', 'message_session_id', 'channel_id', 'channel', 'from_user_id', 'from_customer',
	'client_request_id', 'content', 'message_type', 'send_state', 'created_at', 'updated_at',
];

describe('send text (POST /messages/text)', () => {
	test('200 {"message": Message} with the conversation\'s channel and a session', async () => {
		const id = crid();
		const res = await t.api.post('/messages/text', { client_request_id: id, conversation_id: t.world.active.id, text: 'Hello there' });
		expect(res.status).toBe(200);
		expect(Object.keys(res.body)).toEqual(['message']);
		const m = res.body.message;
		expect(Object.keys(m).sort()).toEqual(MESSAGE_KEYS.slice().sort());
		expect(m).toMatchObject({
			id: expect.stringMatching(ID_PATTERN('msg')),
			app_id: t.sb.app_id,
			conversation_id: t.world.active.id,
			message_session_id: expect.stringMatching(ID_PATTERN('ses')),
			channel_id: t.world.active.channel_id,
			channel: t.world.active.channel,
			from_customer: false,
			client_request_id: id,
			content: 'Hello there',
			message_type: 'text',
			created_at: expect.stringMatching(ISO_PATTERN),
		});
		expect(['pending', 'sent']).toContain(m.send_state);
	});

	test('send_state moves pending -> sent once', async () => {
		const { message } = (await send({})).body;
		const seen = await waitFor(async () => {
			const list = await t.api.get(`/messages?conversation_id=${t.world.active.id}&per_page=5`);
			const found = list.body.data.find((x) => x.id === message.id);
			return found.send_state === 'sent' && found;
		});
		expect(Date.parse(seen.updated_at)).toBeGreaterThanOrEqual(Date.parse(message.created_at));
		await sleep(100);
		expect((await stored(message.id)).send_state).toBe('sent');
	});

	test('a send into a conversation on an inactive channel ends failed', async () => {
		const { message } = (await send({ conversation_id: t.world.onInactive.id })).body;
		expect(message.send_state).toBe('pending');
		await waitFor(async () => (await stored(message.id)).send_state === 'failed');
		await sleep(80);
		expect((await stored(message.id)).send_state).toBe('failed');
	});

	test('sending moves the conversation to the top with a newer updated_at', async () => {
		const target = t.world.conversations[t.world.conversations.length - 1];
		const res = await send({ conversation_id: target.id });
		const top = (await t.api.get('/conversations?per_page=1')).body.data[0];
		expect(top.id).toBe(target.id);
		expect(top.updated_at).toBe(res.body.message.created_at);
	});

	test('text length is counted in code points: 4000 ok, 4001 refused, empty refused', async () => {
		expect((await send({ text: '😀'.repeat(4000) })).status).toBe(200);
		expect((await send({ text: 'a'.repeat(4000) })).status).toBe(200);
		expect((await send({ text: 'a'.repeat(4001) })).status).toBe(400);
		expect((await send({ text: '' })).status).toBe(400);
	});

	test.each([
		['client_request_id missing', { client_request_id: undefined }],
		['client_request_id not a string', { client_request_id: 7 }],
		['client_request_id empty', { client_request_id: '' }],
		['conversation_id missing', { conversation_id: undefined }],
		['conversation_id unknown', { conversation_id: 'conv_00000000000000000000' }],
		['conversation_id not a string', { conversation_id: 12 }],
		['text missing', { text: undefined }],
		['text not a string', { text: ['hi'] }],
		['as_system not a boolean', { as_system: 'true' }],
		['reply_to_message_id unknown', { reply_to_message_id: 'msg_00000000000000000000' }],
		['from_user_id unknown', { from_user_id: 'usr_00000000000000000000' }],
		['from_user_id not a string', { from_user_id: 5 }],
	])('400: %s', async (_label, override) => {
		const body = { client_request_id: crid(), conversation_id: t.world.active.id, text: 'hi', ...override };
		for (const [k, v] of Object.entries(override)) if (v === undefined) delete body[k];
		const res = await t.api.post('/messages/text', body);
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.any(String) });
	});

	test('a refused send creates nothing', async () => {
		const before = (await t.api.get('/messages?per_page=1')).body.total;
		await send({ text: '' });
		await send({ conversation_id: 'conv_nope' });
		expect((await t.api.get('/messages?per_page=1')).body.total).toBe(before);
	});

	test('reply_to_message_id must be a message of the same conversation', async () => {
		const mine = (await send({})).body.message;
		const elsewhere = (await send({ conversation_id: t.world.other.id })).body.message;
		expect((await send({ reply_to_message_id: elsewhere.id })).status).toBe(400);
		const reply = await send({ reply_to_message_id: mine.id });
		expect(reply.status).toBe(200);
		expect((await stored(reply.body.message.id)).reply_to_message_id).toBe(mine.id);
	});

	test('a conversation of another workspace is a 400', async () => {
		const { app_id } = (await t.control.post('/workspaces', {})).body;
		const { key } = (await t.control.post('/keys', { app_id })).body;
		const res = await t.api.post('/messages/text', { client_request_id: crid(), conversation_id: t.world.active.id, text: 'x' }, { key });
		expect(res.status).toBe(400);
	});
});

describe('attribution', () => {
	test('rule 1: as_system -> System, from_user_id null', async () => {
		const { message } = (await send({ as_system: true })).body;
		expect(message.from_user_id).toBeNull();
		expect(message.from_customer).toBe(false);
		expect(await stored(message.id)).toMatchObject({ as_system: true, from_user_id: null, attributed_to: 'system' });
	});

	test('rule 2: as_system wins over from_user_id (even an invalid one)', async () => {
		const both = (await send({ as_system: true, from_user_id: t.world.agent })).body.message;
		expect(both.from_user_id).toBeNull();
		const invalid = await send({ as_system: true, from_user_id: 'usr_not_a_user' });
		expect(invalid.status).toBe(200);
		expect(invalid.body.message.from_user_id).toBeNull();
	});

	test('rule 3: from_user_id (as_system false or absent) -> that agent', async () => {
		expect((await send({ from_user_id: t.world.agent })).body.message.from_user_id).toBe(t.world.agent);
		const explicit = (await send({ from_user_id: t.world.agent, as_system: false })).body.message;
		expect(explicit.from_user_id).toBe(t.world.agent);
		expect(await stored(explicit.id)).toMatchObject({ as_system: false, from_user_id: t.world.agent, attributed_to: 'user' });
	});

	test('rule 4: neither -> the user who created the key', async () => {
		expect((await send({})).body.message.from_user_id).toBe(t.world.owner);
		const { key } = (await t.control.post('/keys', { created_by_user_id: t.world.agent })).body;
		expect((await send({}, { key })).body.message.from_user_id).toBe(t.world.agent);
	});

	test('a user of another workspace is not a valid from_user_id', async () => {
		const { owner_user_id } = (await t.control.post('/workspaces', {})).body;
		expect((await send({ from_user_id: owner_user_id })).status).toBe(400);
	});

	test('customer messages: from_customer true, from_user_id null', async () => {
		const inbound = await t.control.post('/inbound', { conversation_id: t.world.active.id, text: 'a customer writes' });
		expect(inbound.body).toMatchObject({ from_customer: true, from_user_id: null, content: 'a customer writes', message_type: 'text' });
	});
});

describe('idempotency on client_request_id', () => {
	test('a repeat returns 200 with the original message and creates nothing, whatever the body', async () => {
		const id = crid();
		const first = (await t.api.post('/messages/text', { client_request_id: id, conversation_id: t.world.active.id, text: 'original' })).body.message;
		const total = (await t.api.get('/messages?per_page=1')).body.total;
		const repeats = [
			{ client_request_id: id, conversation_id: t.world.active.id, text: 'original' },
			{ client_request_id: id, conversation_id: t.world.other.id, text: 'different' },
			{ client_request_id: id, text: '' },
			{ client_request_id: id, conversation_id: 'conv_unknown', as_system: 'nonsense' },
		];
		for (const body of repeats) {
			const res = await t.api.post('/messages/text', body);
			expect(res.status).toBe(200);
			expect(res.body.message.id).toBe(first.id);
			expect(res.body.message.content).toBe('original');
		}
		expect((await t.api.get('/messages?per_page=1')).body.total).toBe(total);
	});

	test('concurrent repeats create one message', async () => {
		const id = crid();
		const results = await Promise.all(
			Array.from({ length: 10 }, () => t.api.post('/messages/text', { client_request_id: id, conversation_id: t.world.active.id, text: 'race' })),
		);
		expect(results.every((r) => r.status === 200)).toBe(true);
		expect(new Set(results.map((r) => r.body.message.id)).size).toBe(1);
	});

	test('the key is per workspace: another workspace may reuse it', async () => {
		const id = crid();
		const mine = (await send({ client_request_id: id })).body.message;
		const { app_id } = (await t.control.post('/workspaces', {})).body;
		const channel = (await t.control.post('/channels', { app_id, type: 'livechat', name: 'Chat' })).body;
		const conversation = (await t.control.post('/conversations', { app_id, channel_id: channel.id })).body;
		const { key } = (await t.control.post('/keys', { app_id })).body;
		const theirs = await t.api.post('/messages/text', { client_request_id: id, conversation_id: conversation.id, text: 'x' }, { key });
		expect(theirs.status).toBe(200);
		expect(theirs.body.message.id).not.toBe(mine.id);
	});

	test('a repeat returns the message as it is now (e.g. already sent)', async () => {
		const id = crid();
		const first = (await send({ client_request_id: id })).body.message;
		await waitFor(async () => (await stored(first.id)).send_state === 'sent');
		expect((await send({ client_request_id: id })).body.message.send_state).toBe('sent');
	});
});

describe('list (GET /messages)', () => {
	test('conversation_id filter', async () => {
		const items = await allPages(t.api, `/messages?conversation_id=${t.world.other.id}`);
		expect(items.length).toBeGreaterThan(0);
		expect(items.every((m) => m.conversation_id === t.world.other.id)).toBe(true);
	});

	test('message_session_id filter, alone and with the conversation', async () => {
		const { message } = (await send({ conversation_id: t.world.other.id })).body;
		const session = message.message_session_id;
		const items = await allPages(t.api, `/messages?message_session_id=${session}`);
		expect(items[0].id).toBe(message.id);
		expect(items.every((m) => m.message_session_id === session)).toBe(true);
		expect((await t.api.get(`/messages?message_session_id=${session}&conversation_id=${t.world.other.id}`)).body.total).toBe(items.length);
		expect((await t.api.get(`/messages?message_session_id=${session}&conversation_id=${t.world.active.id}`)).body.total).toBe(0);
	});

	test('unknown filter values give an empty list', async () => {
		expect((await t.api.get('/messages?conversation_id=conv_nope')).body).toMatchObject({ total: 0, data: [] });
		expect((await t.api.get('/messages?message_session_id=ses_nope')).body).toMatchObject({ total: 0, data: [] });
	});

	test('messages of one conversation share a session while it is active', async () => {
		const a = (await send({})).body.message;
		const b = (await send({})).body.message;
		const c = (await send({ conversation_id: t.world.other.id })).body.message;
		expect(a.message_session_id).toBe(b.message_session_id);
		expect(c.message_session_id).not.toBe(a.message_session_id);
	});

	test('the demo has 30 conversations, several sessions, inbound and outbound messages', async () => {
		const fresh = await openSandbox();
		try {
			const items = await allPages(fresh.api, '/messages');
			expect(items).toHaveLength(165);
			expect(new Set(items.map((m) => m.conversation_id)).size).toBe(30);
			expect(new Set(items.map((m) => m.message_session_id)).size).toBeGreaterThan(30);
			expect(items.some((m) => m.from_customer)).toBe(true);
			expect(items.some((m) => !m.from_customer && m.from_user_id)).toBe(true);
			expect(items.every((m) => (m.from_customer ? m.from_user_id === null : true))).toBe(true);
		} finally {
			await fresh.close();
		}
	});
});
