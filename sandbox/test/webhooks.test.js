'use strict';
// Webhook management and deliveries (body, headers, signature, retries,
// at-least-once).

const crypto = require('node:crypto');
const http = require('node:http');
const { openSandbox, startReceiver, waitFor, sleep, allPages, demoWorld, ID_PATTERN, ISO_PATTERN } = require('./helpers');

let t;
let receiver;
let conversationId;
beforeAll(async () => {
	t = await openSandbox();
	receiver = await startReceiver();
	conversationId = (await demoWorld(t)).active.id;
});
afterAll(async () => {
	await t.close();
	await receiver.close();
});
afterEach(async () => {
	for (const hook of await allPages(t.api, '/webhooks')) await t.api.delete(`/webhooks/${hook.id}`);
	await t.control.delete('/faults');
	await t.control.put('/faults', { rate_limit_per_second: 0 });
});

const createHook = async (body) => {
	const res = await t.api.post('/webhooks', body);
	expect(res.status).toBe(201);
	return res.body;
};

/** Independent check of the delivery signature scheme (see webhooks/signing.js). */
function verifySignature(secret, headers, rawBody) {
	const id = headers['x-service-webhook-id'];
	const timestamp = headers['x-service-webhook-timestamp'];
	const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
	const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
	return String(headers['x-service-webhook-signature'])
		.split(' ')
		.some((entry) => {
			const [version, signature] = entry.split(',');
			const given = Buffer.from(signature || '', 'base64');
			return version === 'v1' && given.length === expected.length && crypto.timingSafeEqual(given, expected);
		});
}

let serial = 0;
const sendText = (text = 'hello') => t.api.post('/messages/text', { client_request_id: `wh-${++serial}`, conversation_id: conversationId, text });

/** Deliveries received by `rx` since index `from`, parsed. */
const bodies = (rx, from = 0) => rx.received.slice(from).map((r) => JSON.parse(r.body));

describe('management', () => {
	test('create: 201 Webhook with a whsec_ secret of 32 random bytes', async () => {
		const hook = await createHook({ url: receiver.url, events: ['contact.created'], description: 'crm sync' });
		expect(hook).toEqual({
			id: expect.stringMatching(ID_PATTERN('wh')),
			app_id: t.sb.app_id,
			url: receiver.url,
			events: ['contact.created'],
			description: 'crm sync',
			is_active: true,
			created_at: expect.stringMatching(ISO_PATTERN),
			secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
		});
		expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32);
		const other = await createHook({ url: receiver.url, events: ['*'] });
		expect(other.secret).not.toBe(hook.secret);
		expect(other.description).toBe('');
	});

	test('list and get never show the secret; delete is 204 then 404', async () => {
		const hook = await createHook({ url: receiver.url, events: ['*'] });
		const list = await t.api.get('/webhooks');
		expect(list.body).toMatchObject({ total: 1, current_page: 1, has_next: false });
		expect(list.body.data[0].secret).toBeUndefined();
		const one = await t.api.get(`/webhooks/${hook.id}`);
		expect(one.status).toBe(200);
		expect(one.body).toEqual(list.body.data[0]);
		const { secret, ...withoutSecret } = hook;
		expect(secret).toBeDefined();
		expect(one.body).toEqual(withoutSecret);
		const removed = await t.api.delete(`/webhooks/${hook.id}`);
		expect(removed.status).toBe(204);
		expect(removed.text).toBe('');
		expect((await t.api.get(`/webhooks/${hook.id}`)).status).toBe(404);
		expect((await t.api.delete(`/webhooks/${hook.id}`)).status).toBe(404);
	});

	test.each([
		[{ events: ['*'] }],
		[{ url: '/relative', events: ['*'] }],
		[{ url: 'ftp://example.com/x', events: ['*'] }],
		[{ url: 'not a url', events: ['*'] }],
		[{ url: 42, events: ['*'] }],
		[{ url: 'http://127.0.0.1/x' }],
		[{ url: 'http://127.0.0.1/x', events: [] }],
		[{ url: 'http://127.0.0.1/x', events: 'message.created' }],
		[{ url: 'http://127.0.0.1/x', events: [1] }],
		[{ url: 'http://127.0.0.1/x', events: ['message.exploded'] }],
		[{ url: 'http://127.0.0.1/x', events: ['*'], description: 5 }],
	])('400 for %j', async (body) => {
		const res = await t.api.post('/webhooks', body);
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.any(String) });
	});

	test('webhooks are workspace-isolated', async () => {
		const hook = await createHook({ url: receiver.url, events: ['*'] });
		const { app_id } = (await t.control.post('/workspaces', {})).body;
		const { key } = (await t.control.post('/keys', { app_id })).body;
		expect((await t.api.get(`/webhooks/${hook.id}`, undefined, { key })).status).toBe(404);
		expect((await t.api.delete(`/webhooks/${hook.id}`, undefined, { key })).status).toBe(404);
		expect((await t.api.get('/webhooks', undefined, { key })).body.total).toBe(0);
		// and events of the other workspace do not reach this workspace's webhook
		const from = receiver.received.length;
		await t.api.post('/contacts', { name: 'Elsewhere' }, { key });
		await sleep(100);
		expect(receiver.received.length).toBe(from);
	});
});

