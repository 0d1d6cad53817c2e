/**
 * Deliveries produced by the sandbox's real signed sender reach the trigger's
 * webhook() through n8n-core's WebhookContext. Forged, tampered, stale,
 * unsigned and malformed requests are made by altering a captured real one.
 */
import { createHmac, randomBytes } from 'crypto';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Received, TriggerHost } from '../support/host/trigger.cjs';
import { api, control, deliveries, pause, waitFor } from '../support/sandbox.cjs';
import { useTriggerHosts } from '../support/suite.cjs';

interface World {
	key: string;
	telegramConversation: string;
	whatsappConversation: string;
}

const suite = useTriggerHosts({ seed: 'empty', clearFaults: true });

/** A workspace of its own per test, so no other test's webhook receives its events. */
async function newWorld(): Promise<World> {
	const { app_id } = (await control(suite.sb, 'POST', '/workspaces', {})) as { app_id: string };
	const { key } = (await control(suite.sb, 'POST', '/keys', { app_id, mode: 'test' })) as { key: string };
	const conversationOn = async (type: string) => {
		const channel = (await control(suite.sb, 'POST', '/channels', { app_id, type, name: type })) as { id: string };
		return ((await control(suite.sb, 'POST', '/conversations', { app_id, channel_id: channel.id })) as { id: string }).id;
	};
	return { key, telegramConversation: await conversationOn('telegram'), whatsappConversation: await conversationOn('whatsapp') };
}

const activeHost = async (world: World, parameters: INodeParameters, processes = 1): Promise<TriggerHost> =>
	await suite.activeHost(world.key, parameters, { processes });

const inbound = async (conversation: string, text = 'Hello') =>
	(await control(suite.sb, 'POST', '/inbound', { conversation_id: conversation, text })) as IDataObject;

const sendAsAgent = async (world: World, conversation: string, extra: IDataObject = {}) =>
	await api(
		suite.sb,
		'POST',
		'/messages/text',
		{ conversation_id: conversation, text: 'Agent here', client_request_id: randomBytes(8).toString('hex'), ...extra },
		world.key,
	);

const createContact = async (world: World, name = 'Ada Lovelace') =>
	(await api(suite.sb, 'POST', '/contacts', { name }, world.key)) as IDataObject;

function secretOf(host: TriggerHost): string {
	return ((host.nodeStaticData().production as IDataObject).webhook as IDataObject).secret as string;
}

/** docs/api-assumptions.md, "Webhook deliveries", written independently of the node's code. */
function sign(secret: string, id: string, timestamp: number | string, body: Buffer): string {
	const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
	const mac = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]));
	return `v1,${mac.digest('base64')}`;
}

const now = () => Math.floor(Date.now() / 1000);

interface Sent {
	status: number;
	body: string;
}

async function send(url: string, headers: Record<string, string | undefined>, body: Buffer | string): Promise<Sent> {
	const present = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<string, string>;
	const response = await fetch(url, { method: 'POST', headers: present, body });
	return { status: response.status, body: await response.text() };
}

/** The signed headers of a captured delivery, with some replaced. */
function headersOf(captured: Received, changes: Record<string, string | undefined> = {}) {
	return {
		'content-type': captured.headers['content-type'],
		'x-service-webhook-id': captured.headers['x-service-webhook-id'],
		'x-service-webhook-timestamp': captured.headers['x-service-webhook-timestamp'],
		'x-service-webhook-signature': captured.headers['x-service-webhook-signature'],
		...changes,
	};
}

/** A captured delivery under a new event id, signed with `secret`: an event the node has not seen. */
/** A new event like the captured one (the header id is the body's id: docs/api-assumptions.md, "Webhook deliveries"), signed with `secret`. */
function freshCopy(captured: Received, secret: string, timestamp = now(), otherBody?: Buffer) {
	const id = `evt_test${randomBytes(8).toString('hex')}`;
	const body = otherBody ?? Buffer.from(JSON.stringify({ ...(JSON.parse(captured.rawBody.toString('utf8')) as IDataObject), id }));
	return {
		headers: headersOf(captured, {
			'x-service-webhook-id': id,
			'x-service-webhook-timestamp': String(timestamp),
			'x-service-webhook-signature': sign(secret, id, timestamp, body),
		}),
		body,
	};
}

