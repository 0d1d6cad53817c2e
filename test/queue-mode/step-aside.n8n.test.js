'use strict';
// Step Aside for a Person in n8n's queue mode (harness/queue.js):
// PostgreSQL, Redis, a main process, two workers and a webhook process. The
// executions run on either worker, each reading the conversation on its
// own: a person writes, the next three customer messages get no bot answer,
// after the period the bot answers again, the bot's own answers do not make
// it step aside, and with Answer a Burst Once a person writing during the
// quiet period stops that burst's answer. Prints the counts as one JSON line.
const { openQueueContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { expectSteppedAside, personTakesBurst, personTakesOver, printCounts, stepAsideWorkflow } = require('../support/n8n/step-aside');

const TEST_TIMEOUT_MS = 4 * 60 * 1000;
const QUIET_SECONDS = 3;
const ALONE = { id: 'queueStepAside01', channel: 'telegram' };
const BURST = { id: 'queueStepAside02', channel: 'whatsapp', quietSeconds: QUIET_SECONDS };

let ctx;
let cluster;
let client;

beforeAll(async () => {
	ctx = await openQueueContext({
		credential: { id: 'queueStepCred001' },
		setUp: ({ credential }) => ({
			workflows: [stepAsideWorkflow({ ...ALONE, credential }), stepAsideWorkflow({ ...BURST, credential })],
			publish: [ALONE.id, BURST.id],
		}),
		webhooks: 2,
	});
	({ cluster, client } = ctx);
}, SETUP_TIMEOUT_MS);

afterAll(async () => await ctx?.close());

test(
	'a person writes: three customer messages get no answer, the bot answers again after the period; with a burst, a person during the quiet period stops the answer',
	async () => {
		const alone = await personTakesOver({ n8n: cluster.main, client, workflowId: ALONE.id, channel: ALONE.channel });
		const burst = await personTakesBurst({ n8n: cluster.main, client, workflowId: BURST.id, channel: BURST.channel, quietSeconds: QUIET_SECONDS });
		const ids = new Set((await cluster.main.listExecutions({})).map((e) => String(e.id)));
		const perWorker = cluster.workerExecutionIds().map((workerIds) => [...ids].filter((id) => workerIds.has(id)).length);
		printCounts('queue', alone, burst, { executionsPerWorker: perWorker });
		expectSteppedAside(alone, burst);
	},
	TEST_TIMEOUT_MS,
);