describe('deliveries', () => {
	test('signed POST: headers, body shape, data equals the resource', async () => {
		const hook = await createHook({ url: receiver.url, events: ['*'] });
		const from = receiver.received.length;
		const contact = (await t.api.post('/contacts', { name: 'Signed Sally' })).body;
		await waitFor(() => receiver.received.length > from);
		const delivery = receiver.received[from];
		expect(delivery.method).toBe('POST');
		expect(delivery.headers['content-type']).toMatch(/^application\/json/);
		const body = JSON.parse(delivery.body);
		expect(body).toEqual({ id: expect.stringMatching(ID_PATTERN('evt')), type: 'contact.created', created_at: expect.stringMatching(ISO_PATTERN), app_id: t.sb.app_id, data: contact });
		expect(delivery.headers['x-service-webhook-id']).toBe(body.id);
		const timestamp = Number(delivery.headers['x-service-webhook-timestamp']);
		expect(Number.isInteger(timestamp)).toBe(true);
		expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(5);
		expect(verifySignature(hook.secret, delivery.headers, delivery.body)).toBe(true);
		// A tampered body or another secret does not verify.
		expect(verifySignature(hook.secret, delivery.headers, delivery.body.replace('Sally', 'Sa11y'))).toBe(false);
		const other = await createHook({ url: receiver.url, events: ['contact.updated'] });
		expect(verifySignature(other.secret, delivery.headers, delivery.body)).toBe(false);
	});

	test('kinds: message.created (outbound, inbound, media), contact.created, contact.updated (update, merge)', async () => {
		await createHook({ url: receiver.url, events: ['*'] });
		const from = receiver.received.length;
		const sent = (await sendText('out')).body.message;
		const inbound = (await t.control.post('/inbound', { conversation_id: conversationId, text: 'in' })).body;
		const a = (await t.api.post('/contacts', { name: 'A' })).body;
		const b = (await t.api.post('/contacts', { name: 'B', city: 'Oslo' })).body;
		await t.api.patch(`/contacts/${a.id}`, { name: 'A2' });
		await t.api.post('/contacts/merge', { primary_id: a.id, secondary_id: b.id });
		await waitFor(() => receiver.received.length >= from + 6);
		await sleep(50);
		const got = bodies(receiver, from);
		expect(got).toHaveLength(6);
		const byType = (type) => got.filter((e) => e.type === type);
		expect(byType('message.created').map((e) => e.data.id).sort()).toEqual([sent.id, inbound.id].sort());
		expect(byType('message.created').find((e) => e.data.id === sent.id).data).toMatchObject({ from_customer: false, send_state: 'pending' });
		expect(byType('message.created').find((e) => e.data.id === inbound.id).data).toMatchObject({ from_customer: true, from_user_id: null });
		expect(byType('contact.created').map((e) => e.data.id).sort()).toEqual([a.id, b.id].sort());
		const updates = byType('contact.updated');
		expect(updates).toHaveLength(2);
		expect(updates.every((e) => e.data.id === a.id)).toBe(true);
		expect(updates.some((e) => e.data.city === 'Oslo')).toBe(true);
		expect(new Set(got.map((e) => e.id)).size).toBe(6);
	});

	test('only subscribed kinds are delivered; a deleted webhook gets nothing', async () => {
		const contactsRx = await startReceiver();
		const messagesRx = await startReceiver();
		try {
			await createHook({ url: contactsRx.url, events: ['contact.created'] });
			const messagesHook = await createHook({ url: messagesRx.url, events: ['message.created'] });
			await t.api.post('/contacts', { name: 'Only contacts' });
			await sendText();
			await waitFor(() => contactsRx.received.length >= 1 && messagesRx.received.length >= 1);
			await t.api.delete(`/webhooks/${messagesHook.id}`);
			await sendText();
			await sleep(100);
			expect(bodies(contactsRx).map((e) => e.type)).toEqual(['contact.created']);
			expect(bodies(messagesRx).map((e) => e.type)).toEqual(['message.created']);
		} finally {
			await contactsRx.close();
			await messagesRx.close();
		}
	});

	test('an idempotent repeat dispatches nothing', async () => {
		await createHook({ url: receiver.url, events: ['message.created'] });
		const from = receiver.received.length;
		const body = { client_request_id: 'wh-repeat', conversation_id: conversationId, text: 'once' };
		await t.api.post('/messages/text', body);
		await t.api.post('/messages/text', body);
		await t.api.post('/messages/text', body);
		await sleep(150);
		expect(receiver.received.length - from).toBe(1);
	});

	test('failures are retried with the same id and body on the schedule, then acknowledged', async () => {
		let calls = 0;
		const flaky = await startReceiver(() => (++calls <= 2 ? 500 : 200));
		try {
			await t.control.put('/faults', { retry_schedule_ms: [40, 80, 1000] });
			const hook = await createHook({ url: flaky.url, events: ['contact.created'] });
			await t.api.post('/contacts', { name: 'Retry Rita' });
			await waitFor(() => flaky.received.length >= 3);
			await sleep(150);
			expect(flaky.received).toHaveLength(3);
			const ids = flaky.received.map((r) => r.headers['x-service-webhook-id']);
			expect(new Set(ids).size).toBe(1);
			expect(new Set(flaky.received.map((r) => r.body)).size).toBe(1);
			for (const r of flaky.received) expect(verifySignature(hook.secret, r.headers, r.body)).toBe(true);
			expect(flaky.received[1].at - flaky.received[0].at).toBeGreaterThanOrEqual(35);
			expect(flaky.received[2].at - flaky.received[1].at).toBeGreaterThanOrEqual(75);
			const log = (await t.control.get(`/deliveries?event_id=${ids[0]}`)).body;
			expect(log.map((d) => [d.attempt, d.status, d.ok])).toEqual([
				[1, 500, false],
				[2, 500, false],
				[3, 200, true],
			]);
			expect(log[0]).toMatchObject({ event_id: ids[0], webhook_id: hook.id, url: flaky.url, at: expect.stringMatching(ISO_PATTERN) });
		} finally {
			await flaky.close();
		}
	});

	test('after the last retry the delivery is dropped', async () => {
		const failing = await startReceiver(() => 503);
		try {
			await t.control.put('/faults', { retry_schedule_ms: [20, 20] });
			await createHook({ url: failing.url, events: ['contact.created'] });
			await t.api.post('/contacts', { name: 'Dropped Dan' });
			await waitFor(() => failing.received.length >= 3);
			await sleep(200);
			expect(failing.received).toHaveLength(3);
		} finally {
			await failing.close();
		}
	});

	test('connection errors count as failures (status null) and are retried', async () => {
		const gone = await startReceiver();
		const url = gone.url;
		await gone.close();
		await t.control.put('/faults', { retry_schedule_ms: [20] });
		const hook = await createHook({ url, events: ['contact.created'] });
		await t.api.post('/contacts', { name: 'Nobody Home' });
		const log = await waitFor(async () => {
			const entries = (await t.control.get(`/deliveries?webhook_id=${hook.id}`)).body;
			return entries.length >= 2 && entries;
		});
		expect(log.map((d) => [d.attempt, d.status, d.ok])).toEqual([
			[1, null, false],
			[2, null, false],
		]);
	});

	test('no answer within 10 s is a failure: the attempt is dropped and retried', async () => {
		// A receiver that holds its first request open and never answers it.
		const arrivals = [];
		const held = [];
		const silent = http.createServer((req, res) => {
			arrivals.push(Date.now());
			if (arrivals.length === 1) held.push(res);
			else res.end('ok');
		});
		await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
		try {
			await t.control.put('/faults', { retry_schedule_ms: [20] });
			const hook = await createHook({ url: `http://127.0.0.1:${silent.address().port}/hooks`, events: ['contact.created'] });
			await t.api.post('/contacts', { name: 'Slow Sam' });
			const log = await waitFor(
				async () => {
					const entries = (await t.control.get(`/deliveries?webhook_id=${hook.id}`)).body;
					return entries.length >= 2 && entries;
				},
				{ timeoutMs: 25_000, intervalMs: 200 },
			);
			expect(log.map((d) => [d.attempt, d.status, d.ok])).toEqual([
				[1, null, false],
				[2, 200, true],
			]);
			// The retry waited the full 10 s for the first answer (timers may
			// fire a millisecond early), then the 20 ms of the schedule.
			expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(9_990);
		} finally {
			silent.closeAllConnections();
			await new Promise((resolve) => silent.close(resolve));
		}
	}, 40_000);

	test('webhook_fail_rate 1: every attempt counts as failed even on 200, so retries follow', async () => {
		await t.control.put('/faults', { webhook_fail_rate: 1, retry_schedule_ms: [20, 20] });
		const rx = await startReceiver(() => 200);
		try {
			await createHook({ url: rx.url, events: ['contact.created'] });
			await t.api.post('/contacts', { name: 'Fail Fiona' });
			await waitFor(() => rx.received.length >= 3);
			await sleep(100);
			expect(rx.received).toHaveLength(3);
			const id = rx.received[0].headers['x-service-webhook-id'];
			const log = (await t.control.get(`/deliveries?event_id=${id}`)).body;
			expect(log.map((d) => [d.status, d.ok, d.injected_failure])).toEqual([
				[200, false, true],
				[200, false, true],
				[200, false, true],
			]);
		} finally {
			await rx.close();
		}
	});

	test('webhook_duplicate_rate 1: acknowledged events arrive twice with the same id, some copies concurrent', async () => {
		await t.control.put('/faults', { webhook_duplicate_rate: 1 });
		const rx = await startReceiver(() => 200);
		try {
			const hook = await createHook({ url: rx.url, events: ['contact.created'] });
			for (let i = 0; i < 16; i++) await t.api.post('/contacts', { name: `Dup ${i}` });
			await waitFor(() => rx.received.length >= 32, { timeoutMs: 5000 });
			await sleep(300);
			const byId = new Map();
			for (const r of rx.received) {
				const id = r.headers['x-service-webhook-id'];
				byId.set(id, [...(byId.get(id) || []), r]);
				expect(verifySignature(hook.secret, r.headers, r.body)).toBe(true);
			}
			expect(byId.size).toBe(16);
			for (const copies of byId.values()) expect(copies).toHaveLength(2);
			const log = (await t.control.get(`/deliveries?webhook_id=${hook.id}`)).body;
			expect(log.filter((d) => d.duplicate)).toHaveLength(16);
			// Both kinds of copies happen: alongside the original and after its 2xx.
			const modes = log.filter((d) => d.duplicate).map((d) => d.copy);
			expect(modes).toContain('concurrent');
			expect(modes).toContain('late');
			for (const copies of byId.values()) {
				const log1 = log.filter((d) => d.event_id === copies[0].headers['x-service-webhook-id']);
				const original = log1.find((d) => !d.duplicate);
				const copy = log1.find((d) => d.duplicate);
				if (copy.copy === 'late') expect(Date.parse(copy.at)).toBeGreaterThanOrEqual(Date.parse(original.at));
			}
		} finally {
			await rx.close();
		}
	});
});
