'use strict';
// The trigger's manual registration in a real n8n: the signing secret lives in
// its own credential, so it is in no workflow JSON, export or execution
// record; correctly signed deliveries run once whatever their Content-Type;
// accepted deliveries get a JSON acknowledgement.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const { sleep, waitFor, workflows: w } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { signatureHeader } = require('../../sandbox/webhooks/signing');

const SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;
const OLD_SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;
const SIGNING_CREDENTIAL = { id: 'e2eSigningCred01', name: 'E2E signing secret', type: 'omnichannelWebhookSigningApi', data: { signingSecret: SECRET } };
const IDS = { v2: 'e2eHardenedV2001' };
const TRIGGER = 'On event';
const QUIET_PERIOD_MS = 3000;

/** The secret's own bytes, as n8n would store or print them if it leaked. */
const secretMarks = (secret) => [secret, secret.slice('whsec_'.length), secret.slice('whsec_'.length, 30)];

function event(eventId) {
	return JSON.stringify({
		id: eventId,
		type: 'message.created',
		created_at: new Date().toISOString(),
		app_id: 'app_e2e',
		data: { id: `msg_${eventId.slice(4)}`, conversation_id: 'conv_e2e', content: 'hi', from_customer: true },
	});
}

describe('Omnichannel Trigger, manual registration hardened', () => {
	let ctx;
	const urls = {};

	async function deliver(workflowId, { secret = SECRET, contentType, body, eventId = `evt_${crypto.randomBytes(10).toString('hex')}` } = {}) {
		const raw = body ?? event(eventId);
		const timestamp = Math.floor(Date.now() / 1000);
		const headers = {
			'x-service-webhook-id': eventId,
			'x-service-webhook-timestamp': String(timestamp),
			'x-service-webhook-signature': signatureHeader(secret, eventId, timestamp, raw),
		};
		if (contentType) headers['content-type'] = contentType;
		// A Uint8Array body: fetch adds no Content-Type of its own.
		const response = await fetch(urls[workflowId], { method: 'POST', headers, body: new Uint8Array(Buffer.from(raw)) });
		return { eventId, status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
	}

	const executions = (workflowId) => ctx.n8n.listExecutions({ workflowId });

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential } = ctx;
		const v2 = w.omnichannelTrigger(TRIGGER, credential, { events: ['message.created'], registration: 'manual' }, {
			credentials: { omnichannelWebhookSigningApi: { id: SIGNING_CREDENTIAL.id, name: SIGNING_CREDENTIAL.name } },
		});
		await n8n.importCredentials([credential, SIGNING_CREDENTIAL]);
		await n8n.importWorkflows([
			w.workflow({ id: IDS.v2, name: 'E2E hardened trigger', nodes: [v2], connections: [] }),
		]);
		urls[IDS.v2] = `${n8n.baseUrl}/webhook/${v2.webhookId}/omnichannel`;
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		await n8n.publishWorkflow(IDS.v2);
		await waitFor(async () => (await deliver(IDS.v2)).status === 200, { what: 'the published trigger', timeoutMs: 60_000, intervalMs: 1000 });
		// That first delivery's execution, finished before the tests count theirs.
		await n8n.api.waitForExecutions(IDS.v2, { count: 1 });
	}, SETUP_TIMEOUT_MS);

	afterAll(() => ctx?.close());

	test(
		'signed deliveries with application/octet-stream, text/plain and no Content-Type each run once, answered with JSON',
		async () => {
			const before = (await executions(IDS.v2)).length;
			const sent = [];
			for (const contentType of ['application/octet-stream', 'text/plain', undefined, 'application/json']) {
				const first = await deliver(IDS.v2, { contentType });
				// Once the execution exists, a copy is a duplicate (while it is being started, a copy is told to retry: 409).
				await ctx.n8n.api.waitForExecutions(IDS.v2, { count: before + sent.length + 1 });
				const copy = await deliver(IDS.v2, { contentType, eventId: first.eventId });
				sent.push({ contentType: contentType ?? '(none)', first, copy });
			}
			for (const { contentType, first, copy } of sent) {
				expect({ contentType, status: first.status, body: JSON.parse(first.text) }).toEqual({ contentType, status: 200, body: { received: true, executed: true } });
				expect(first.contentType).toMatch(/^application\/json/);
				expect({ contentType, copy: JSON.parse(copy.text) }).toEqual({ contentType, copy: { received: true, executed: false, reason: 'duplicate' } });
			}
			await ctx.n8n.api.waitForExecutions(IDS.v2, { count: before + sent.length });
			await sleep(QUIET_PERIOD_MS);
			expect(await executions(IDS.v2)).toHaveLength(before + sent.length);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a valid signature over a body that is not a JSON event is a 400; a wrong secret a 401',
		async () => {
			expect((await deliver(IDS.v2, { contentType: 'text/plain', body: 'not an event' })).status).toBe(400);
			expect((await deliver(IDS.v2, { contentType: 'application/octet-stream', body: '[1,2]' })).status).toBe(400);
			expect((await deliver(IDS.v2, { secret: OLD_SECRET })).status).toBe(401);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'the signing secret is in no workflow JSON, export or execution data',
		async () => {
			const { n8n } = ctx;
			const workflowJson = JSON.stringify(await n8n.api.getWorkflow(IDS.v2));
			const exportFile = path.join(n8n.userFolder, 'export.json');
			await n8n.runCli(['export:workflow', `--id=${IDS.v2}`, `--output=${exportFile}`]);
			const exported = fs.readFileSync(exportFile, 'utf8');
			fs.rmSync(exportFile);
			const executionData = [];
			for (const execution of await n8n.listExecutions({ workflowId: IDS.v2, includeData: true })) executionData.push(JSON.stringify(execution));
			expect(executionData.length).toBeGreaterThan(0);
			for (const [where, text] of [['workflow', workflowJson], ['export', exported], ['executions', executionData.join('\n')]]) {
				for (const mark of secretMarks(SECRET)) expect({ where, leaks: text.includes(mark) }).toEqual({ where, leaks: false });
			}
			// Control: the same search finds the secret where n8n does show it, in a decrypted credentials export.
			const credentialsFile = path.join(n8n.userFolder, 'credentials.json');
			await n8n.runCli(['export:credentials', `--id=${n8n.credentialIdOf(SIGNING_CREDENTIAL.id)}`, '--decrypted', `--output=${credentialsFile}`]);
			const decrypted = fs.readFileSync(credentialsFile, 'utf8');
			fs.rmSync(credentialsFile);
			for (const mark of secretMarks(SECRET)) expect(decrypted.includes(mark)).toBe(true);
		},
		TEST_TIMEOUT_MS,
	);
});
