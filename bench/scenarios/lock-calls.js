'use strict';
// Scenario "lock-calls": what the trigger's cross-process lock costs per
// delivery, in database calls and SQL statements, at 20 and 40 deliveries/s,
// with the lock taken per batch (the revision before "one lock per busy
// spell") and per busy spell (this tree), taking turns in the same run. No
// n8n: the ledger modules run against the stand-in of n8n's processed_data
// table of the in-process tests, each call delayed by DB_MS as a database
// round trip; every execution's first step is one recordEvent call, arriving
// at a fixed rate, in one process or split over two (queue mode's workers).
// Statements are counted as n8n 2.40 issues them on SQLite (see the
// benchmarks page): creating the lock row 3, any other check-and-record 2,
// a delete 1.
//   npm run bench -- --only lock-calls        (about 2 minutes)
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const { summarise } = require('../lib/summary');

const REPO = path.join(__dirname, '..', '..');
/** The last revision that took the lock for every batch. */
const PER_BATCH_REVISION = '8903457';
const RATES = [20, 40];
const SECONDS = Number(process.env.BENCH_LOCK_SECONDS) || 15;
/** One database round trip: a small SQLite write on a busy 2-core machine. */
const DB_MS = 4;
const NODE = { workflowId: 'wf', nodeId: 'node-1' };
const quietLog = { warn: () => undefined };

const PEERS = {
	perBatch: { label: `Lock per batch (${PER_BATCH_REVISION})` },
	perSpell: { label: 'Lock per busy spell (this tree)' },
};

/** Transpiles TypeScript sources into a folder under node_modules, so their imports (n8n-workflow) resolve. */
function transpile(folder, files) {
	fs.mkdirSync(folder, { recursive: true });
	for (const [name, source] of Object.entries(files)) {
		const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
		fs.writeFileSync(path.join(folder, name.replace(/\.c?ts$/, '.js')), outputText);
	}
}

