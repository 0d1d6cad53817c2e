'use strict';
// Message > Send and Wait for Response in n8n's queue mode (harness/queue.js:
// PostgreSQL, Redis, main, 2 workers, a webhook process). The links point at
// the webhook process, which serves the pages and the answer; the execution
// resumes on a worker; a wait limit is ended by main's wait tracker and the
// rest runs on a worker too.
const fs = require('fs');

const { sleep, waitFor } = require('../../harness');
const { openQueueContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { FLOWS, allWorkflows, answer, conversationDriver, executionOf, openForm, submit } = require('./send-and-wait-support');

const TEST_TIMEOUT_MS = 4 * 60 * 1000;
const QUIET_PERIOD_MS = 3000;

let ctx;
let cluster;
let driver;

const status = async (executionId) => (await cluster.main.api.getExecution(executionId, { includeData: false })).status;
/** How many times workers started the execution (its first part, then its resumption). */
function workerStarts(executionId) {
	const logs = cluster.workers.map((worker) => (fs.existsSync(worker.logFile) ? fs.readFileSync(worker.logFile, 'utf8') : ''));
	return logs.join('\n').split(`Worker started execution ${executionId} (job `).length - 1;
}

/** Starts a flow on the webhook process (the URL triggers register in queue mode). */
const start = (flow, conversationId, question) => driver.start(cluster.webhook.baseUrl, flow, conversationId, question, cluster.main.api);

beforeAll(async () => {
	ctx = await openQueueContext({
		credential: { id: 'sawQueueCred0001' },
		setUp: ({ credential }) => ({ workflows: allWorkflows(credential), publish: [FLOWS.approval, FLOWS.form, FLOWS.timeout].map((flow) => flow.id) }),
	});
	cluster = ctx.cluster;
	driver = conversationDriver(ctx.client);
}, SETUP_TIMEOUT_MS);

afterAll(async () => await ctx?.close());

describe('Send and Wait for Response in n8n (queue mode)', () => {
	test(
		'the webhook process serves the links and a worker resumes the execution, once',
		async () => {
			const conversation = await driver.newConversation();
			const { links } = await start(FLOWS.approval, conversation.id, 'Queue: refund order 2001?');
			const [approve] = links;
			expect(new URL(approve.url).origin).toBe(cluster.webhook.baseUrl);
			const executionId = executionOf(approve);

			const approveForm = await openForm(approve.url);
			const forged = new URL(approve.url);
			forged.searchParams.set('approved', 'false');
			expect((await submit({ ...approveForm, url: forged.toString() })).status).toBe(401);
			expect(await status(executionId)).toBe('waiting');

			const submitted = await submit(approveForm);
			expect(submitted.status).toBe(200);
			expect(submitted.html).toContain('Your answer: <strong>Approve</strong>');
			const [output] = await driver.waitForAfter(conversation.id);
			expect(output).toMatchObject({ timedOut: false, data: { approved: true } });
			await waitFor(async () => (await status(executionId)) === 'success', { what: 'the resumed execution to finish', timeoutMs: 30_000 });
			expect(workerStarts(executionId)).toBe(2);

			expect((await submit(approveForm)).html).not.toContain('Your answer:');
			await sleep(QUIET_PERIOD_MS);
			expect(await driver.afterOutputs(conversation.id)).toHaveLength(1);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a form answered on the webhook process comes out on the worker with its typed values',
		async () => {
			const conversation = await driver.newConversation('whatsapp');
			const { links } = await start(FLOWS.form, conversation.id, 'Queue: settle order 2002?');
			await answer(links[0].url, { 'field-0': 'No refund', 'field-1': '0' });
			const [output] = await driver.waitForAfter(conversation.id);
			expect(output.data).toEqual({ Decision: 'No refund', Amount: 0, Note: '' });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		"a wait limit is ended by main's wait tracker and continues on a worker with a timedOut item",
		async () => {
			const conversation = await driver.newConversation();
			const { links } = await start(FLOWS.timeout, conversation.id, 'Queue: quick approval?');
			const [output] = await driver.waitForAfter(conversation.id, 100_000);
			expect(output).toMatchObject({ timedOut: true, data: {} });
			const executionId = executionOf(links[0]);
			await waitFor(async () => (await status(executionId)) === 'success', { what: 'the timed-out execution to finish', timeoutMs: 30_000 });
			expect(workerStarts(executionId)).toBe(2);
		},
		TEST_TIMEOUT_MS,
	);
});
