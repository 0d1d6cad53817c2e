'use strict';
// Answer a Burst Once in n8n's queue mode (harness/queue.js): PostgreSQL,
// Redis, a main process, two workers and a webhook process. The burst's
// executions run on both workers, each waiting and deciding on its own;
// one continues, with every text in order, also when every delivery is
// duplicated, and when a copy of every delivery also reaches main.
const { omnichannelCredential, sandboxClient, sleep, waitFor } = require('../../harness');
const { signatureHeader } = require('../../sandbox/webhooks/signing');
const { openQueueCluster } = require('../../harness/queue');
const { SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { startSandbox } = require('../../sandbox');
const { burstWorkflow, expectOneContinuation, newConversation, printSummary, runBurst } = require('../support/n8n/burst');

const TEST_TIMEOUT_MS = 3 * 60 * 1000;
const WORKFLOW_ID = 'queueBurstTrig01';
// Three seconds: the copies test sends each message only after its delivery was logged.
const QUIET_SECONDS = 3;
const TEXTS = ['Hello', 'my parcel', 'is late', 'tracking 998', 'please help'];

let cluster;
let sandbox;
let client;
let workflow;

beforeAll(async () => {
	sandbox = await startSandbox({ seed: 'demo' });
	client = sandboxClient(sandbox);
	const credential = omnichannelCredential({ id: 'queueBurstCred01', name: 'Queue sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
	workflow = burstWorkflow({ id: WORKFLOW_ID, credential, quietSeconds: QUIET_SECONDS });
	cluster = await openQueueCluster({
		credentials: [credential],
		workflows: [workflow],
		publish: [WORKFLOW_ID],
	});
	for (let i = 0; i < 60 && (await client.listAll('/webhooks')).length === 0; i++) await sleep(1000);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	try {
		await cluster?.dispose();
	} finally {
		await sandbox?.close();
	}
});

/** How many of the executions each worker ran (from the workers' logs). */
function byWorker(summary, executionIds) {
	return cluster.workerExecutionIds().map((ids) => executionIds.filter((id) => ids.has(String(id))).length);
}

async function run(texts, send) {
	const conversationId = await newConversation(client);
	const summary = await runBurst({ n8n: cluster.main, client, workflowId: WORKFLOW_ID, conversationId, texts, quietSeconds: QUIET_SECONDS, send });
	const ids = (await cluster.main.listExecutions({ workflowId: WORKFLOW_ID })).map((e) => e.id);
	return { summary, workers: byWorker(summary, ids) };
}

test(
	'five customer messages within the quiet period: one execution, continued with the five texts in order; the other four start none',
	async () => {
		const { summary, workers } = await run(TEXTS);
		printSummary('queue mode', summary, `; executions so far per worker: ${workers.join(' / ')}`);
		expectOneContinuation(summary, TEXTS);
		// The quiet period is waited out on the webhook process: only the newest message starts an execution.
		expect(summary.executions).toBe(1);
	},
	TEST_TIMEOUT_MS,
);

test(
	'every delivery duplicated by the sandbox: still one continuation',
	async () => {
		const texts = TEXTS.map((text) => `${text} (dup)`);
		await client.control('DELETE', '/deliveries');
		await client.control('PUT', '/faults', { webhook_duplicate_rate: 1 });
		let result;
		try {
			result = await run(texts);
		} finally {
			await client.control('DELETE', '/faults');
		}
		const deliveries = await client.control('GET', '/deliveries');
		printSummary(
			'queue mode, duplicated deliveries',
			result.summary,
			`; ${deliveries.length} deliveries (${deliveries.filter((d) => d.duplicate).length} duplicates); executions so far per worker: ${result.workers.join(' / ')}`,
		);
		expectOneContinuation(result.summary, texts);
		expect(result.summary.endedInBurst).toBe(0);
	},
	TEST_TIMEOUT_MS,
);

test(
	'a copy of every delivery also sent to main: still one continuation',
	async () => {
		// The webhook's signing secret, from the workflow's static data (the trigger stored it at publishing).
		const { staticData } = await cluster.main.api.getWorkflow(WORKFLOW_ID);
		const secret = JSON.stringify(staticData).match(/"secret":"(whsec_[^"]+)"/)[1];
		const url = `${cluster.main.baseUrl}/webhook/${workflow.nodes[0].webhookId}/omnichannel`;
		const texts = TEXTS.map((text) => `${text} (copy)`);
		const copyStatuses = [];
		/** The copy of a message's event (same id and message) to main, as the service would send it there. */
		const copyToMain = async (message, eventId) => {
			const body = JSON.stringify({ id: eventId, type: 'message.created', created_at: message.created_at, app_id: sandbox.app_id, data: message });
			const timestamp = Math.floor(Date.now() / 1000);
			const response = await fetch(url, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-service-webhook-id': eventId,
					'x-service-webhook-timestamp': String(timestamp),
					'x-service-webhook-signature': signatureHeader(secret, eventId, timestamp, body),
				},
				body,
			});
			await response.text();
			return response.status;
		};
		// The messages in quick succession; once the sandbox has logged their deliveries (the webhook process
		// answers a burst's deliveries after its quiet period), a copy of each reaches main, all at once.
		const messages = [];
		const send = async (conversationId, text) => {
			messages.push(await client.control('POST', '/inbound', { conversation_id: conversationId, text }));
			if (messages.length === texts.length) {
				const eventIds = await waitFor(
					async () => {
						const byMessage = new Map((await client.control('GET', '/deliveries')).map((d) => [d.data_id, d.event_id]));
						const events = messages.map((m) => byMessage.get(m.id));
						return events.every(Boolean) ? events : undefined;
					},
					{ what: 'the deliveries of the messages', timeoutMs: 30_000, intervalMs: 100 },
				);
				copyStatuses.push(...(await Promise.all(messages.map(async (m, index) => await copyToMain(m, eventIds[index])))));
			}
			return messages.at(-1);
		};
		const { summary, workers } = await run(texts, send);
		printSummary(
			'queue mode, a copy of every delivery to main',
			summary,
			`; copies answered ${copyStatuses.join(', ')}; executions so far per worker: ${workers.join(' / ')}`,
		);
		expect(copyStatuses).toEqual(texts.map(() => 200));
		expectOneContinuation(summary, texts);
		// Each process held its copies and started one execution for the newest; the ledger ended the second.
		expect(summary.endedAsDuplicate).toBe(1);
		expect(summary.executions).toBe(2);
	},
	TEST_TIMEOUT_MS,
);

