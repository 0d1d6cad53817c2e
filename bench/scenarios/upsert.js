'use strict';
// Scenario "upsert": a CRM sync of 290 rows (250 people, 40 of them again in
// other writings of their email) into the workspace's contacts, matched by
// email, against the sandbox at 100 ms latency and its 60 requests/s limit.
//   ours: Contact > Create or Update, one node;
//   peer: what users build today from n8n nodes: Loop Over Items (1 row) ->
//         our Contact > Get Many (Search = the email, Limit 1, Always Output
//         Data) -> IF (a contact came back) -> our Update / our Create -> back
//         to the loop.
// Each (run, peer) syncs people of its own tag into an empty workspace part,
// then the sandbox is counted: contacts per person (duplicates), rows without
// a contact (failed rows), requests, 429s. The goal is stated against what the
// key allows for the requests each row makes: rows/s divided by
// 60 / (requests per row).
//   npm run bench -- --only upsert        (about 6 minutes with 3 runs)
const crypto = require('crypto');

const { executeWorkflow } = require('../lib/n8nExecute');
const { measureRuns } = require('../lib/measure');
const wf = require('../lib/workflows');
const { crmRows, countPeople } = require('../../harness/crmRows');
const { workflows: w } = require('../../harness');

const PEOPLE = 250;
const REPEATS = 60;
const RATE_LIMIT = 60;

const PEERS = {
	omnichannel: { label: 'Omnichannel node (Contact > Create or Update)' },
	handBuilt: { label: 'Loop Over Items -> Get Many (search) -> IF -> Create / Update' },
};

const COLUMNS = [
	{ key: 'succeeded', label: 'Runs finished', kind: 'yesCount' },
	{ key: 'rows', label: 'Rows', digits: 0 },
	{ key: 'timeS', label: 'Time (s)', digits: 2 },
	{ key: 'rowsPerS', label: 'Rows/s', digits: 2 },
	{ key: 'requestsPerRow', label: 'Requests per row', digits: 2 },
	{ key: 'pctOfAllowed', label: '% of the rows/s 60 req/s allow', digits: 1 },
	{ key: 'status429', label: '429s', digits: 0 },
	{ key: 'failedRows', label: 'Failed rows', digits: 0 },
	{ key: 'duplicates', label: 'Duplicate contacts', digits: 0 },
];

/** The rows of one run: every row has an email (both peers match by email). */
const rowsOf = (tag) => crmRows({ people: PEOPLE, repeats: REPEATS, tag, area: 30 }).filter((row) => row.email);

function input(rows) {
	return w.node('Input', 'n8n-nodes-base.code', { jsCode: `return ${JSON.stringify(rows)}.map((json) => ({ json }));` }, { typeVersion: 2 });
}

function oursWorkflow(id, credential, rows) {
	return w.workflow({
		id,
		name: `Bench upsert ${id} (Create or Update)`,
		nodes: [
			w.manualTrigger(),
			input(rows),
			w.omnichannelNode(wf.MEASURED, credential, {
				resource: 'contact',
				operation: 'createOrUpdate',
				matchBy: 'email',
				email: '={{ $json.email }}',
				name: '={{ $json.name }}',
				phone: '={{ $json.phone }}',
				additionalFields: { company: '={{ $json.company }}' },
			}),
		],
		connections: w.chain('Start', 'Input', wf.MEASURED),
	});
}

function handBuiltWorkflow(id, credential, rows) {
	const row = (field) => `={{ $('Loop').item.json.${field} }}`;
	const nodes = [
		w.manualTrigger(),
		input(rows),
		w.node('Loop', 'n8n-nodes-base.splitInBatches', { batchSize: 1, options: {} }, { typeVersion: 3 }),
		w.omnichannelNode(
			'Find',
			credential,
			{ resource: 'contact', operation: 'getAll', returnAll: false, limit: 1, filters: { search: '={{ $json.email.trim() }}' } },
			{ alwaysOutputData: true },
		),
		w.node(
			'Found?',
			'n8n-nodes-base.if',
			{
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
					conditions: [{ id: crypto.randomUUID(), leftValue: '={{ $json.id }}', rightValue: '', operator: { type: 'string', operation: 'exists', singleValue: true } }],
					combinator: 'and',
				},
				options: {},
			},
			{ typeVersion: 2 },
		),
		w.omnichannelNode('Update', credential, {
			resource: 'contact',
			operation: 'update',
			contactId: w.byId('={{ $json.id }}'),
			updateFields: { name: row('name'), phone: row('phone'), company: row('company') },
		}),
		w.omnichannelNode('Create', credential, {
			resource: 'contact',
			operation: 'create',
			name: row('name'),
			additionalFields: { email: row('email.trim()'), phone: row('phone'), company: row('company') },
		}),
	];
	const laidOut = w.workflow({ id, name: `Bench upsert ${id} (hand-built)`, nodes, connections: w.chain('Start', 'Input', 'Loop') });
	const to = (node) => [{ node, type: 'main', index: 0 }];
	laidOut.connections = {
		Start: { main: [to('Input')] },
		Input: { main: [to('Loop')] },
		Loop: { main: [[], to('Find')] },
		Find: { main: [to('Found?')] },
		'Found?': { main: [to('Update'), to('Create')] },
		Update: { main: [to('Loop')] },
		Create: { main: [to('Loop')] },
	};
	return laidOut;
}