async function sendCopy(url: string, copy: { headers: Record<string, string | undefined>; body: Buffer }) {
	return await send(url, copy.headers, copy.body);
}

async function attemptsFor(host: TriggerHost, kind: 'production' | 'test' = 'production') {
	return (await deliveries(suite.sb)).filter((attempt) => attempt.url === host.url(kind));
}

/** Waits until the sandbox has recorded `count` answered attempts to the host. */
async function settledAttempts(host: TriggerHost, count: number) {
	return await waitFor(`${count} delivery attempts`, async () => {
		const attempts = await attemptsFor(host);
		return attempts.length >= count ? attempts : undefined;
	});
}

const executionIds = (host: TriggerHost) => host.executions.map((execution) => execution.json.id);

test('real signed deliveries start one execution each, with the whole event', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['*'] });

	const message = await inbound(world.telegramConversation, 'Where is my order?');
	const contact = await createContact(world);
	await settledAttempts(host, 2);

	expect(host.executions).toHaveLength(2);
	const byType = Object.fromEntries(host.executions.map((execution) => [execution.json.type, execution.json]));
	expect(Object.keys(byType).sort()).toEqual(['contact.created', 'message.created']);
	for (const event of Object.values(byType)) {
		expect(event).toEqual({
			id: expect.stringMatching(/^evt_/),
			type: expect.any(String),
			created_at: expect.any(String),
			app_id: expect.any(String),
			data: expect.any(Object),
		});
	}
	expect(byType['message.created'].data).toMatchObject({ id: message.id, content: 'Where is my order?', from_customer: true });
	expect((byType['contact.created'].data as IDataObject).id).toBe(contact.id);
	expect((await attemptsFor(host)).every((attempt) => attempt.status === 200)).toBe(true);
});

