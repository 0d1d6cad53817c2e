'use strict';
// Scenario "lock-calls": what the trigger's cross-process lock costs per
// delivery, in database calls and SQL statements, at 20 and 40 deliveries/s,
// with the lock taken per batch (the revision before "one lock per busy
// spell"), kept per busy spell for a fixed 500 ms and renewed every second
// (the revision before the hold scaled to the lock's cost), renewed every 5 s
// with a hold scaled to the lock's cost (the revision before renewals read the
// row) and as this tree keeps it, taking turns in the same run. No n8n: the ledger modules run
// against the stand-in of n8n's processed_data table of the in-process
// tests, each call delayed by a fixed database round trip: 4 ms (an idle
// n8n) and 1 s (an n8n on SQLite taking in a storm under its defaults, where
// the volume bench measured calls of 0.2 to 3 s); every execution's first
// step is one recordEvent call,
// arriving at a fixed rate, in one process or split over two (queue mode's
// workers). Statements are counted as n8n 2.40 issues them on SQLite (see
// the benchmarks page): creating the lock row 3, any other check-and-record
// 2, a delete 1.
//   npm run bench -- --only lock-calls        (about 6 minutes a run)
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const { summarise } = require('../lib/summary');

const REPO = path.join(__dirname, '..', '..');
const SECONDS = Number(process.env.BENCH_LOCK_SECONDS) || 15;
const NODE = { workflowId: 'wf', nodeId: 'node-1' };
const quietLog = { warn: () => undefined };

/** Each version of the ledger: the revision it is read from (none: this tree). */
const PEERS = {
	perBatch: { label: 'Lock per batch (8903457)', revision: '8903457' },
	fixedHold: { label: 'Lock per busy spell, 500 ms (f6027aa)', revision: 'f6027aa' },
	scaledHold: { label: "Lock per busy spell, hold scaled to the lock's cost, renewed every 5 s (1c40cb7)", revision: '1c40cb7' },
	readingRenewals: { label: 'The same, renewals that read the row, every 2 s; stale locks claimed in place (this tree)' },
};

/** Database round trips (ms) and the rates each is measured at. */
const CASES = [
	...[20, 40].flatMap((rate) => [1, 2].map((processes) => ({ dbMs: 4, rate, processes }))),
	...[1, 2].map((processes) => ({ dbMs: 1000, rate: 20, processes })),
];

/** Transpiles TypeScript sources into a folder under node_modules, so their imports (n8n-workflow) resolve. */
function transpile(folder, files) {
	fs.mkdirSync(folder, { recursive: true });
	for (const [name, source] of Object.entries(files)) {
		const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
		fs.writeFileSync(path.join(folder, name.replace(/\.c?ts$/, '.js')), outputText);
	}
}

/** The ledger and its lock as a revision (or this tree) has them; the lock moved from beside the ledger to nodes/shared. */
function ledgerSources(revision) {
	const read = (file) => (revision ? execFileSync('git', ['show', `${revision}:${file}`], { cwd: REPO, stdio: ['ignore', 'pipe', 'ignore'] }) : fs.readFileSync(path.join(REPO, file))).toString();
	let lock;
	try {
		lock = read('nodes/shared/databaseLock.ts');
	} catch {
		lock = read('nodes/OmnichannelTrigger/databaseLock.ts');
	}
	let ledger;
	for (const folder of ['common/', 'step/', '']) {
		try {
			ledger = read(`nodes/OmnichannelTrigger/${folder}eventsInDatabase.ts`);
			break;
		} catch {
			// The ledger moved between folders of the trigger over time.
		}
	}
	return {
		'eventsInDatabase.ts': ledger.replace(/'(\.\.\/)+shared\/databaseLock'/g, "'./databaseLock'"),
		'databaseLock.ts': lock,
	};
}