function loadVersions(work) {
	const ledger = ['eventsInDatabase.ts', 'databaseLock.ts'];
	const at = (revision, file) => execFileSync('git', ['show', `${revision}:nodes/OmnichannelTrigger/${file}`], { cwd: REPO }).toString();
	transpile(path.join(work, 'perBatch'), Object.fromEntries(ledger.map((file) => [file, at(PER_BATCH_REVISION, file)])));
	// This tree keeps the lock in nodes/shared; the copy sits beside the ledger.
	const inTree = {
		'eventsInDatabase.ts': fs.readFileSync(path.join(REPO, 'nodes/OmnichannelTrigger/eventsInDatabase.ts'), 'utf8').replaceAll('../shared/databaseLock', './databaseLock'),
		'databaseLock.ts': fs.readFileSync(path.join(REPO, 'nodes/shared/databaseLock.ts'), 'utf8'),
	};
	transpile(path.join(work, 'perSpell'), inTree);
	transpile(path.join(work, 'table'), { 'processed-data.cts': fs.readFileSync(path.join(REPO, 'test/support/host/processed-data.cts'), 'utf8') });
	return {
		table: () => require(path.join(work, 'table', 'processed-data.js')).ProcessedDataTable,
		/** A fresh copy of a version's ledger: one more n8n process. */
		ledger: (version) => {
			const file = path.join(work, version, 'eventsInDatabase.js');
			for (const name of ['eventsInDatabase.js', 'databaseLock.js']) delete require.cache[path.join(work, version, name)];
			return require(file);
		},
	};
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The table's helpers, each call a DB_MS round trip, counted by kind in `counts`. */
function countedHelpers(table, counts) {
	const helpers = table.helpers(NODE.workflowId, NODE.nodeId);
	return {
		checkProcessedAndRecord: async (items, scope, options) => {
			await sleep(DB_MS);
			const creates = scope === 'workflow' && !table.rows.has(`${NODE.workflowId}|`);
			counts.calls++;
			counts[scope === 'node' ? 'ledgerCalls' : 'lockCalls']++;
			counts.statements += creates ? 3 : 2;
			if (scope === 'workflow') counts.lockStatements += creates ? 3 : 2;
			return await helpers.checkProcessedAndRecord(items, scope, options);
		},
		clearAllProcessedItems: async (scope) => {
			await sleep(DB_MS);
			counts.calls++;
			counts.lockCalls++;
			counts.statements += 1;
			counts.lockStatements += 1;
			return await helpers.clearAllProcessedItems(scope);
		},
	};
}

async function measure(versions, version, rate, processes) {
	const Table = versions.table();
	const table = new Table(1);
	const counts = { calls: 0, ledgerCalls: 0, lockCalls: 0, statements: 0, lockStatements: 0 };
	const helpers = countedHelpers(table, counts);
	// Each version with its own default timing.
	const ledgers = Array.from({ length: processes }, () => versions.ledger(version));
	const deliveries = rate * SECONDS;
	const latencies = [];
	const startedAt = Date.now();
	const verdicts = await Promise.all(
		Array.from({ length: deliveries }, async (_, index) => {
			await sleep(startedAt + (index * 1000) / rate - Date.now());
			const sent = Date.now();
			const verdict = await ledgers[index % processes].recordEvent(helpers, NODE, `evt_${index}`, quietLog);
			latencies.push(Date.now() - sent);
			return verdict;
		}),
	);
	for (const ledger of ledgers) await ledger.whenIdle?.();
	// Whatever release is still under way (the revision per batch has no whenIdle).
	await sleep(200);
	if (verdicts.some((verdict) => verdict !== 'first')) throw new Error(`${version}: an event was not first`);
	latencies.sort((a, b) => a - b);
	return {
		deliveries,
		callsPerDelivery: counts.calls / deliveries,
		lockCallsPerDelivery: counts.lockCalls / deliveries,
		statementsPerDelivery: counts.statements / deliveries,
		lockStatementsPerDelivery: counts.lockStatements / deliveries,
		checks: counts.ledgerCalls,
		medianMs: latencies[Math.floor(latencies.length / 2)],
		p90Ms: latencies[Math.floor(latencies.length * 0.9)],
	};
}

const COLUMNS = [
	{ key: 'callsPerDelivery', label: 'Database calls per delivery', digits: 2 },
	{ key: 'lockCallsPerDelivery', label: 'Of them the lock', digits: 2 },
	{ key: 'statementsPerDelivery', label: 'SQL statements per delivery (SQLite)', digits: 2 },
	{ key: 'lockStatementsPerDelivery', label: 'Of them the lock', digits: 2 },
	{ key: 'checks', label: 'Window checks', digits: 0 },
	{ key: 'medianMs', label: 'Verdict after, median (ms)', digits: 0 },
	{ key: 'p90Ms', label: 'p90 (ms)', digits: 0 },
];

async function run({ runs, log }) {
	const work = fs.mkdtempSync(path.join(REPO, 'node_modules', '.bench-lock-calls-'));
	const cases = [];
	for (const rate of RATES) for (const processes of [1, 2]) cases.push({ rate, processes });
	const results = {};
	try {
		const versions = loadVersions(work);
		for (let runIndex = 0; runIndex < runs; runIndex++) {
			for (const { rate, processes } of cases) {
				const order = runIndex % 2 === 0 ? Object.keys(PEERS) : Object.keys(PEERS).reverse();
				for (const version of order) {
					const key = `${version} ${rate}/s ${processes}p`;
					const metrics = await measure(versions, version, rate, processes);
					(results[key] ??= []).push(metrics);
					log(`lock-calls run ${runIndex + 1}/${runs} ${key}: ${JSON.stringify(metrics)}`);
				}
			}
		}
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
	const rows = Object.entries(results).map(([key, metricsOfRuns]) => {
		const [version, rate, processes] = key.split(' ');
		const summary = Object.fromEntries(COLUMNS.map(({ key: column }) => [column, summarise(metricsOfRuns.map((metrics) => metrics[column]))]));
		return { label: `${PEERS[version].label}, ${rate}, ${processes === '1p' ? 'one process' : 'two processes'}`, summary };
	});
	const cell = (summary, digits) => (summary ? summary.median.toFixed(digits) : '—');
	const markdown = [
		'# Benchmark results',
		'',
		'Generated by `npm run bench -- --only lock-calls`; raw numbers of every run in bench/results/lock-calls.json.',
		'',
		`### The ledger lock's database calls per delivery, ${SECONDS} s at each rate, ${DB_MS} ms per database call, ${runs} run(s), medians`,
		'',
		`| Case | ${COLUMNS.map((column) => column.label).join(' | ')} |`,
		`|---|${COLUMNS.map(() => '---:').join('|')}|`,
		...rows.map((row) => `| ${row.label} | ${COLUMNS.map((column) => cell(row.summary[column.key], column.digits)).join(' | ')} |`),
		'',
		'Deliveries arrive at a fixed rate; each is one execution first step (recordEvent) in one process, or alternately in two that share the table. ' +
			"The database is the in-process tests' stand-in of n8n's processed_data table with a fixed delay per call, so the counts are exact and the times " +
			'show only how calls queue behind one another, not what a real database takes.',
		'',
	].join('\n');
	return { json: { generated_at: new Date().toISOString(), runs, seconds: SECONDS, db_ms: DB_MS, per_batch_revision: PER_BATCH_REVISION, results }, markdown };
}

module.exports = { run };