test('forged, tampered, stale, unsigned, replayed and malformed deliveries start nothing', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['*'] });
	await inbound(world.telegramConversation);
	await settledAttempts(host, 1);
	expect(host.executions).toHaveLength(1);
	const captured = host.received[0];
	const secret = secretOf(host);
	const url = host.url('production');
	const id = captured.headers['x-service-webhook-id'];
	const timestamp = captured.headers['x-service-webhook-timestamp'];

	const tamperedBody = Buffer.from(captured.rawBody.toString('utf8').replace('Hello', 'Hellp'));
	const otherSecret = `whsec_${randomBytes(32).toString('base64')}`;
	// Each refusal says why, as the README's troubleshooting quotes it.
	const NO_MATCH = 'no matching signature';
	const STALE = 'stale timestamp';
	const MISSING = 'missing headers';
	const refusals: Array<[string, Promise<Sent>, number, string]> = [
		['tampered body', send(url, headersOf(captured), tamperedBody), 401, NO_MATCH],
		['forged signature', send(url, headersOf(captured, { 'x-service-webhook-signature': `v1,${randomBytes(32).toString('base64')}` }), captured.rawBody), 401, NO_MATCH],
		['signed with another secret', sendCopy(url, freshCopy(captured, otherSecret)), 401, NO_MATCH],
		['id changed after signing', send(url, headersOf(captured, { 'x-service-webhook-id': `${id}x` }), captured.rawBody), 401, NO_MATCH],
		['timestamp changed after signing', send(url, headersOf(captured, { 'x-service-webhook-timestamp': String(Number(timestamp) + 1) }), captured.rawBody), 401, NO_MATCH],
		// Well beyond the 300 s tolerance: a second boundary passed between now() here and the check left +301 at exactly 300 (a flake).
		['stale, correctly signed', send(url, freshCopy(captured, secret, now() - 330).headers, captured.rawBody), 401, STALE],
		['from the future, correctly signed', send(url, freshCopy(captured, secret, now() + 330).headers, captured.rawBody), 401, STALE],
		['unsigned', send(url, headersOf(captured, { 'x-service-webhook-signature': undefined }), captured.rawBody), 401, MISSING],
		['no timestamp', send(url, headersOf(captured, { 'x-service-webhook-timestamp': undefined }), captured.rawBody), 401, MISSING],
		['no event id', send(url, headersOf(captured, { 'x-service-webhook-id': undefined }), captured.rawBody), 401, MISSING],
		['unknown signature version', send(url, headersOf(captured, { 'x-service-webhook-signature': captured.headers['x-service-webhook-signature'].replace('v1,', 'v0,') }), captured.rawBody), 401, NO_MATCH],
	];
	for (const [name, sent, status, error] of refusals) {
		const answer = await sent;
		expect({ name, status: answer.status, body: JSON.parse(answer.body) as unknown }).toEqual({ name, status, body: { error } });
		expect(answer.body).not.toContain(secret.slice('whsec_'.length, 20));
	}

	const notJson = Buffer.from('this is not json');
	const notJsonCopy = freshCopy(captured, secret, now(), notJson);
	expect((await send(url, { ...notJsonCopy.headers, 'content-type': 'text/plain' }, notJson)).status).toBe(400);
	const jsonArray = Buffer.from('[1,2]');
	expect((await send(url, freshCopy(captured, secret, now(), jsonArray).headers, jsonArray)).status).toBe(400);

	// An exact replay of the real delivery: accepted as a duplicate (2xx), nothing runs.
	const replay = await send(url, headersOf(captured), captured.rawBody);
	expect(replay.status).toBe(200);
	expect(JSON.parse(replay.body)).toMatchObject({ executed: false, reason: 'duplicate' });
	expect(host.executions).toHaveLength(1);

	// Controls: the crafting above is right, so a correctly signed new event inside
	// the window is accepted, also among several v1 entries.
	const inWindow = freshCopy(captured, secret, now() - 290);
	expect((await send(url, inWindow.headers, inWindow.body)).status).toBe(200);
	const multi = freshCopy(captured, secret);
	const entries = `v1,${randomBytes(32).toString('base64')} ${multi.headers['x-service-webhook-signature']}`;
	expect((await send(url, { ...multi.headers, 'x-service-webhook-signature': entries }, multi.body)).status).toBe(200);
	// A signed event whose body names another id than its header is malformed.
	const mismatched = freshCopy(captured, secret, now(), captured.rawBody);
	expect((await send(url, mismatched.headers, mismatched.body)).status).toBe(400);
	expect(host.executions).toHaveLength(3);
});

test('duplicates from the sender (at the same time or after the 2xx) start one execution per event', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['message.created'] });
	await control(suite.sb, 'PUT', '/faults', { webhook_duplicate_rate: 1 });
	// As in n8n, a run saves its static data only after starting the execution:
	// copies that arrive meanwhile load the static data from before.
	host.beforeSave = async () => await pause(50);

	// The sandbox makes each copy concurrent or late on a coin flip; the test
	// proves its title only when both kinds came, so it sends until they have
	// (10 events at least, 40 at most: both missing by chance about 2e-12).
	let events = 0;
	let attempts: Awaited<ReturnType<typeof settledAttempts>> = [];
	const copyKinds = () => new Set(attempts.filter((attempt) => attempt.duplicate).map((attempt) => attempt.copy));
	while (events < 40) {
		await inbound(world.telegramConversation, `Message ${events}`);
		events++;
		if (events < 10) continue;
		attempts = await settledAttempts(host, events * 2);
		if (copyKinds().size === 2) break;
	}

	expect(copyKinds()).toEqual(new Set(['concurrent', 'late']));
	expect(attempts.filter((attempt) => attempt.duplicate)).toHaveLength(events);
	// A copy arriving while the first is being started waits for it and is
	// acknowledged once the execution exists: every copy got its 200.
	expect(attempts.map((attempt) => attempt.status).filter((status) => status !== 200)).toEqual([]);
	const acknowledged = new Set(attempts.filter((attempt) => attempt.status === 200).map((attempt) => attempt.event_id));
	expect(acknowledged.size).toBe(events);
	await pause(300);
	expect(host.executions).toHaveLength(events);
	expect(new Set(executionIds(host)).size).toBe(events);
});