/** From the first measured node's start to the last one's end (Start and Input excluded). */
function spanOf(run) {
	let from = Infinity;
	let to = 0;
	for (const [name, tasks] of Object.entries(run.data.resultData.runData)) {
		if (name === 'Start' || name === 'Input') continue;
		for (const task of tasks) {
			from = Math.min(from, task.startTime);
			to = Math.max(to, task.startTime + task.executionTime);
		}
	}
	return { startTime: from, timeMs: to - from };
}

async function setUp({ sandbox, openN8n, runs }) {
	const n8n = await openN8n();
	const credentials = wf.credentialsFor('Up', { baseUrl: sandbox.base_url, apiKey: sandbox.key });
	const plan = {};
	const workflows = [];
	for (const peer of Object.keys(PEERS)) {
		plan[peer] = [];
		for (let runIndex = 0; runIndex < runs; runIndex++) {
			const tag = `b${peer.slice(0, 2)}${runIndex}${crypto.randomBytes(3).toString('hex')}`;
			const rows = rowsOf(tag);
			const id = wf.benchId('Up', peer.slice(0, 4), String(runIndex + 1));
			workflows.push((peer === 'omnichannel' ? oursWorkflow : handBuiltWorkflow)(id, credentials.ours, rows));
			plan[peer].push({ workflowId: id, tag, rows: rows.length });
		}
	}
	await n8n.importCredentials([credentials.ours]);
	await n8n.importWorkflows(workflows);
	await sandbox.client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: RATE_LIMIT });
	return { n8n, plan };
}

async function measure({ n8n, sandbox }, { workflowId, tag, rows }) {
	await sandbox.client.control('DELETE', '/stats');
	const { run } = await executeWorkflow(n8n, workflowId);
	const stats = await sandbox.client.control('GET', '/stats');
	const { timeMs } = spanOf(run);
	const people = countPeople(await sandbox.client.listAll('/contacts', { search: tag }), tag);
	const timeS = timeMs / 1000;
	const requestsPerRow = stats.requests / rows;
	const rowsPerS = rows / timeS;
	return {
		succeeded: run.status === 'success' ? 1 : 0,
		rows,
		timeS,
		rowsPerS,
		requests: stats.requests,
		requestsPerRow,
		pctOfAllowed: (100 * rowsPerS) / (RATE_LIMIT / requestsPerRow),
		status429: stats.by_status['429'] ?? 0,
		failedRows: PEOPLE - people.people,
		duplicates: people.duplicates,
	};
}

function targets(summary) {
	const ours = summary.omnichannel;
	const peer = summary.handBuilt;
	return [
		{ target: "at least 85% of the rows/s that 60 req/s allow for the node's requests per row (median)", value: `${ours.pctOfAllowed.median.toFixed(1)}% (${ours.rowsPerS.median.toFixed(2)} rows/s at ${ours.requestsPerRow.median.toFixed(2)} requests/row)`, met: ours.pctOfAllowed.median >= 85 },
		{ target: '0 failed rows in every run', value: String(ours.failedRows.max), met: ours.failedRows.max === 0 },
		{ target: '0 duplicate contacts in every run', value: String(ours.duplicates.max), met: ours.duplicates.max === 0 },
		{ target: 'faster than the hand-built peer (median rows/s)', value: `${(ours.rowsPerS.median / peer.rowsPerS.median).toFixed(1)}x`, met: ours.rowsPerS.median > peer.rowsPerS.median },
	];
}

async function run(context) {
	const { n8n, plan } = await setUp(context);
	const { sandbox } = context;
	const results = await measureRuns(context, 'upsert', Object.keys(PEERS), async (peer, runIndex) => await measure({ n8n, sandbox }, plan[peer][runIndex]));
	await sandbox.client.control('DELETE', '/faults');
	await n8n.dispose();
	const rowCount = plan.omnichannel[0].rows;
	return {
		title: `A CRM sync of ${rowCount} rows (${PEOPLE} people, ${rowCount - PEOPLE} again in other writings) into contacts`,
		setup: { people: PEOPLE, repeated_rows: rowCount - PEOPLE, latency_ms: 100, rate_limit_per_second: RATE_LIMIT, match_by: 'email' },
		columns: COLUMNS,
		peers: PEERS,
		results,
		targets,
		notes: [
			'Time runs from the first node after the input to the last one\'s end, from n8n\'s own run data. Requests are counted by the sandbox. ' +
				'"% of the rows/s 60 req/s allow" divides rows/s by 60 / (requests per row): 100% would spend the key\'s whole rate on the requests each row makes. ' +
				'Failed rows are people without a contact afterwards; duplicate contacts are contacts beyond one per person. The hand-built peer matches the ' +
				'search\'s first hit, so an email written in other case still matches; it runs one row at a time (Loop Over Items), as users build it.',
		],
	};
}

module.exports = { run };
