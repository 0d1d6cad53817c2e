'use strict';
// Contact > Create or Update in queue mode: PostgreSQL, Redis, main, two
// workers and a webhook process (harness/queue.js). Two executions of a CRM
// sync with the same people start at the same moment; each worker runs one
// job at a time (N8N_CONCURRENCY_PRODUCTION_LIMIT=1), so the two run on the
// two workers at once: two processes, kept apart only by the lock in n8n's
// database. Counted in the sandbox: one contact per person.
const crypto = require('crypto');

const { waitFor, workflows: w } = require('../../harness');
const { crmRows, countPeople, upsertParameters } = require('../../harness/crmRows');
const { openQueueContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');

const TEST_TIMEOUT_MS = 8 * 60 * 1000;
const ID = 'queueCrmUpsert01';
const PATH = 'q-crm-sync';

const started = Date.now();
let ctx;
let cluster;
let client;
const summary = {};

function syncWorkflow(credential) {
	return w.workflow({
		id: ID,
		name: 'Queue CRM upsert',
		nodes: [
			w.node('Rows', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path: PATH, responseMode: 'lastNode', responseData: 'allEntries', options: {} }, { typeVersion: 2, webhookId: crypto.randomUUID() }),
			w.node('Each row', 'n8n-nodes-base.splitOut', { fieldToSplitOut: 'body.rows', include: 'noOtherFields', options: {} }),
			w.omnichannelNode('Create or update', credential, upsertParameters()),
		],
		connections: w.chain('Rows', 'Each row', 'Create or update'),
	});
}

async function post(rows) {
	const response = await fetch(`${cluster.webhook.baseUrl}/webhook/${PATH}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ rows }),
	});
	const text = await response.text();
	if (response.status !== 200) throw new Error(`/webhook/${PATH} answered ${response.status}: ${text.slice(0, 300)}`);
	return JSON.parse(text);
}

beforeAll(async () => {
	ctx = await openQueueContext({
		sandbox: { seed: 'empty' },
		credential: { id: 'queueCrmCred0001', name: 'Queue CRM sandbox' },
		setUp: ({ credential }) => ({ workflows: [syncWorkflow(credential)], publish: [ID], env: { N8N_CONCURRENCY_PRODUCTION_LIMIT: '1' } }),
	});
	({ cluster, client } = ctx);
	await waitFor(async () => await post([]).then(() => true).catch(() => undefined), { what: 'the published webhook', timeoutMs: 60_000, intervalMs: 1000 });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	try {
		await ctx?.close();
	} finally {
		console.log(JSON.stringify({ suite: 'create-or-update (queue mode, 2 workers)', ...summary, seconds: Math.round((Date.now() - started) / 1000) }));
	}
});

test(
	'two executions with the same people, at the same moment on two workers: one contact per person',
	async () => {
		const tag = `q${crypto.randomBytes(4).toString('hex')}`;
		const before = cluster.workerExecutionIds().map((ids) => ids.size);
		// The same 400 people in both runs, in the same order: both reach each person at about the same moment (other writings in the second).
		const first = crmRows({ people: 400, repeats: 40, tag, area: 30 });
		const second = crmRows({ people: 400, repeats: 40, tag, area: 30 }).map((row, index) => (index % 2 ? { ...row, email: row.email?.toUpperCase() } : row));
		const [a, b] = await Promise.all([post(first), post(second)]);
		const counts = countPeople(await client.listAll('/contacts', { search: tag }), tag);
		const perWorker = cluster.workerExecutionIds().map((ids, index) => ids.size - before[index]);
		const actions = [...a, ...b].reduce((all, json) => ({ ...all, [json._upsert.action]: (all[json._upsert.action] ?? 0) + 1 }), {});
		summary.twoWorkers = { rows: first.length + second.length, ...counts, actions, executionsPerWorker: perWorker };
		console.log(`create-or-update (queue): ${JSON.stringify(summary.twoWorkers)}`);
		expect(perWorker).toEqual([1, 1]);
		expect(counts).toEqual({ contacts: 400, people: 400, duplicates: 0 });
		expect(actions.created).toBe(400);
	},
	TEST_TIMEOUT_MS,
);
