'use strict';
// Republishing a live Omnichannel Trigger workflow, in a real n8n: customer
// messages arrive at a steady pace while the trigger's options are edited and
// the workflow is published again, twice, the editor's way. Every event runs
// downstream exactly once, the service keeps one webhook (same id) throughout,
// the retries the service owed before a republish are still delivered after
// it, and unpublishing removes the webhook at the service.
const { sleep, waitFor, workflows: w } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');

const WORKFLOW_ID = 'faultRepublish01';
const TRIGGER = 'On customer message';
const EVENTS = 100;
const PACE_MS = 200;
/** Short delivery retries, so owed retries come due within the test. */
const RETRY_SCHEDULE_MS = Array(20).fill(1500);
/** Time for anything that should not happen (a second run) to show up. */
const QUIET_PERIOD_MS = 4000;
const TEST_TIMEOUT_MS = 5 * 60 * 1000;

/** Which event (1-based) starts or ends what, while the stream runs. */
const SCHEDULE = [
	{ at: 20, action: 'failDeliveries' },
	{ at: 30, action: 'republish', outputDataOnly: true },
	{ at: 36, action: 'acceptDeliveries' },
	{ at: 60, action: 'failDeliveries' },
	{ at: 70, action: 'republish', outputDataOnly: false },
	{ at: 76, action: 'acceptDeliveries' },
];

const textOf = (n) => `republish ${n}`;
const runMarker = (n) => `rp-run ${textOf(n)}`;

