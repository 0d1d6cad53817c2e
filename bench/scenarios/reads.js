'use strict';
// Scenario 1: Return All of 100,000 contacts, our node vs the HTTP Request
// node's built-in pagination (page/per_page 500 until has_next is false).
// A workspace of its own holds exactly the 100,000 contacts, so both must
// make exactly 200 requests.
const { measureExecution, measureRuns } = require('../lib/measure');
const wf = require('../lib/workflows');

const CONTACTS = 100_000;
const PER_PAGE = 500;
const RATE_LIMIT = 60;
const CEILING_ITEMS_PER_S = RATE_LIMIT * PER_PAGE;

const PEERS = {
	omnichannel: { label: 'Omnichannel node (Return All)', records: (items) => items },
	httpRequest: { label: 'HTTP Request node (pagination)', records: (items) => items.flatMap((page) => page.data ?? []) },
	idle: { label: 'n8n alone (Manual Trigger only; memory baseline)' },
};

const COLUMNS = [
	{ key: 'timeS', label: 'Time (s)', digits: 2 },
	{ key: 'itemsPerS', label: 'Items/s', digits: 0 },
	{ key: 'pctOfCeiling', label: '% of 30,000/s', digits: 1 },
	{ key: 'requests', label: 'Requests', digits: 0 },
	{ key: 'status429', label: '429s', digits: 0 },
	{ key: 'duplicateIds', label: 'Duplicate ids', digits: 0 },
	{ key: 'records', label: 'Records', digits: 0 },
	{ key: 'nodePeakRssMb', label: 'Peak RSS while the node ran (MB)', digits: 0 },
	{ key: 'peakRssMb', label: 'Peak RSS of the process (MB)', digits: 0 },
];

async function setUp({ sandbox, openN8n }) {
	const { client } = sandbox;
	const n8n = await openN8n();
	const workspace = await client.control('POST', '/workspaces', {});
	const key = await client.control('POST', '/keys', { app_id: workspace.app_id, mode: 'test', scopes: ['customers:read'], name: 'bench reads' });
	await client.control('POST', '/bulk', { app_id: workspace.app_id, contacts: CONTACTS });
	const credentials = wf.credentialsFor('Rd', { baseUrl: sandbox.base_url, apiKey: key.key });
	const workflows = {
		omnichannel: wf.readsOurs(wf.benchId('RdOurs'), credentials),
		httpRequest: wf.readsHttp(wf.benchId('RdHttp'), credentials, sandbox.base_url),
		idle: wf.idleBaseline(wf.benchId('RdIdle')),
	};
	await n8n.importCredentials([credentials.ours, credentials.header]);
	await n8n.importWorkflows(Object.values(workflows));
	await client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: RATE_LIMIT });
	return { n8n, workflows };
}

function metricsOf(peer, measured) {
	if (peer === 'idle') return { peakRssMb: measured.peakRssMb };
	const memory = { nodePeakRssMb: measured.nodePeakRssMb, peakRssMb: measured.peakRssMb };
	const records = PEERS[peer].records(measured.items);
	const ids = records.map((record) => record.id);
	const itemsPerS = records.length / (measured.executionTimeMs / 1000);
	return {
		status: measured.status,
		timeS: measured.executionTimeMs / 1000,
		itemsPerS,
		pctOfCeiling: (100 * itemsPerS) / CEILING_ITEMS_PER_S,
		requests: measured.requests,
		status429: measured.status429,
		duplicateIds: ids.length - new Set(ids).size,
		records: records.length,
		...memory,
	};
}

function targets(summary) {
	const ours = summary.omnichannel;
	const http = summary.httpRequest;
	const speedup = http.timeS.median / ours.timeS.median;
	return [
		{ target: 'at least 85% of the 30,000 items/s ceiling (median)', value: `${ours.pctOfCeiling.median.toFixed(1)}%`, met: ours.pctOfCeiling.median >= 85 },
		{ target: 'exactly 200 requests in every run', value: `${ours.requests.min}–${ours.requests.max}`, met: ours.requests.min === 200 && ours.requests.max === 200 },
		{ target: '0 × 429 in every run', value: String(ours.status429.max), met: ours.status429.max === 0 },
		{ target: '0 duplicate ids in every run', value: String(ours.duplicateIds.max), met: ours.duplicateIds.max === 0 },
		{ target: `all ${CONTACTS.toLocaleString('en-US')} contacts in every run`, value: `${ours.records.min.toLocaleString('en-US')}–${ours.records.max.toLocaleString('en-US')}`, met: ours.records.min === CONTACTS && ours.records.max === CONTACTS },
		{ target: 'at least 4× faster than the HTTP Request node (median time)', value: `${speedup.toFixed(1)}×`, met: speedup >= 4 },
	];
}

async function run(context) {
	const { n8n, workflows } = await setUp(context);
	const results = await measureRuns(context, 'reads', Object.keys(PEERS), async (peer) =>
		metricsOf(peer, await measureExecution({ n8n, sandbox: context.sandbox }, workflows[peer].id)),
	);
	await n8n.dispose();
	return {
		title: `Return All of ${CONTACTS.toLocaleString('en-US')} contacts`,
		setup: { contacts: CONTACTS, per_page: PER_PAGE, latency_ms: 100, rate_limit_per_second: RATE_LIMIT, ceiling_items_per_s: CEILING_ITEMS_PER_S },
		columns: COLUMNS,
		peers: PEERS,
		results,
		targets,
	};
}

module.exports = { run };
