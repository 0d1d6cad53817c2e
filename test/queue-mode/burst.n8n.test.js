'use strict';
// Answer a Burst Once in n8n's queue mode (harness/queue.js): PostgreSQL,
// Redis, a main process, two workers and a webhook process. The burst's
// executions run on both workers, each waiting and deciding on its own;
// one continues, with every text in order, also when every delivery is
// duplicated.
const { omnichannelCredential, sandboxClient, sleep } = require('../../harness');
const { openQueueCluster } = require('../../harness/queue');
const { SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { startSandbox } = require('../../sandbox');
const { burstWorkflow, expectOneContinuation, newConversation, printSummary, runBurst } = require('../support/n8n/burst');

const TEST_TIMEOUT_MS = 3 * 60 * 1000;
const WORKFLOW_ID = 'queueBurstTrig01';
const QUIET_SECONDS = 2;
const TEXTS = ['Hello', 'my parcel', 'is late', 'tracking 998', 'please help'];

let cluster;
let sandbox;
let client;

beforeAll(async () => {
	sandbox = await startSandbox({ seed: 'demo' });
	client = sandboxClient(sandbox);
	const credential = omnichannelCredential({ id: 'queueBurstCred01', name: 'Queue sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
	cluster = await openQueueCluster({
		credentials: [credential],
		workflows: [burstWorkflow({ id: WORKFLOW_ID, credential, quietSeconds: QUIET_SECONDS })],
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

async function run(texts) {
	const conversationId = await newConversation(client);
	const summary = await runBurst({ n8n: cluster.main, client, workflowId: WORKFLOW_ID, conversationId, texts, quietSeconds: QUIET_SECONDS });
	const ids = (await cluster.main.listExecutions({ workflowId: WORKFLOW_ID })).map((e) => e.id);
	return { summary, workers: byWorker(summary, ids) };
}

test(
	'five customer messages within the quiet period: one continuation with the five texts in order; the other four end without output',
	async () => {
		const { summary, workers } = await run(TEXTS);
		printSummary('queue mode', summary, `; executions so far per worker: ${workers.join(' / ')}`);
		expectOneContinuation(summary, TEXTS);
		expect(summary.executions).toBe(TEXTS.length);
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
		expect(result.summary.executions).toBe(texts.length + result.summary.endedAsDuplicate);
	},
	TEST_TIMEOUT_MS,
);