describe('republishing a live trigger workflow', () => {
	let ctx;
	let webhookBefore;
	const started = Date.now();

	const webhooksAtSandbox = async () => (await ctx.client.listAll('/webhooks')).filter((h) => h.url.startsWith(ctx.n8n.baseUrl));

	async function markerCounts() {
		const messages = await ctx.client.listAll('/messages', { conversation_id: ctx.markerConversation });
		const counts = new Map();
		for (const message of messages) counts.set(message.content, (counts.get(message.content) ?? 0) + 1);
		return counts;
	}

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		const active = new Set((await client.listAll('/channels')).filter((c) => c.is_active).map((c) => c.id));
		const [inbound, markers] = (await client.listAll('/conversations')).filter((c) => active.has(c.channel_id));
		ctx.inboundConversation = inbound.id;
		ctx.markerConversation = markers.id;
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows([
			w.workflow({
				id: WORKFLOW_ID,
				name: 'Fault suite: republish',
				nodes: [
					w.omnichannelTrigger(TRIGGER, credential, { events: ['message.created'], options: { directions: ['customer'], outputDataOnly: false } }),
					// One message per run, naming the customer's text, whichever output shape the trigger has.
					w.omnichannelNode('Count run', credential, {
						resource: 'message',
						operation: 'sendText',
						conversationId: w.byId(markers.id),
						text: "={{ 'rp-run ' + ($json.data ? $json.data.content : $json.content) }}",
					}),
				],
				connections: w.chain(TRIGGER, 'Count run'),
			}),
		]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		await n8n.publishWorkflow(WORKFLOW_ID);
		[webhookBefore] = await waitFor(async () => {
			const hooks = await webhooksAtSandbox();
			return hooks.length > 0 ? hooks : undefined;
		}, { what: 'the trigger’s webhook at the sandbox', timeoutMs: 60_000 });
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await ctx?.close();
		console.log(`faults: republish file took ${Math.round((Date.now() - started) / 1000)} s`);
	});

	test(
		'a steady stream through two republishes with edited trigger options: every event runs once, one webhook, owed retries delivered',
		async () => {
			const { client, n8n } = ctx;
			await client.control('DELETE', '/deliveries');
			await client.control('PUT', '/faults', { retry_schedule_ms: RETRY_SCHEDULE_MS });
			const republishes = [];
			try {
				for (let n = 1; n <= EVENTS; n++) {
					for (const step of SCHEDULE.filter((s) => s.at === n)) {
						if (step.action === 'failDeliveries') await client.control('PUT', '/faults', { webhook_fail_rate: 1 });
						if (step.action === 'acceptDeliveries') await client.control('PUT', '/faults', { webhook_fail_rate: 0 });
						if (step.action === 'republish') {
							// Not awaited: the customers keep writing while n8n publishes.
							republishes.push(
								n8n.api.editAndPublish(WORKFLOW_ID, (nodes) =>
									nodes.map((node) =>
										node.name === TRIGGER ? { ...node, parameters: { ...node.parameters, options: { ...node.parameters.options, outputDataOnly: step.outputDataOnly } } } : node,
									),
								),
							);
						}
					}
					await client.control('POST', '/inbound', { conversation_id: ctx.inboundConversation, text: textOf(n) });
					await sleep(PACE_MS);
				}
				await Promise.all(republishes);

				// Every event's downstream run, and an acknowledged attempt of every
				// event whose delivery failed: bounded, and not an assertion by itself.
				const done = async () => {
					const counts = await markerCounts();
					const attempts = (await client.control('GET', '/deliveries')).filter((a) => a.url.startsWith(n8n.baseUrl));
					const failed = new Set(attempts.filter((a) => a.injected_failure).map((a) => a.event_id));
					const acknowledged = new Set(attempts.filter((a) => a.ok).map((a) => a.event_id));
					const allRan = Array.from({ length: EVENTS }, (_, i) => runMarker(i + 1)).every((text) => counts.has(text));
					return allRan && [...failed].every((id) => acknowledged.has(id));
				};
				await waitFor(done, { what: 'every run and every owed retry', timeoutMs: 60_000, intervalMs: 1000 }).catch((error) => console.log(`faults: republish: ${error.message}`));
			} finally {
				await client.control('DELETE', '/faults');
			}
			await sleep(QUIET_PERIOD_MS);

			const counts = await markerCounts();
			const runs = Array.from({ length: EVENTS }, (_, i) => counts.get(runMarker(i + 1)) ?? 0);
			const histogram = {};
			for (const r of runs) histogram[r] = (histogram[r] ?? 0) + 1;
			const attempts = (await client.control('GET', '/deliveries')).filter((a) => a.url.startsWith(n8n.baseUrl));
			const deliveryWebhookIds = new Set(attempts.map((a) => a.webhook_id));
			const failed = [...new Set(attempts.filter((a) => a.injected_failure).map((a) => a.event_id))];
			const acknowledged = new Set(attempts.filter((a) => a.ok).map((a) => a.event_id));
			const owedNeverAcknowledged = failed.filter((id) => !acknowledged.has(id));
			const answers = {};
			for (const attempt of attempts) answers[attempt.status] = (answers[attempt.status] ?? 0) + 1;
			const hooksAfter = await webhooksAtSandbox();
			console.log(
				`faults: republish: ${EVENTS} events, runs per event ${JSON.stringify(histogram)}, ` +
					`webhook ids ${new Set([webhookBefore.id, ...hooksAfter.map((h) => h.id), ...deliveryWebhookIds]).size} ` +
					`(before ${webhookBefore.id}, after ${hooksAfter.map((h) => h.id).join(',') || 'none'}, in deliveries ${deliveryWebhookIds.size}), ` +
					`events with a failed attempt ${failed.length}, of them never acknowledged ${owedNeverAcknowledged.length}, n8n's answers ${JSON.stringify(answers)}`,
			);

			expect(histogram).toEqual({ 1: EVENTS });
			expect(hooksAfter.map((h) => h.id)).toEqual([webhookBefore.id]);
			expect([...deliveryWebhookIds]).toEqual([webhookBefore.id]);
			expect(failed.length).toBeGreaterThan(0);
			expect(owedNeverAcknowledged).toEqual([]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'unpublishing after the republishes removes the webhook at the service',
		async () => {
			await ctx.n8n.unpublishWorkflow(WORKFLOW_ID);
			// n8n may defer the removal by a few seconds.
			await waitFor(async () => (await webhooksAtSandbox()).length === 0, { what: 'the webhook’s removal at the sandbox', timeoutMs: 60_000, intervalMs: 1000 });
			await expect(ctx.client.api('GET', `/webhooks/${webhookBefore.id}`)).rejects.toThrow(/404/);
		},
		TEST_TIMEOUT_MS,
	);
});