function loadVersions(work) {
	for (const [version, { revision }] of Object.entries(PEERS)) transpile(path.join(work, version), ledgerSources(revision));
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

/** The table's helpers, each call a round trip of `dbMs`, counted by kind in `counts`. */
function countedHelpers(table, counts, dbMs) {
	const helpers = table.helpers(NODE.workflowId, NODE.nodeId);
	return {
		checkProcessedAndRecord: async (items, scope, options) => {
			await sleep(dbMs);
			const creates = scope === 'workflow' && !table.rows.has(`${NODE.workflowId}|`);
			counts.calls++;
			counts[scope === 'node' ? 'ledgerCalls' : 'lockCalls']++;
			counts.statements += creates ? 3 : 2;
			if (scope === 'workflow') counts.lockStatements += creates ? 3 : 2;
			return await helpers.checkProcessedAndRecord(items, scope, options);
		},
		clearAllProcessedItems: async (scope) => {
			await sleep(dbMs);
			counts.calls++;
			counts.lockCalls++;
			counts.statements += 1;
			counts.lockStatements += 1;
			return await helpers.clearAllProcessedItems(scope);
		},
	};
}

async function measure(versions, version, { dbMs, rate, processes }) {
	const Table = versions.table();
	const table = new Table(1);
	const counts = { calls: 0, ledgerCalls: 0, lockCalls: 0, statements: 0, lockStatements: 0 };
	const helpers = countedHelpers(table, counts, dbMs);
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
	await sleep(Math.max(200, 3 * dbMs));
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

const caseKey = (version, { dbMs, rate, processes }) => `${version} ${dbMs}ms ${rate}/s ${processes}p`;

async function run({ runs, log }) {
	const work = fs.mkdtempSync(path.join(REPO, 'node_modules', '.bench-lock-calls-'));
	const results = {};
	try {
		const versions = loadVersions(work);
		for (let runIndex = 0; runIndex < runs; runIndex++) {
			for (const oneCase of CASES) {
				const order = runIndex % 2 === 0 ? Object.keys(PEERS) : Object.keys(PEERS).reverse();
				for (const version of order) {
					const key = caseKey(version, oneCase);
					const metrics = await measure(versions, version, oneCase);
					(results[key] ??= []).push(metrics);
					log(`lock-calls run ${runIndex + 1}/${runs} ${key}: ${JSON.stringify(metrics)}`);
				}
			}
		}
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
	const cell = (metricsOfRuns, column) => {
		const summary = metricsOfRuns ? summarise(metricsOfRuns.map((metrics) => metrics[column.key])) : undefined;
		return summary ? summary.median.toFixed(column.digits) : '—';
	};
	const table = (dbMs) => [
		`### ${dbMs} ms per database call: the ledger lock's database calls per delivery, ${SECONDS} s at each rate, ${runs} run(s), medians`,
		'',
		`| Case | ${COLUMNS.map((column) => column.label).join(' | ')} |`,
		`|---|${COLUMNS.map(() => '---:').join('|')}|`,
		...CASES.filter((oneCase) => oneCase.dbMs === dbMs).flatMap((oneCase) =>
			Object.entries(PEERS).map(([version, { label }]) => {
				const where = `${oneCase.rate}/s, ${oneCase.processes === 1 ? 'one process' : 'two processes'}`;
				return `| ${label}, ${where} | ${COLUMNS.map((column) => cell(results[caseKey(version, oneCase)], column)).join(' | ')} |`;
			}),
		),
		'',
	];
	const markdown = [
		'# Benchmark results',
		'',
		'Generated by `npm run bench -- --only lock-calls`; raw numbers of every run in bench/results/lock-calls.json.',
		'',
		...[...new Set(CASES.map((oneCase) => oneCase.dbMs))].flatMap(table),
		'Deliveries arrive at a fixed rate; each is one execution first step (recordEvent) in one process, or alternately in two that share the table. ' +
			"The database is the in-process tests' stand-in of n8n's processed_data table with a fixed delay per call, so the counts are exact and the times " +
			'show only how calls queue behind one another, not what a real database takes.',
		'',
	].join('\n');
	const revisions = Object.fromEntries(Object.entries(PEERS).map(([version, { revision }]) => [version, revision ?? 'this tree']));
	return { json: { generated_at: new Date().toISOString(), runs, seconds: SECONDS, cases: CASES, revisions, results }, markdown };
}

module.exports = { run };