test('copies arriving at the same moment start exactly one execution', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['message.created'] });
	await control(suite.sb, 'PUT', '/faults', { retry_schedule_ms: [500] });
	// The first attempt is captured and answered 503 without running the node.
	host.gate = () => (host.received.length === 1 ? 'unavailable' : 'process');
	await inbound(world.telegramConversation);
	await settledAttempts(host, 1);
	const captured = host.received[0];
	// Every copy loads the static data before any of them saves.
	host.beforeSave = async () => await pause(100);

	const copies = await Promise.all(
		Array.from({ length: 8 }, async () => await send(host.url('production'), headersOf(captured), captured.rawBody)),
	);
	// One starts the execution; the others wait for it and are acknowledged as duplicates.
	expect(copies.map((copy) => copy.status)).toEqual(Array(8).fill(200));
	expect(copies.filter((copy) => copy.body.includes('Workflow was started'))).toHaveLength(1);

	// The sender's own retry comes later and is a duplicate too.
	const attempts = await settledAttempts(host, 2);
	expect(attempts.map((attempt) => attempt.status)).toEqual([503, 200]);
	expect(executionIds(host)).toEqual([captured.headers['x-service-webhook-id']]);
});

test('copies waiting for a first copy n8n failed to start (500): one of them starts the event, the others are acknowledged', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['message.created'] });
	await control(suite.sb, 'PUT', '/faults', { retry_schedule_ms: [500] });
	host.gate = () => (host.received.length === 1 ? 'unavailable' : 'process');
	await inbound(world.telegramConversation);
	await settledAttempts(host, 1);
	const captured = host.received[0];
	// The next copy runs the node, then n8n fails to create its execution; the
	// copies sent meanwhile arrive while it is being started.
	let failing = true;
	host.gate = () => {
		if (!failing) return 'process';
		failing = false;
		return 'failToStart';
	};
	host.beforeSave = async () => await pause(100);
	const first = send(host.url('production'), headersOf(captured), captured.rawBody);
	await pause(20);
	const copies = await Promise.all(
		Array.from({ length: 4 }, async () => await send(host.url('production'), headersOf(captured), captured.rawBody)),
	);
	expect((await first).status).toBe(500);
	expect(copies.map((copy) => copy.status)).toEqual([200, 200, 200, 200]);
	expect(copies.filter((copy) => copy.body.includes('Workflow was started'))).toHaveLength(1);
	await settledAttempts(host, 2);
	await pause(300);
	expect(executionIds(host)).toEqual([captured.headers['x-service-webhook-id']]);
});

test('a redelivery after n8n restarts runs nothing downstream', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['message.created'] });
	await control(suite.sb, 'PUT', '/faults', { retry_schedule_ms: [1_500] });
	// Run as usual, then the connection drops before the answer: the sender retries.
	host.gate = () => (host.received.length === 1 ? 'processThenDrop' : 'process');
	await inbound(world.telegramConversation);
	await waitFor('the first execution', () => (host.executions.length === 1 ? true : undefined));

	host.restart();
	const attempts = await settledAttempts(host, 2);
	expect(attempts.map((attempt) => attempt.status)).toEqual([null, 200]);
	// The fresh process starts an execution; its first step finds the id in n8n's database.
	await waitFor('the redelivery\'s execution', () => (host.duplicateExecutions.length === 1 ? true : undefined));
	expect(host.executions).toHaveLength(1);
	expect(host.duplicateExecutions[0].hints.join(' ')).toMatch(/already ran in an earlier execution/);

	// Control: without the ledger, a restart forgets the event.
	const captured = host.received[0];
	host.processedData.rows.clear();
	host.restart();
	expect((await send(host.url('production'), headersOf(captured), captured.rawBody)).body).toContain('Workflow was started');
	expect(host.executions).toHaveLength(2);
});