test(
	'60 conversations bursting at the same moment: each continues exactly once, with its own two messages',
	async () => {
		const CONVERSATIONS = 60;
		const seen = new Set((await cluster.main.listExecutions({ workflowId: WORKFLOW_ID })).map((e) => String(e.id)));
		const conversations = await Promise.all(Array.from({ length: CONVERSATIONS }, async () => await newConversation(client)));
		const inbound = async (conversationId, text) => await client.control('POST', '/inbound', { conversation_id: conversationId, text });
		const sent = await Promise.all(
			conversations.map(async (conversationId) => [await inbound(conversationId, 'first'), await inbound(conversationId, 'second')].map((m) => m.id)),
		);
		const fresh = async () => (await cluster.main.listExecutions({ workflowId: WORKFLOW_ID })).filter((e) => !seen.has(String(e.id)));
		await waitFor(async () => ((await fresh()).length >= CONVERSATIONS ? true : undefined), { what: 'an execution per conversation', timeoutMs: 120_000, intervalMs: 1000 });
		// Time for a late or doubled continuation to show.
		await sleep(QUIET_SECONDS * 1000 + 3000);
		await waitFor(async () => ((await fresh()).every((e) => e.finished || e.stoppedAt) ? true : undefined), { what: 'every execution to finish', timeoutMs: 120_000, intervalMs: 1000 });
		const continued = new Map();
		const failures = [];
		for (const { id } of await fresh()) {
			const { data, status } = await cluster.main.api.getExecution(id);
			const runData = data?.resultData?.runData ?? {};
			if (status !== 'success') {
				failures.push(`${id} ${status}: ${data?.resultData?.error?.message ?? ''}`);
				continue;
			}
			const item = runData['On customer message']?.[0]?.data?.main?.[0]?.[0]?.json;
			if (item && runData.Answer) continued.set(item.data.conversation_id, [...(continued.get(item.data.conversation_id) ?? []), item]);
		}
		const counts = { conversations: CONVERSATIONS, continuedOnce: 0, lost: 0, doubled: 0, otherMessages: 0, failed: failures.length, executions: (await fresh()).length };
		conversations.forEach((conversationId, index) => {
			const items = continued.get(conversationId) ?? [];
			if (items.length === 0) counts.lost++;
			else if (items.length > 1) counts.doubled++;
			else if (JSON.stringify(items[0].burst.messages.map((m) => m.id)) !== JSON.stringify(sent[index])) counts.otherMessages++;
			else counts.continuedOnce++;
		});
		console.log(`[burst] queue mode, ${CONVERSATIONS} conversations at once: ${JSON.stringify(counts)}${failures.length ? `; failed: ${failures.join(' | ')}` : ''}`);
		expect(counts).toMatchObject({ continuedOnce: CONVERSATIONS, lost: 0, doubled: 0, otherMessages: 0, failed: 0 });
	},
	TEST_TIMEOUT_MS,
);
