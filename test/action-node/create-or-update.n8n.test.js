'use strict';
// Contact > Create or Update in a real n8n (one process, SQLite): a CRM sync
// posts its rows to a production webhook; Split Out; Create or Update
// (Email Then Phone, default country code 49). Counted in the sandbox:
// - 1,000 rows, 200 of them people of the same run again in other writings:
//   one contact per person;
// - two executions with the same people started at the same moment: one
//   contact per person; and two executions whose rows of one person carry
//   other fields (email only, phone only, both, other writings, rows that
//   agree on one field, rows linked through a third row): each person
//   created once, by one row;
// - n8n's Retry On Fail under injected 5xx on writes (half of them after the
//   API created the contact), and n8n's Retry of a failed execution: nothing
//   created twice.
// - Find Contacts By: a sync read all contacts first and the same sync
//   searching each row: the same actions, one contact per person, and the
//   requests each made;
// - two workflows (a form intake and a sheet sync) with the same people at
//   the same moment: one contact per person.
// The queue-mode counterpart is test/queue-mode/create-or-update.n8n.test.js.
const crypto = require('crypto');

const { waitFor, workflows: w } = require('../../harness');
const { crmRows, countPeople, upsertParameters, syncRows, letterTag, twoRunsOfPeople, countByShape, matchedByMistakes } = require('../../harness/crmRows');
const { openContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');

const TEST_TIMEOUT_MS = 8 * 60 * 1000;
const IDS = {
	sync: 'crmUpsertSync001',
	retryOnFail: 'crmUpsertRetry01',
	failing: 'crmUpsertFails01',
	readAll: 'crmUpsertRead001',
	searchEachRow: 'crmUpsertEach001',
	formIntake: 'crmUpsertForm001',
	sheetSync: 'crmUpsertSheet01',
};
/** Match By Email, so that each strategy's requests are exact: one search per row, and one more per new row. */
const byEmail = (strategy) => upsertParameters({ matchBy: 'email', options: { defaultCountryCode: '49', strategy } });

const newTag = () => `u${crypto.randomBytes(4).toString('hex')}`;

describe('Contact > Create or Update in n8n: once per person', () => {
	let ctx;
	const started = Date.now();
	const summary = {};

	const webhookStart = (path, responseMode) =>
		w.node(
			'Rows',
			'n8n-nodes-base.webhook',
			{ httpMethod: 'POST', path, responseMode, ...(responseMode === 'lastNode' && { responseData: 'allEntries' }), options: {} },
			{ typeVersion: 2, webhookId: crypto.randomUUID() },
		);
	const splitRows = () => w.node('Each row', 'n8n-nodes-base.splitOut', { fieldToSplitOut: 'body.rows', include: 'noOtherFields', options: {} });
	const syncWorkflow = (id, path, responseMode, upsert, settings = {}) =>
		w.workflow({
			id,
			name: `CRM upsert ${path}`,
			nodes: [webhookStart(path, responseMode), splitRows(), w.omnichannelNode('Create or update', ctx.credential, upsert, settings)],
			connections: w.chain('Rows', 'Each row', 'Create or update'),
		});

	async function post(path, rows) {
		const response = await fetch(`${ctx.n8n.baseUrl}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ rows }),
		});
		const text = await response.text();
		if (response.status !== 200) throw new Error(`/webhook/${path} answered ${response.status}: ${text.slice(0, 300)}`);
		return JSON.parse(text);
	}

	const actions = (outputs) => outputs.reduce((counts, json) => ({ ...counts, [json._upsert.action]: (counts[json._upsert.action] ?? 0) + 1 }), {});
	const peopleOf = async (tag) => countPeople(await ctx.client.listAll('/contacts', { search: tag }), tag);

	beforeAll(async () => {
		ctx = await openContext({ sandbox: { seed: 'empty' } });
		await ctx.n8n.importCredentials([ctx.credential]);
		await ctx.n8n.importWorkflows([
			syncWorkflow(IDS.sync, 'crm-sync', 'lastNode', upsertParameters()),
			syncWorkflow(IDS.retryOnFail, 'crm-retry-on-fail', 'lastNode', upsertParameters(), { retryOnFail: true, maxTries: 5, waitBetweenTries: 0 }),
			// The name of a new person comes from a column the first version of the workflow gets wrong.
			syncWorkflow(IDS.failing, 'crm-failing', 'onReceived', upsertParameters({ name: '={{ $json.fullName ?? "" }}' })),
			syncWorkflow(IDS.readAll, 'crm-read-all', 'lastNode', byEmail('readAll')),
			syncWorkflow(IDS.searchEachRow, 'crm-each-row', 'lastNode', byEmail('searchEachRow')),
			syncWorkflow(IDS.formIntake, 'crm-form-intake', 'lastNode', upsertParameters()),
			syncWorkflow(IDS.sheetSync, 'crm-sheet-sync', 'lastNode', upsertParameters()),
		]);
		await ctx.n8n.start();
		await ctx.n8n.setupOwnerAndApiKey();
		for (const id of Object.values(IDS)) await ctx.n8n.publishWorkflow(id);
		await waitFor(async () => await post('crm-sync', []).then(() => true).catch(() => undefined), { what: 'the published webhooks', timeoutMs: 60_000, intervalMs: 1000 });
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await ctx?.client.control('DELETE', '/faults').catch(() => undefined);
		await ctx?.close();
		console.log(JSON.stringify({ suite: 'create-or-update (regular mode)', ...summary, seconds: Math.round((Date.now() - started) / 1000) }));
	});

	test(
		'1,000 rows, 200 of them the same people again in other writings: 800 contacts, one per person',
		async () => {
			const tag = newTag();
			const rows = crmRows({ people: 800, repeats: 200, tag, area: 30 });
			const outputs = await post('crm-sync', rows);
			const counts = await peopleOf(tag);
			summary.oneRun = { rows: rows.length, ...counts, actions: actions(outputs) };
			console.log(`create-or-update: one run of ${rows.length} rows: ${JSON.stringify(summary.oneRun)}`);
			expect(outputs).toHaveLength(1000);
			expect(counts).toEqual({ contacts: 800, people: 800, duplicates: 0 });
			expect(actions(outputs).created).toBe(800);
			// Among the 200 repeats, rows with the phone only, found through their person's email: each says the field it carries.
			expect(matchedByMistakes(rows, outputs)).toEqual([]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'two executions with the same people, started at the same moment: one contact per person',
		async () => {
			const tag = newTag();
			// The same 400 people in both runs, in the same order: both reach each person at about the same moment (other writings in the second).
			const first = crmRows({ people: 400, repeats: 40, tag, area: 40 });
			const second = crmRows({ people: 400, repeats: 40, tag, area: 40 }).map((row, index) =>
				index % 2 ? { ...row, email: row.email?.toUpperCase() } : row,
			);
			const [a, b] = await Promise.all([post('crm-sync', first), post('crm-sync', second)]);
			const counts = await peopleOf(tag);
			summary.twoRuns = { rows: first.length + second.length, ...counts, actions: actions([...a, ...b]) };
			console.log(`create-or-update: two runs at once: ${JSON.stringify(summary.twoRuns)}`);
			expect(counts).toEqual({ contacts: 400, people: 400, duplicates: 0 });
			expect(actions([...a, ...b]).created).toBe(400);
			expect([...matchedByMistakes(first, a), ...matchedByMistakes(second, b)]).toEqual([]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'two executions whose rows of a person carry other fields, at the same moment (100 ms per request): every person created once, by one row',
		async () => {
			const { people, runs } = twoRunsOfPeople({ perShape: 5, tag: letterTag(crypto.randomBytes(6)), area: 4 });
			await ctx.client.control('PUT', '/faults', { latency_ms: 100 });
			let outputs;
			try {
				outputs = await Promise.all(runs.map((rows) => post('crm-sync', rows)));
			} finally {
				await ctx.client.control('DELETE', '/faults');
			}
			const contacts = (await ctx.client.listAll('/contacts')).filter((contact) => people.some((one) => one.name === contact.name));
			const byShape = countByShape(people, contacts, outputs.flat());
			summary.shapes = byShape;
			console.log(`create-or-update: two executions, by shape: ${JSON.stringify(byShape)}`);
			for (const counts of Object.values(byShape)) expect(counts).toEqual({ people: counts.people, contacts: counts.people, created: counts.people });
			expect(outputs.flat().flatMap((json) => json._upsert.merged ?? [])).toEqual([]);
			expect(runs.flatMap((rows, run) => matchedByMistakes(rows, outputs[run]))).toEqual([]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		"Retry On Fail under injected 5xx on 20% of requests (writes fail before or after the API's change): one contact per person",
		async () => {
			const tag = newTag();
			const rows = crmRows({ people: 100, repeats: 20, tag, area: 69 });
			await ctx.client.control('PUT', '/faults', { error_rate: 0.2, error_status: 500 });
			let outputs;
			try {
				outputs = await post('crm-retry-on-fail', rows);
			} finally {
				await ctx.client.control('DELETE', '/faults');
			}
			const counts = await peopleOf(tag);
			summary.retryOnFail = { rows: rows.length, ...counts };
			console.log(`create-or-update: Retry On Fail with 20% 5xx: ${JSON.stringify(summary.retryOnFail)}`);
			expect(outputs).toHaveLength(rows.length);
			expect(counts).toEqual({ contacts: 100, people: 100, duplicates: 0 });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'Retry of a failed execution: the rows created before the failure are found, not created again',
		async () => {
			const tag = newTag();
			const rows = crmRows({ people: 30, tag, area: 89 }).map((row, index) => ({ ...row, fullName: index === 20 ? '' : row.name }));
			const before = (await ctx.n8n.listExecutions({ workflowId: IDS.failing })).length;
			await fetch(`${ctx.n8n.baseUrl}/webhook/crm-failing`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows }) }).then((r) => r.text());
			const executions = await ctx.n8n.api.waitForExecutions(IDS.failing, { count: before + 1, timeoutMs: 120_000 });
			const failed = executions.sort((x, y) => Number(y.id) - Number(x.id))[0];
			expect(failed.status).toBe('error');
			const afterFailure = await peopleOf(tag);

			// The user fixes the name column and retries with the saved workflow.
			await ctx.n8n.api.saveNodes(IDS.failing, (nodes) =>
				nodes.map((node) => (node.name === 'Create or update' ? { ...node, parameters: { ...node.parameters, name: '={{ $json.fullName || $json.name }}' } } : node)),
			);
			await ctx.n8n.api.retryExecution(failed.id, { loadWorkflow: true });
			const all = await ctx.n8n.api.waitForExecutions(IDS.failing, { count: before + 2, timeoutMs: 120_000 });
			const retried = all.sort((x, y) => Number(y.id) - Number(x.id))[0];
			const counts = await peopleOf(tag);
			summary.retryExecution = { rows: rows.length, afterFailure, afterRetry: counts, retryStatus: retried.status };
			console.log(`create-or-update: Retry of a failed execution: ${JSON.stringify(summary.retryExecution)}`);
			expect(afterFailure.duplicates).toBe(0);
			expect(afterFailure.contacts).toBeLessThan(30);
			expect(retried.status).toBe('success');
			expect(counts).toEqual({ contacts: 30, people: 30, duplicates: 0 });
		},
		TEST_TIMEOUT_MS,
	);
	test(
		'Find Contacts By, a sync of 300 rows into 300 contacts: read all first and search each row give the same actions and one contact per person',
		async () => {
			const outcomes = {};
			for (const strategy of ['readAll', 'searchEachRow']) {
				const tag = letterTag(crypto.randomBytes(6));
				const sync = syncRows({ contacts: 300, rows: 300, tag });
				await ctx.client.control('PUT', '/faults', { rate_limit_per_second: 100_000 });
				for (const contact of sync.workspace) await ctx.client.api('POST', '/contacts', contact);
				await ctx.client.control('DELETE', '/faults');
				const total = (await ctx.client.api('GET', '/contacts?per_page=1')).total;
				await ctx.client.control('DELETE', '/stats');
				const outputs = await post(strategy === 'readAll' ? 'crm-read-all' : 'crm-each-row', sync.rows);
				const { requests } = await ctx.client.control('GET', '/stats');
				outcomes[strategy] = { rows: sync.rows.length, ...(await peopleOf(tag)), actions: actions(outputs), requests, workspaceContacts: total, expected: sync.counts };
			}
			summary.strategies = outcomes;
			console.log(`create-or-update: Find Contacts By, same sync: ${JSON.stringify(outcomes)}`);
			const { readAll, searchEachRow } = outcomes;
			for (const outcome of [readAll, searchEachRow]) {
				expect(outcome).toMatchObject({ contacts: 315, people: 315, duplicates: 0, actions: { created: 15, updated: 30, unchanged: 255 } });
			}
			// Read all: its pages, a search and a create per new row, an update per changed row, one page of the contacts created meanwhile.
			expect(readAll.requests).toBe(Math.ceil(readAll.workspaceContacts / 500) + 15 * 2 + 30 + 1);
			expect(searchEachRow.requests).toBe(300 + 15 + 30 + 1);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'two workflows, the same 40 people at the same moment (100 ms per request): one contact per person',
		async () => {
			const tag = newTag();
			const people = crmRows({ people: 40, tag, area: 50 });
			await ctx.client.control('PUT', '/faults', { latency_ms: 100 });
			let form;
			let sheet;
			try {
				[form, sheet] = await Promise.all([post('crm-form-intake', people), post('crm-sheet-sync', people.map((row) => ({ ...row, email: row.email.toUpperCase() })))]);
			} finally {
				await ctx.client.control('DELETE', '/faults');
			}
			const counts = await peopleOf(tag);
			const merged = new Set([...form, ...sheet].flatMap((json) => json._upsert.merged ?? []));
			summary.twoWorkflows = { rows: 80, ...counts, actions: actions([...form, ...sheet]), merged: merged.size };
			console.log(`create-or-update: two workflows at once: ${JSON.stringify(summary.twoWorkflows)}`);
			expect(counts).toEqual({ contacts: 40, people: 40, duplicates: 0 });
			// A row whose contact was merged into the one kept says updated: created counts new people.
			expect(actions([...form, ...sheet]).created).toBe(40);
			// A merged row's matchedBy comes from the check after the run: still a field of the row itself.
			expect([...matchedByMistakes(people, form), ...matchedByMistakes(people, sheet)]).toEqual([]);
		},
		TEST_TIMEOUT_MS,
	);
});