test('after a restart, copies of every accepted event run nothing downstream; Output Data Only still applies', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['message.created'], options: { outputDataOnly: true } });
	await inbound(world.telegramConversation, 'one');
	await inbound(world.telegramConversation, 'two');
	await settledAttempts(host, 2);
	expect(host.executions).toHaveLength(2);
	expect(host.executions.map((execution) => execution.json.content)).toEqual(['one', 'two']);

	host.restart();
	for (const captured of [...host.received]) {
		expect((await send(host.url('production'), headersOf(captured), captured.rawBody)).status).toBe(200);
	}
	expect(host.executions).toHaveLength(2);
	expect(host.duplicateExecutions).toHaveLength(2);
});

test('a run that saves its older copy after a re-activation does not lock out the new webhook', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['message.created'] });
	const webhookId = () => ((host.nodeStaticData().production as IDataObject).webhook as IDataObject).id;
	const oldId = webhookId();
	// While the first run is in flight, the workflow is re-activated with other events.
	host.beforeSave = async () => {
		host.beforeSave = async () => undefined;
		host.setParameters({ events: ['message.created', 'contact.created'] });
		await host.activate();
	};
	await inbound(world.telegramConversation);
	await waitFor('the first execution', () => (host.executions.length === 1 ? true : undefined));
	// A delivery that starts an execution changes no static data, so n8n saves no
	// older copy over the new registration.
	expect(webhookId()).not.toBe(oldId);

	await createContact(world);
	await waitFor('the second execution', () => (host.executions.length === 2 ? true : undefined));
	expect(host.executions[1].json.type).toBe('contact.created');
	const current = (await api(suite.sb, 'GET', '/webhooks?per_page=500', undefined, world.key)) as { data: IDataObject[] };
	expect(webhookId()).toBe(current.data.find((webhook) => webhook.url === host.url('production'))?.id);
});

test('queue mode: a copy reaching another webhook process runs nothing downstream', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['message.created'] }, 2);
	host.route = (requestNumber) => requestNumber % 2;
	await inbound(world.telegramConversation);
	await settledAttempts(host, 1);
	const captured = host.received[0];

	const replay = await send(host.url('production'), headersOf(captured), captured.rawBody);
	expect(replay.status).toBe(200);
	expect(host.executions.map((execution) => execution.process)).toEqual([0]);
	expect(host.duplicateExecutions.map((execution) => execution.process)).toEqual([1]);
});

describe('filters answer 2xx and start nothing', () => {
	test('message direction', async () => {
		const world = await newWorld();
		const host = await activeHost(world, { events: ['*'], options: { directions: ['customer'] } });

		await inbound(world.telegramConversation, 'from the customer');
		await sendAsAgent(world, world.telegramConversation);
		await sendAsAgent(world, world.telegramConversation, { as_system: true });
		await createContact(world);
		const attempts = await settledAttempts(host, 4);

		expect(attempts.every((attempt) => attempt.status === 200)).toBe(true);
		expect(host.executions.map((execution) => execution.json.type).sort()).toEqual(['contact.created', 'message.created']);
		const message = host.executions.find((execution) => execution.json.type === 'message.created');
		expect((message?.json.data as IDataObject).content).toBe('from the customer');
		expect(host.answers.filter((answer) => answer.body.includes('filtered'))).toHaveLength(2);
	});

	test('agent and system directions', async () => {
		const world = await newWorld();
		const host = await activeHost(world, { events: ['message.created'], options: { directions: ['agent', 'system'] } });

		await inbound(world.telegramConversation);
		await sendAsAgent(world, world.telegramConversation);
		await sendAsAgent(world, world.telegramConversation, { as_system: true });
		await settledAttempts(host, 3);

		const senders = host.executions.map((execution) => (execution.json.data as IDataObject).from_user_id);
		expect(senders).toHaveLength(2);
		expect(senders.filter((sender) => sender === null)).toHaveLength(1);
		expect(host.executions.every((execution) => (execution.json.data as IDataObject).from_customer === false)).toBe(true);
	});

	test('channel types', async () => {
		const world = await newWorld();
		const host = await activeHost(world, { events: ['message.created'], options: { channelTypes: ['whatsapp'] } });

		await inbound(world.telegramConversation, 'on telegram');
		await inbound(world.whatsappConversation, 'on whatsapp');
		await settledAttempts(host, 2);

		expect(host.executions.map((execution) => (execution.json.data as IDataObject).content)).toEqual(['on whatsapp']);
	});
});

