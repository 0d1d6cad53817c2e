'use strict';
// Contact > Create or Update in queue mode: PostgreSQL, Redis, main, two
// workers and a webhook process (harness/queue.js). Two executions of a CRM
// sync with the same people start at the same moment and run on the two
// workers at once (checked: one execution each): two processes, kept apart
// only by the lock in n8n's database. Counted in the sandbox: one contact per person, with the
// contacts read first (Find Contacts By: Automatic, which reads them here) and
// with a search per row; two executions whose rows of one person carry other
// fields (harness/crmRows.js, twoRunsOfPeople): each person created once, by
// one row; and two workflows that meet the same people at the same moment,
// on the two workers: one contact per person, one row says created.
const crypto = require('crypto');

const { waitFor, workflows: w } = require('../../harness');
const { crmRows, countPeople, upsertParameters, letterTag, twoRunsOfPeople, countByShape, matchedByMistakes } = require('../../harness/crmRows');
const { openQueueContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');

const TEST_TIMEOUT_MS = 8 * 60 * 1000;
const ID = 'queueCrmUpsert01';
const PATH = 'q-crm-sync';
/** More workflows: the same sync searching each row; a form intake and a sheet sync with the same people. */
const MORE = [
	{ id: 'queueCrmEach0001', path: 'q-crm-each-row', options: { defaultCountryCode: '49', strategy: 'searchEachRow' } },
	{ id: 'queueCrmForm0001', path: 'q-crm-form-intake' },
	{ id: 'queueCrmSheet001', path: 'q-crm-sheet-sync' },
];

const started = Date.now();
let ctx;
let cluster;
let client;
const summary = {};

function syncWorkflow(credential, { id = ID, path = PATH, options } = {}) {
	return w.workflow({
		id,
		name: `Queue CRM upsert ${path}`,
		nodes: [
			w.node('Rows', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} }, { typeVersion: 2, webhookId: crypto.randomUUID() }),
			w.node('Each row', 'n8n-nodes-base.splitOut', { fieldToSplitOut: 'body.rows', include: 'noOtherFields', options: {} }),
			w.omnichannelNode('Create or update', credential, upsertParameters(options ? { options } : {})),
		],
		connections: w.chain('Rows', 'Each row', 'Create or update'),
	});
}

