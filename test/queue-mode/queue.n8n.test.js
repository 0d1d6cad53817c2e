'use strict';
// The package in n8n's queue mode: PostgreSQL, Redis, a main process, two
// workers and a webhook process (harness/queue.js). The action node runs on
// workers; the trigger registers the webhook process's URL from main; every
// event runs its downstream nodes exactly once, counted in the sandbox, under
// redeliveries across restarts of each process, copies sent alternately to
// the webhook process and main, and copies arriving at the same moment on both.
const crypto = require('crypto');

const { sleep, waitFor, workflows: w } = require('../../harness');
const { openQueueContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { customerMessageEvent } = require('../support/n8n/signed-events');

const TEST_TIMEOUT_MS = 6 * 60 * 1000;
/** Time for anything that should not happen (a second downstream run) to show up. */
const QUIET_PERIOD_MS = 4000;
const SAME_MOMENT_EVENTS = Number(process.env.QUEUE_SAME_MOMENT_EVENTS ?? 200);
const SIGNING_SECRET = `whsec_${crypto.randomBytes(24).toString('base64')}`;
const SIGNING_CREDENTIAL = { id: 'queueSigningCred1', name: 'Queue signing secret', type: 'omnichannelWebhookSigningApi', data: { signingSecret: SIGNING_SECRET } };

const IDS = {
	identity: 'queueIdentity001',
	contacts: 'queueContacts001',
	send: 'queueSendText001',
	image: 'queueSendImage01',
	auto: 'queueAutoTrig001',
	manual: 'queueManualTrg01',
};

const started = Date.now();
let ctx;
let cluster;
let sandbox;
let client;
let credential;
let conversationId;

/** A production Webhook node answering with every item of the last node. */
const webhookStart = (path) =>
	w.node('Request', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} }, {
		typeVersion: 2,
		webhookId: crypto.randomUUID(),
	});

const actionWorkflow = (id, path, nodes) =>
	w.workflow({ id, name: `Queue ${path}`, nodes: [webhookStart(path), ...nodes], connections: w.chain('Request', ...nodes.map((n) => n.name)) });

/** Downstream of both triggers: one Send Text per run, naming the event, so the sandbox counts runs. */
const runMarker = (prefix) =>
	w.omnichannelNode('Count run', credential, {
		resource: 'message',
		operation: 'sendText',
		conversationId: w.byId(conversationId),
		text: `={{ '${prefix} ' + $json.id }}`,
	});

function workflows() {
	const node = (name, parameters) => w.omnichannelNode(name, credential, parameters);
	const trigger = (parameters, extra) =>
		w.omnichannelTrigger('On customer message', credential, { events: ['message.created'], options: { directions: ['customer'] }, ...parameters }, extra);
	return [
		actionWorkflow(IDS.identity, 'q-identity', [node('Identity', { resource: 'identity', operation: 'get' })]),
		actionWorkflow(IDS.contacts, 'q-contacts', [node('Contacts', { resource: 'contact', operation: 'getAll', returnAll: true })]),
		actionWorkflow(IDS.send, 'q-send', [
			node('Send text', { resource: 'message', operation: 'sendText', conversationId: w.byId('={{ $json.body.conversation_id }}'), text: '={{ $json.body.text }}' }),
		]),
		actionWorkflow(IDS.image, 'q-image', [
			w.node(
				'To file',
				'n8n-nodes-base.convertToFile',
				{ operation: 'toBinary', sourceProperty: 'body.png', binaryPropertyName: 'data', options: { fileName: 'queue.png', mimeType: 'image/png' } },
				{ typeVersion: 1.1 },
			),
			node('Send image', { resource: 'message', operation: 'sendImage', conversationId: w.byId(conversationId), binaryPropertyName: 'data', options: { caption: 'from a worker' } }),
		]),
		w.workflow({ id: IDS.auto, name: 'Queue trigger (automatic)', nodes: [trigger({}), runMarker('auto')], connections: w.chain('On customer message', 'Count run') }),
		w.workflow({
			id: IDS.manual,
			name: 'Queue trigger (manual)',
			nodes: [
				trigger({ registration: 'manual' }, { credentials: { omnichannelWebhookSigningApi: { id: SIGNING_CREDENTIAL.id, name: SIGNING_CREDENTIAL.name } } }),
				runMarker('copy'),
			],
			connections: w.chain('On customer message', 'Count run'),
		}),
	];
}

/** Texts of the messages in the test conversation, counted. */
async function runsByText() {
	const messages = await client.listAll('/messages', { conversation_id: conversationId });
	const counts = new Map();
	for (const message of messages) counts.set(message.content, (counts.get(message.content) ?? 0) + 1);
	return counts;
}