test('manual registration verifies with the pasted secret and passes only the chosen events', async () => {
	const world = await newWorld();
	const host = await suite.listeningHost(world.key, {});
	// The user's dashboard webhook, subscribed to everything.
	const dashboard = (await api(suite.sb, 'POST', '/webhooks', { url: host.url('production'), events: ['*'] }, world.key)) as IDataObject;
	host.setParameters({ events: ['contact.created'], registration: 'manual' });
	host.useSigningSecret(dashboard.secret as string);
	await host.activate();

	await inbound(world.telegramConversation);
	await createContact(world);
	await settledAttempts(host, 2);
	expect(host.executions.map((execution) => execution.json.type)).toEqual(['contact.created']);
	expect(host.answers.filter((answer) => answer.body.includes('not subscribed'))).toHaveLength(1);

	// A wrong secret in the credential: the service's deliveries are refused.
	host.setParameters({ events: ['*'], registration: 'manual' });
	host.useSigningSecret(`whsec_${randomBytes(32).toString('base64')}`);
	await control(suite.sb, 'PUT', '/faults', { retry_schedule_ms: [] });
	await createContact(world, 'Grace Hopper');
	const attempts = await settledAttempts(host, 3);
	expect(attempts[2].status).toBe(401);
	expect(host.executions).toHaveLength(1);

	// A secret that is not one (not whsec_ and base64): nothing can verify, and the answer says so.
	host.useSigningSecret('whsec_not base64!');
	const answer = await send(host.url('production'), { 'content-type': 'application/json' }, '{}');
	expect({ status: answer.status, body: JSON.parse(answer.body) as unknown }).toEqual({ status: 401, body: { error: 'no signing secret' } });
	expect(host.executions).toHaveLength(1);
});

test('"Output Data Only" emits the message itself', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['message.created'], options: { outputDataOnly: true } });
	const message = await inbound(world.telegramConversation, 'Only the data');
	await settledAttempts(host, 1);
	expect(host.executions.map((execution) => execution.json)).toEqual([message]);
});

test('the test URL and the production URL each get every event once', async () => {
	const world = await newWorld();
	const host = await activeHost(world, { events: ['message.created'] });
	await host.listenForTestEvent();

	await inbound(world.telegramConversation, 'seen by both');
	await waitFor('both executions', () => (host.executions.length === 2 ? true : undefined));
	expect(host.executions.map((execution) => execution.kind).sort()).toEqual(['production', 'test']);
	expect(new Set(executionIds(host)).size).toBe(1);
	await waitFor('the test webhook removal', () => (host.isListening() ? undefined : true));

	// The test webhook is gone after its event; production goes on.
	await inbound(world.telegramConversation, 'production only');
	await settledAttempts(host, 2);
	expect(host.executions.map((execution) => execution.kind)).toEqual(expect.arrayContaining(['production', 'test', 'production']));
	expect(host.executions).toHaveLength(3);
	expect((await attemptsFor(host, 'test')).length).toBe(1);
});
