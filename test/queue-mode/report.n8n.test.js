'use strict';
// Report > Get in queue mode (the run's shared cluster: PostgreSQL, Redis,
// main, two workers, a webhook process): manual runs go to the workers. The
// known day gives exactly its figures, and the random workspace agrees with
// the reference, as in regular mode (test/action-node/report.n8n.test.js),
// in node version 1.1 with Business Hours and the previous period too.
const { nodeOutput, waitFor } = require('../../harness');
const { openQueueContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { REPORT_NODE, prepareReports, checkKnownDay, checkRandom, checkTrusted } = require('../support/n8n/report');

const counts = {};
let ctx;
let prepared;

beforeAll(async () => {
	ctx = await openQueueContext({
		sandbox: { seed: 'empty' },
		credential: { id: 'queueReportCred1', name: 'Queue report sandbox' },
		setUp: async ({ sandbox }) => {
			prepared = await prepareReports(sandbox, 'que');
			return { credentials: prepared.credentials, workflows: prepared.workflows, publish: [] };
		},
	});
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	console.log(JSON.stringify({ suite: 'report (real n8n, queue mode)', ...counts }));
	await ctx?.close();
});

/** Runs a workflow by hand, as the editor does; in queue mode a worker runs it. */
async function runOnWorker(workflowId) {
	const before = ctx.cluster.workerExecutionIds().map((ids) => ids.size);
	const run = await ctx.cluster.main.executeWorkflow(workflowId);
	const sum = (sizes) => sizes.reduce((a, b) => a + b, 0);
	// A worker logs the execution as it finishes it.
	await waitFor(() => (sum(ctx.cluster.workerExecutionIds().map((ids) => ids.size)) > sum(before) ? true : undefined), { what: 'the execution in a worker\'s log', timeoutMs: 15_000 });
	expect(sum(ctx.cluster.workerExecutionIds().map((ids) => ids.size)) - sum(before)).toBe(1);
	return run;
}

test(
	'the known day on a worker: every figure of every channel and the total, the waiting list, the HTML',
	async () => {
		counts.knownDay = checkKnownDay(nodeOutput(await runOnWorker(prepared.ids.day), REPORT_NODE), prepared.day);
	},
	TEST_TIMEOUT_MS,
);

test(
	'the random workspace on a worker, by hour across the end of summer time: the reference agrees',
	async () => {
		counts.random = await checkRandom(nodeOutput(await runOnWorker(prepared.ids.random), REPORT_NODE), ctx.sandbox, prepared.random);
		expect(counts.random.buckets).toBe(73);
	},
	TEST_TIMEOUT_MS,
);

test(
	'version 1.1 on a worker, with Business Hours and the previous period: the reference agrees',
	async () => {
		counts.trusted = await checkTrusted(nodeOutput(await runOnWorker(prepared.ids.trusted), REPORT_NODE), ctx.sandbox, prepared.random);
		expect(counts.trusted.previousCustomerMessages).toBeGreaterThan(0);
	},
	TEST_TIMEOUT_MS,
);