async function callWebhook(path, body) {
	const response = await fetch(`${cluster.webhook.baseUrl}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const text = await response.text();
	if (response.status !== 200) throw new Error(`/webhook/${path} answered ${response.status}: ${text}`);
	return JSON.parse(text);
}

/** A customer's message.created event for the manual-registration workflow, signed when sent. */
const signedEvent = (eventId) =>
	customerMessageEvent({ secret: SIGNING_SECRET, eventId, appId: sandbox.app_id, conversationId, content: 'copy' });

let manualPath;
async function deliverCopy(n8n, copy) {
	const { headers, body } = copy();
	const response = await fetch(`${n8n.baseUrl}/webhook/${manualPath}`, { method: 'POST', headers, body });
	await response.text();
	return response.status;
}

const newEventId = () => `evt_${crypto.randomBytes(10).toString('hex')}`;

/**
 * The event id of the customer message written after `before` (runsByText()
 * taken just before): the one new "auto" run. Not the delivery log's first
 * entry: a delivery of an earlier test's outbound message (the run marker's
 * own message.created) can still be answered, and logged, after that test.
 */
async function newAutoRun(before, timeoutMs = 120_000) {
	const fresh = await waitFor(
		async () => {
			const texts = [...(await runsByText()).keys()].filter((text) => text.startsWith('auto ') && !before.has(text));
			return texts.length > 0 ? texts : undefined;
		},
		{ what: 'the new event’s downstream run', timeoutMs, intervalMs: 1000 },
	);
	expect(fresh).toHaveLength(1);
	return fresh[0].slice('auto '.length);
}

async function waitForRuns(texts, timeoutMs = 120_000) {
	return await waitFor(
		async () => {
			const counts = await runsByText();
			return texts.every((text) => counts.has(text)) ? counts : undefined;
		},
		{ what: `${texts.length} downstream run(s)`, timeoutMs, intervalMs: 1000 },
	);
}

beforeAll(async () => {
	ctx = await openQueueContext({
		credential: { id: 'queueSandboxCred' },
		// It restarts every role: a cluster of its own.
		ownCluster: true,
		setUp: async (opened) => {
			({ sandbox, client, credential } = opened);
			const active = new Set((await client.listAll('/channels')).filter((c) => c.is_active).map((c) => c.id));
			conversationId = (await client.listAll('/conversations')).find((c) => active.has(c.channel_id)).id;
			await client.control('POST', '/bulk', { contacts: 1200 });
			const all = workflows();
			manualPath = `${all.find((wf) => wf.id === IDS.manual).nodes[0].webhookId}/omnichannel`;
			return { credentials: [SIGNING_CREDENTIAL], workflows: all, publish: all.map(({ id }) => id) };
		},
	});
	cluster = ctx.cluster;
	console.log(`[queue] up in ${Math.round((Date.now() - started) / 1000)} s:\n  ${cluster.describe().join('\n  ')}`);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	try {
		await ctx?.close();
	} finally {
		console.log(`[queue] queue-mode suite took ${Math.round((Date.now() - started) / 1000)} s`);
	}
});

describe('the action node on queue-mode workers', () => {
	test(
		'Identity, Return All, Send Text and a media send from binary data run on workers, each send once',
		async () => {
			// Production webhooks of main-published workflows answer on the webhook process.
			const [identity] = await waitFor(async () => await callWebhook('q-identity', {}), { what: 'the published workflows', timeoutMs: 60_000, intervalMs: 1000 });
			expect(identity).toMatchObject({ app_id: sandbox.app_id });

			const contacts = await callWebhook('q-contacts', {});
			const expected = await client.listAll('/contacts');
			expect(contacts).toHaveLength(expected.length);
			expect(new Set(contacts.map((c) => c.id)).size).toBe(expected.length);

			const text = `queue text ${crypto.randomUUID()}`;
			const [sent] = await callWebhook('q-send', { conversation_id: conversationId, text });
			expect(sent).toMatchObject({ conversation_id: conversationId, content: text });

			const png = crypto.randomBytes(2048);
			const [image] = await callWebhook('q-image', { png: png.toString('base64') });
			const stored = await client.control('GET', `/messages/${image.id}`);
			expect(stored).toMatchObject({ content_type: 'image/png', size: png.length, sha256: crypto.createHash('sha256').update(png).digest('hex') });

			const counts = await runsByText();
			expect(counts.get(text)).toBe(1);
			// Every execution of these workflows ran on a worker, none on main or the webhook process.
			const ran = cluster.workerExecutionIds();
			const executions = [];
			for (const id of [IDS.identity, IDS.contacts, IDS.send, IDS.image]) executions.push(...(await cluster.main.listExecutions({ workflowId: id })));
			expect(executions).toHaveLength(4);
			for (const execution of executions) {
				expect(execution.status).toBe('success');
				expect(ran.some((ids) => ids.has(String(execution.id)))).toBe(true);
			}
		},
		TEST_TIMEOUT_MS,
	);
});

describe('the trigger in queue mode', () => {
	const webhooksAtSandbox = async () => (await client.listAll('/webhooks')).filter((hook) => hook.url.includes('/webhook/'));

	test(
		'publishing on main registers the webhook process’s URL; a customer message runs once, on a worker',
		async () => {
			const [hook] = await waitFor(async () => {
				const hooks = await webhooksAtSandbox();
				return hooks.length > 0 ? hooks : undefined;
			}, { what: 'the trigger’s webhook at the sandbox', timeoutMs: 60_000 });
			expect(hook.url.startsWith(`${cluster.webhook.baseUrl}/webhook/`)).toBe(true);

			const before = await runsByText();
			await client.control('POST', '/inbound', { conversation_id: conversationId, text: 'Hello, queue mode' });
			const eventId = await newAutoRun(before);
			const deliveries = await client.control('GET', `/deliveries?event_id=${eventId}`);
			expect(deliveries.map((d) => d.status)).toEqual([200]);
			expect((await runsByText()).get(`auto ${eventId}`)).toBe(1);
		},
		TEST_TIMEOUT_MS,
	);

	// The sandbox takes n8n's 200 as a failure and redelivers every 2 s, so
	// redeliveries of an event that already ran reach the restarted processes.
	for (const role of ['webhook', 'worker', 'main', 'all']) {
		test(
			`a redelivery after a restart of ${role === 'all' ? 'every n8n process' : `the ${role} process${role === 'worker' ? 'es' : ''}`} runs nothing downstream`,
			async () => {
				await client.control('DELETE', '/deliveries');
				await client.control('PUT', '/faults', { webhook_fail_rate: 1, retry_schedule_ms: Array(60).fill(2000) });
				let eventId;
				let restartedAt;
				try {
					const before = await runsByText();
					await client.control('POST', '/inbound', { conversation_id: conversationId, text: `Before restarting ${role}` });
					eventId = await newAutoRun(before);
					await cluster.restart(role);
					restartedAt = Date.now();
					// Redeliveries verified and answered by the restarted processes.
					await waitFor(
						async () => (await client.control('GET', `/deliveries?event_id=${eventId}`)).filter((a) => a.status === 200 && Date.parse(a.at) > restartedAt).length >= 2,
						{ what: 'two redeliveries answered after the restart', timeoutMs: 90_000, intervalMs: 1000 },
					);
				} finally {
					await client.control('DELETE', '/faults');
				}
				await sleep(QUIET_PERIOD_MS);
				expect((await runsByText()).get(`auto ${eventId}`)).toBe(1);
			},
			TEST_TIMEOUT_MS,
		);
	}

	test(
		'the registration survived every restart: a new event still runs once',
		async () => {
			const before = await runsByText();
			await client.control('POST', '/inbound', { conversation_id: conversationId, text: 'After all restarts' });
			const eventId = await newAutoRun(before);
			const deliveries = await client.control('GET', `/deliveries?event_id=${eventId}`);
			expect(deliveries.map((d) => d.status)).toEqual([200]);
			expect((await runsByText()).get(`auto ${eventId}`)).toBe(1);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'sequential copies sent alternately to the webhook process and main run once per event',
		async () => {
			const events = Array.from({ length: 20 }, () => newEventId());
			for (const eventId of events) {
				const copy = signedEvent(eventId);
				const statuses = [];
				for (const n8n of [cluster.webhook, cluster.main, cluster.webhook, cluster.main]) statuses.push(await deliverCopy(n8n, copy));
				// Each process starts the event's first copy; a process's second copy comes while that one is
				// being started (its first step runs on a worker, so the process never sees it start): 409, retry later.
				expect(statuses.slice(0, 2)).toEqual([200, 200]);
				for (const status of statuses.slice(2)) expect([200, 409]).toContain(status);
			}
			const counts = await waitForRuns(events.map((id) => `copy ${id}`));
			await sleep(QUIET_PERIOD_MS);
			const after = await runsByText();
			expect(events.map((id) => after.get(`copy ${id}`))).toEqual(events.map(() => 1));
			expect(counts.size).toBeGreaterThan(0);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		`copies arriving at the same moment on the webhook process and main: ${SAME_MOMENT_EVENTS} events`,
		async () => {
			const events = Array.from({ length: SAME_MOMENT_EVENTS }, () => newEventId());
			const statuses = [];
			// Eight events in flight at a time, each sent to both processes at once.
			for (let from = 0; from < events.length; from += 8) {
				await Promise.all(
					events.slice(from, from + 8).map(async (eventId) => {
						const copy = signedEvent(eventId);
						statuses.push(...(await Promise.all([deliverCopy(cluster.webhook, copy), deliverCopy(cluster.main, copy)])));
					}),
				);
			}
			expect(statuses.filter((status) => status !== 200)).toEqual([]);
			await waitForRuns(events.map((id) => `copy ${id}`), 300_000);
			await sleep(QUIET_PERIOD_MS);
			const counts = await runsByText();
			const runs = events.map((id) => counts.get(`copy ${id}`) ?? 0);
			const extra = runs.reduce((sum, n) => sum + n, 0) - events.length;
			console.log(
				`[queue] same-moment copies: ${events.length} events, ${events.length * 2} deliveries (webhook process + main), ` +
					`${runs.filter((n) => n === 1).length} ran downstream once, ${runs.filter((n) => n === 0).length} never, ${extra} extra downstream runs`,
			);
			expect(runs.filter((n) => n === 0)).toHaveLength(0);
			expect(extra).toBe(0);
		},
		15 * 60 * 1000,
	);
});
