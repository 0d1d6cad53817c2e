'use strict';
// The Omnichannel Trigger in a published workflow of a running n8n: it
// registers its webhook at the sandbox, turns each customer message into
// exactly one execution (also when the sandbox redelivers and duplicates,
// and after n8n restarts),
// refuses forged deliveries, and removes its webhook when unpublished.
const crypto = require('crypto');

const { sleep, waitFor, workflows: w } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');

const WORKFLOW_ID = 'e2eTrigger000001';
const TRIGGER = 'On message';
/** Time for anything that should not happen (a second execution) to show up. */
const QUIET_PERIOD_MS = 3000;

/** The run data of an execution, from the public API (`includeData=true`). */
async function triggerOutput(n8n, executionId) {
	const execution = await n8n.api.getExecution(executionId);
	return execution.data.resultData.runData[TRIGGER][0].data.main[0].map((item) => item.json);
}

describe('Omnichannel Trigger in a published n8n workflow', () => {
	let ctx;
	let webhook;

	const webhooksAtSandbox = async () => (await ctx.client.listAll('/webhooks')).filter((h) => h.url.startsWith(ctx.n8n.baseUrl));
	const executions = () => ctx.n8n.listExecutions({ workflowId: WORKFLOW_ID });
	const inbound = (text) => ctx.client.control('POST', '/inbound', { conversation_id: ctx.conversationId, text });

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		ctx.conversationId = (await client.api('GET', '/conversations?per_page=1')).data[0].id;
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows([
			w.workflow({
				id: WORKFLOW_ID,
				name: 'E2E trigger',
				nodes: [w.omnichannelTrigger(TRIGGER, credential, { events: ['message.created'] })],
				connections: [],
			}),
		]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
	}, SETUP_TIMEOUT_MS);

	afterAll(() => ctx?.close());

	test(
		'publishing registers one webhook at the sandbox for n8n’s production URL',
		async () => {
			await ctx.n8n.publishWorkflow(WORKFLOW_ID);
			// n8n answers before the trigger has registered: poll the sandbox.
			const registered = await waitFor(async () => {
				const hooks = await webhooksAtSandbox();
				return hooks.length > 0 ? hooks : undefined;
			}, {
				what: 'the trigger’s webhook at the sandbox',
				timeoutMs: 30_000,
			});
			expect(registered).toHaveLength(1);
			[webhook] = registered;
			expect(webhook.url).toMatch(new RegExp(`^${ctx.n8n.baseUrl}/webhook/`));
			expect(webhook.events).toEqual(['message.created']);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'an inbound customer message produces exactly one execution with the event',
		async () => {
			const message = await inbound('Hello from the E2E customer');
			const [execution] = await ctx.n8n.api.waitForExecutions(WORKFLOW_ID, { count: 1 });
			await sleep(QUIET_PERIOD_MS);
			expect(await executions()).toHaveLength(1);
			expect(execution.status).toBe('success');

			const [event] = await triggerOutput(ctx.n8n, execution.id);
			expect(event).toMatchObject({
				type: 'message.created',
				id: expect.stringMatching(/^evt_/),
				data: { id: message.id, content: 'Hello from the E2E customer', from_customer: true },
			});
			const deliveries = await ctx.client.control('GET', `/deliveries?event_id=${event.id}`);
			expect(deliveries.map((d) => d.status)).toEqual([200]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'failed-then-retried and duplicated deliveries still give one execution per message',
		async () => {
			const { client } = ctx;
			const before = (await executions()).length;
			await client.control('DELETE', '/deliveries');
			// Every attempt reaches n8n but counts as failed, so each event is sent
			// three times, plus injected duplicates (concurrent or late).
			await client.control('PUT', '/faults', { webhook_fail_rate: 1, webhook_duplicate_rate: 1, retry_schedule_ms: [300, 300] });
			try {
				const messages = [];
				for (const n of [1, 2, 3]) messages.push(await inbound(`Retry storm ${n}`));
				await waitFor(
					async () => {
						const attempts = await client.control('GET', '/deliveries');
						const lastAttempts = attempts.filter((a) => a.attempt === 3 && !a.duplicate);
						return lastAttempts.length === messages.length;
					},
					{ what: 'three delivery attempts of every event', timeoutMs: 30_000 },
				);
			} finally {
				await client.control('DELETE', '/faults');
			}
			await sleep(QUIET_PERIOD_MS);
			const after = await executions();
			expect(after).toHaveLength(before + 3);
			const newest = after.sort((a, b) => Number(b.id) - Number(a.id)).slice(0, 3);
			const contents = [];
			for (const execution of newest) contents.push((await triggerOutput(ctx.n8n, execution.id))[0].data.content);
			expect(contents.sort()).toEqual(['Retry storm 1', 'Retry storm 2', 'Retry storm 3']);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a redelivery after n8n restarts runs nothing downstream a second time',
		async () => {
			const { client, n8n } = ctx;
			const before = (await executions()).length;
			await client.control('DELETE', '/deliveries');
			// n8n accepts the first attempt, but the sandbox counts it failed and
			// keeps retrying every 2 s: the retries outlive n8n's restart.
			await client.control('PUT', '/faults', { webhook_fail_rate: 1, retry_schedule_ms: Array(40).fill(2000) });
			let eventId;
			try {
				await inbound('Before the restart');
				// The event this test created, from its execution: not the delivery log's
				// first entry, which can be a late-answered attempt of an earlier test.
				const [newest] = (await n8n.api.waitForExecutions(WORKFLOW_ID, { count: before + 1 })).sort((a, b) => Number(b.id) - Number(a.id));
				eventId = (await triggerOutput(n8n, newest.id))[0].id;
				const answered = async () =>
					(await client.control('GET', `/deliveries?event_id=${eventId}`)).filter((a) => a.status === 200).length;
				await n8n.stop();
				const answeredBeforeRestart = await answered();
				await n8n.start();
				// An attempt of the same event that the restarted n8n answered.
				await waitFor(
					async () => (await answered()) > answeredBeforeRestart,
					{ what: 'a redelivery answered by the restarted n8n', timeoutMs: 60_000 },
				);
			} finally {
				await client.control('DELETE', '/faults');
			}
			await sleep(QUIET_PERIOD_MS);
			// The restarted process does not know the event, so a redelivery starts an
			// execution; its first step finds the id in n8n's database and passes nothing on.
			const all = await executions();
			// Newest first: the executions this test started.
			const later = all.slice(0, all.length - before);
			const runs = [];
			for (const execution of later) {
				// An execution n8n stopped during its restart (crashed) may not have run the trigger's step: it passed nothing on.
				const task = (await ctx.n8n.api.getExecution(execution.id)).data.resultData.runData[TRIGGER]?.[0];
				if (task) runs.push({ passedOn: task.data.main[0].map((item) => item.json.id), hints: (task.hints ?? []).map((hint) => hint.message) });
			}
			expect(runs.filter((run) => run.passedOn.includes(eventId))).toHaveLength(1);
			const copies = runs.filter((run) => run.passedOn.length === 0);
			expect(copies.length).toBeGreaterThan(0);
			for (const copy of copies) expect(copy.hints.join(' ')).toContain(`Event ${eventId} already ran in an earlier execution`);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a forged delivery is refused and starts no execution',
		async () => {
			const before = (await executions()).length;
			const body = JSON.stringify({
				id: 'evt_forged0000000000000',
				type: 'message.created',
				created_at: new Date().toISOString(),
				app_id: ctx.sandbox.app_id,
				data: { id: 'msg_forged0000000000000', content: 'forged', from_customer: true },
			});
			const response = await fetch(webhook.url, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-service-webhook-id': 'evt_forged0000000000000',
					'x-service-webhook-timestamp': String(Math.floor(Date.now() / 1000)),
					'x-service-webhook-signature': `v1,${crypto.randomBytes(32).toString('base64')}`,
				},
				body,
			});
			expect(response.status).toBe(401);
			await sleep(QUIET_PERIOD_MS);
			expect(await executions()).toHaveLength(before);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'unpublishing deletes the webhook at the sandbox, and messages then start nothing',
		async () => {
			const before = (await executions()).length;
			await ctx.n8n.unpublishWorkflow(WORKFLOW_ID);
			await waitFor(async () => (await webhooksAtSandbox()).length === 0, {
				what: 'the webhook’s removal at the sandbox',
				// After the 30 s the trigger keeps a retired webhook for a republish (docs/trigger.md).
				timeoutMs: 60_000,
			});
			await expect(ctx.client.api('GET', `/webhooks/${webhook.id}`)).rejects.toThrow(/404/);

			await ctx.client.control('DELETE', '/deliveries');
			await inbound('Nobody is listening');
			await sleep(QUIET_PERIOD_MS);
			expect(await ctx.client.control('GET', '/deliveries')).toEqual([]);
			expect(await executions()).toHaveLength(before);
		},
		TEST_TIMEOUT_MS,
	);
});