async function post(rows, path = PATH) {
	const response = await fetch(`${cluster.webhook.baseUrl}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ rows }),
	});
	const text = await response.text();
	if (response.status !== 200) throw new Error(`/webhook/${path} answered ${response.status}: ${text.slice(0, 300)}`);
	return JSON.parse(text);
}

beforeAll(async () => {
	ctx = await openQueueContext({
		sandbox: { seed: 'empty' },
		credential: { id: 'queueCrmCred0001', name: 'Queue CRM sandbox' },
		setUp: ({ credential }) => ({
			workflows: [syncWorkflow(credential), ...MORE.map((more) => syncWorkflow(credential, more))],
			publish: [ID, ...MORE.map((more) => more.id)],
		}),
	});
	({ cluster, client } = ctx);
	for (const path of [PATH, ...MORE.map((more) => more.path)]) {
		await waitFor(async () => await post([], path).then(() => true).catch(() => undefined), { what: `the published webhook ${path}`, timeoutMs: 60_000, intervalMs: 1000 });
	}
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	try {
		await ctx?.close();
	} finally {
		console.log(JSON.stringify({ suite: 'create-or-update (queue mode, 2 workers)', ...summary, seconds: Math.round((Date.now() - started) / 1000) }));
	}
});

const actionsOf = (outputs) => outputs.reduce((all, json) => ({ ...all, [json._upsert.action]: (all[json._upsert.action] ?? 0) + 1 }), {});

const ROUNDS_AT_MOST = 3;

/**
 * Runs `round(attempt)`, two executions posted at the same moment with people
 * of their own, until Bull gave one to each worker: a worker with free slots
 * may take both jobs (seen in CI under load), and that round then tested two
 * executions in one process, not the lock between two. Every round's own
 * checks must pass; returns the executions per worker of each round.
 */
async function onTwoWorkers(round) {
	const rounds = [];
	for (let attempt = 0; attempt < ROUNDS_AT_MOST; attempt++) {
		const before = cluster.workerExecutionIds().map((ids) => ids.size);
		await round(attempt);
		const perWorker = cluster.workerExecutionIds().map((ids, index) => ids.size - before[index]);
		rounds.push(perWorker);
		if (perWorker.every((count) => count === 1)) break;
	}
	return rounds;
}

test.each([
	['Automatic (reads all contacts first here)', PATH, 'twoWorkers', 30],
	['Search Each Row', MORE[0].path, 'twoWorkersSearchEachRow', 31],
])(
	'two executions with the same people, at the same moment on two workers, %s: one contact per person',
	async (_label, path, key, area) => {
		const rounds = await onTwoWorkers(async (attempt) => {
			const tag = `q${crypto.randomBytes(4).toString('hex')}`;
			// The same 400 people in both runs, in the same order: both reach each person at about the same moment (other writings in the second); another area code each round.
			const first = crmRows({ people: 400, repeats: 40, tag, area: area + 2 * attempt });
			const second = crmRows({ people: 400, repeats: 40, tag, area: area + 2 * attempt }).map((row, index) => (index % 2 ? { ...row, email: row.email?.toUpperCase() } : row));
			const [a, b] = await Promise.all([post(first, path), post(second, path)]);
			const counts = countPeople(await client.listAll('/contacts', { search: tag }), tag);
			const actions = actionsOf([...a, ...b]);
			summary[key] = { rows: first.length + second.length, ...counts, actions, round: attempt + 1 };
			console.log(`create-or-update (queue, ${key}): ${JSON.stringify(summary[key])}`);
			expect(counts).toEqual({ contacts: 400, people: 400, duplicates: 0 });
			expect(actions.created).toBe(400);
			expect([...matchedByMistakes(first, a), ...matchedByMistakes(second, b)]).toEqual([]);
		});
		summary[key].executionsPerWorker = rounds;
		expect(rounds[rounds.length - 1]).toEqual([1, 1]);
	},
	TEST_TIMEOUT_MS,
);

test.each([
	['Automatic (reads all contacts first here)', PATH, 'shapes', 5],
	['Search Each Row', MORE[0].path, 'shapesSearchEachRow', 6],
])(
	'two executions whose rows of a person carry other fields, at the same moment on two workers (100 ms per request), %s: every person created once, by one row',
	async (_label, path, key, area) => {
		const rounds = await onTwoWorkers(async (attempt) => {
			const { people, runs } = twoRunsOfPeople({ perShape: 5, tag: letterTag(crypto.randomBytes(6)), area: area + 2 * attempt });
			await client.control('PUT', '/faults', { latency_ms: 100 });
			let outputs;
			try {
				outputs = await Promise.all(runs.map((rows) => post(rows, path)));
			} finally {
				await client.control('DELETE', '/faults');
			}
			const contacts = (await client.listAll('/contacts')).filter((contact) => people.some((one) => one.name === contact.name));
			const byShape = countByShape(people, contacts, outputs.flat());
			summary[key] = { ...byShape, round: attempt + 1 };
			console.log(`create-or-update (queue, ${key}): ${JSON.stringify(summary[key])}`);
			for (const counts of Object.values(byShape)) expect(counts).toEqual({ people: counts.people, contacts: counts.people, created: counts.people });
			expect(outputs.flat().flatMap((json) => json._upsert.merged ?? [])).toEqual([]);
			expect(runs.flatMap((rows, run) => matchedByMistakes(rows, outputs[run]))).toEqual([]);
		});
		summary[key].executionsPerWorker = rounds;
		expect(rounds[rounds.length - 1]).toEqual([1, 1]);
	},
	TEST_TIMEOUT_MS,
);

test(
	'two workflows, the same 40 people at the same moment on two workers (100 ms per request): one contact per person',
	async () => {
		const rounds = await onTwoWorkers(async (attempt) => {
			const tag = `q${crypto.randomBytes(4).toString('hex')}`;
			const people = crmRows({ people: 40, tag, area: 50 + 2 * attempt });
			await client.control('PUT', '/faults', { latency_ms: 100 });
			let outputs;
			try {
				outputs = await Promise.all([post(people, MORE[1].path), post(people.map((row) => ({ ...row, email: row.email.toUpperCase() })), MORE[2].path)]);
			} finally {
				await client.control('DELETE', '/faults');
			}
			const counts = countPeople(await client.listAll('/contacts', { search: tag }), tag);
			const merged = new Set(outputs.flat().flatMap((json) => json._upsert.merged ?? []));
			summary.twoWorkflows = { rows: 80, ...counts, actions: actionsOf(outputs.flat()), merged: merged.size, round: attempt + 1 };
			console.log(`create-or-update (queue, two workflows): ${JSON.stringify(summary.twoWorkflows)}`);
			expect(counts).toEqual({ contacts: 40, people: 40, duplicates: 0 });
			// A row whose contact was merged into the one kept says updated: created counts new people.
			expect(summary.twoWorkflows.actions.created).toBe(40);
			expect([...matchedByMistakes(people, outputs[0]), ...matchedByMistakes(people, outputs[1])]).toEqual([]);
		});
		summary.twoWorkflows.executionsPerWorker = rounds;
		expect(rounds[rounds.length - 1]).toEqual([1, 1]);
	},
	TEST_TIMEOUT_MS,
);
