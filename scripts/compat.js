'use strict';
// npm run test:compat [-- <row>...]
//
// Runs the real-n8n core of the E2E suite (credential test, every operation,
// the trigger's lifecycle and verified deliveries, the example workflows)
// against several n8n versions, one after the other: the same test files,
// with N8N_VERSION set for the harness (harness/install.js), which
// installs each version once into its own cache folder (about 5 minutes and
// 2.2 GB in ~/.cache the first time). A row is an n8n version (`2.40.7`: the
// core suites) or a named row such as `2.41.1-v3-defaults`: that version with
// n8n 3.0's defaults, running the suites in test/compat/, or `external`: the
// HTTP-only suites against an n8n started elsewhere (see ROWS).
//
// Prints one line per row on stdout:
//   compat: n8n 2.40.7 pass (33/33 tests: credential 3/3, ...)
// followed by the count lines the row's suites print, and writes the details
// to test-results/compat/ (jest's log and JSON per row, summary.json). Exits 1
// when any row failed.
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const OUT_DIR = path.join(ROOT, 'test-results', 'compat');

const SUITE_FILES = {
	credential: path.join('test', 'credentials', 'credential.n8n.test.js'),
	'action-node': path.join('test', 'action-node', 'action-node.n8n.test.js'),
	trigger: path.join('test', 'trigger', 'trigger.n8n.test.js'),
	examples: path.join('test', 'examples', 'examples.n8n.test.js'),
	'send-and-wait': path.join('test', 'action-node', 'send-and-wait.n8n.test.js'),
	'ai-sdk': path.join('test', 'compat', 'ai-sdk.n8n.test.js'),
	'v3-defaults': path.join('test', 'compat', 'v3-defaults.n8n.test.js'),
	'v3-defaults-queue': path.join('test', 'compat', 'v3-defaults-queue.n8n.test.js'),
};
const CORE_SUITES = ['credential', 'action-node', 'trigger', 'examples', 'send-and-wait', 'ai-sdk'];

/**
 * Named rows: an n8n version, the suites, and the lines of counts their tests
 * print (shown under the row's result line). n8n 3 ships as a Docker image
 * only, so 3.0's defaults run on the newest 2.x that installs here; the
 * suites set those defaults themselves (test/compat/v3-defaults.js).
 */
const ROWS = {
	'2.41.1-v3-defaults': { version: '2.41.1', suites: ['v3-defaults', 'v3-defaults-queue'], counts: /^v3 defaults.*$/gm },
	// An n8n started elsewhere (OMNICHANNEL_N8N_URL, harness/external.js), a
	// 3.x Docker image say: the suites that need only its HTTP API, without the
	// trigger's restart test (n8n is not ours to restart).
	external: {
		external: true,
		suites: ['credential', 'action-node', 'trigger'],
		testNamePattern: '^(?!.*after n8n restarts)',
	},
};

/**
 * The versions before the one `npm test` runs (harness/n8n-version, the
 * newest the registry serves): the previous minor's last patch, the oldest
 * 2.x, the newest 1.x, and n8n 3.0's defaults.
 */
const DEFAULT_ROWS = ['2.40.7', '2.0.0', '1.123.81', '2.41.1-v3-defaults'];
const INSTALL_TIMEOUT_MS = 30 * 60 * 1000;
const JEST_TIMEOUT_MS = 60 * 60 * 1000;

/** A row's version, suites and count lines; a plain version runs the core suites. */
function rowOf(name) {
	if (ROWS[name]) return { name, ...ROWS[name] };
	if (!/^\d+\.\d+\.\d+$/.test(name)) {
		throw new Error(`not an n8n version or row: "${name}" (expected e.g. 2.40.7, or one of ${Object.keys(ROWS).join(', ')})`);
	}
	return { name, version: name, suites: CORE_SUITES };
}

function rowsFromArgs() {
	const args = process.argv.slice(2);
	const names = args.length > 0 ? args : (process.env.COMPAT_N8N_VERSIONS?.split(/[\s,]+/).filter(Boolean) ?? DEFAULT_ROWS);
	return names.map(rowOf);
}

/** Environment without npm's exported settings (ensure-n8n.sh drops them too). */
function cleanEnv(extra) {
	const env = { ...process.env, ...extra };
	for (const name of Object.keys(env)) if (name.startsWith('npm_')) delete env[name];
	return env;
}

/** Installs (or finds) the version's n8n; returns null or the reason it failed. */
function install(version, logFile) {
	const log = fs.openSync(logFile, 'w');
	try {
		const result = spawnSync('bash', [path.join(ROOT, 'harness', 'ensure-n8n.sh')], {
			cwd: ROOT,
			env: cleanEnv({ N8N_VERSION: version }),
			stdio: ['ignore', log, log],
			timeout: INSTALL_TIMEOUT_MS,
			killSignal: 'SIGKILL',
		});
		if (result.status === 0) return null;
		const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').filter((l) => !l.startsWith('npm warn')).slice(-3);
		return `install failed (${result.signal ?? `exit ${result.status}`}): ${tail.join(' | ')}`;
	} finally {
		fs.closeSync(log);
	}
}

/** Runs jest on the row's files under N8N_VERSION; resolves to jest's JSON result (or null). */
function runJest({ version, suites, testNamePattern }, logFile, jsonFile) {
	const files = suites.map((suite) => SUITE_FILES[suite]);
	const args = [
		path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
		...files,
		...(testNamePattern ? [`--testNamePattern=${testNamePattern}`] : []),
		'--runInBand',
		// Only jest's own reporter: the suite's summary reporter writes
		// test-results/summary.txt, which belongs to `npm test`.
		'--reporters=default',
		'--json',
		`--outputFile=${jsonFile}`,
	];
	fs.rmSync(jsonFile, { force: true });
	const log = fs.openSync(logFile, 'a');
	return new Promise((resolve) => {
		const child = spawn(process.execPath, args, {
			cwd: ROOT,
			env: cleanEnv({ ...(version ? { N8N_VERSION: version } : {}), CI: 'true' }),
			stdio: ['ignore', log, log],
		});
		const timer = setTimeout(() => child.kill('SIGKILL'), JEST_TIMEOUT_MS);
		child.on('close', () => {
			clearTimeout(timer);
			fs.closeSync(log);
			resolve(fs.existsSync(jsonFile) ? JSON.parse(fs.readFileSync(jsonFile, 'utf8')) : null);
		});
	});
}

/** Per-suite pass counts and the failed tests' names, from jest's JSON. */
function summarize(result, suiteNames) {
	const suites = {};
	const failed = [];
	for (const file of result.testResults) {
		const suite = suiteNames.find((name) => file.name.endsWith(SUITE_FILES[name]));
		// Tests a row leaves out (its testNamePattern) are skipped, not failed.
		const tests = file.assertionResults.filter((t) => t.status !== 'pending' && t.status !== 'skipped');
		const skipped = file.assertionResults.length - tests.length;
		const passed = tests.filter((t) => t.status === 'passed').length;
		suites[suite] = { passed, total: tests.length, skipped };
		for (const t of tests) if (t.status !== 'passed') failed.push(`${suite}: ${t.title}`);
		// A file that failed before any test ran (setup error) counts as failed.
		if (tests.length === 0 || (file.status === 'failed' && passed === tests.length)) {
			failed.push(`${suite}: ${(file.message || 'failed to run').split('\n').find((l) => l.trim()) ?? 'failed to run'}`);
		}
	}
	for (const suite of suiteNames) if (!suites[suite]) failed.push(`${suite}: did not run`);
	const passed = Object.values(suites).reduce((n, s) => n + s.passed, 0);
	const total = Object.values(suites).reduce((n, s) => n + s.total, 0);
	return { suites, failed, passed, total };
}

async function main() {
	const rows = rowsFromArgs();
	// The suites install the packed package: build it first, as `npm test` does.
	const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
	if (build.status !== 0) throw new Error('npm run build failed');
	fs.mkdirSync(OUT_DIR, { recursive: true });
	const summary = [];
	for (const row of rows) {
		const started = Date.now();
		const logFile = path.join(OUT_DIR, `n8n-${row.name}.log`);
		const jsonFile = path.join(OUT_DIR, `n8n-${row.name}.json`);
		let installError = null;
		if (row.external) {
			if (!process.env.OMNICHANNEL_N8N_URL) throw new Error('the external row needs OMNICHANNEL_N8N_URL (and the owner login): see harness/README.md');
			process.stderr.write(`compat: the n8n at ${process.env.OMNICHANNEL_N8N_URL}: ${row.suites.join(', ')}; log ${path.relative(ROOT, logFile)}\n`);
			fs.writeFileSync(logFile, '');
		} else {
			process.stderr.write(`compat: n8n ${row.name}: installing ${row.version} (first time about 5 minutes), then ${row.suites.join(', ')}; log ${path.relative(ROOT, logFile)}\n`);
			installError = install(row.version, logFile);
		}
		let entry;
		if (installError) {
			entry = { row: row.name, version: row.version, pass: false, error: installError };
		} else {
			const result = await runJest(row, logFile, jsonFile);
			if (!result) {
				entry = { row: row.name, version: row.version, pass: false, error: `jest wrote no results; see ${path.relative(ROOT, logFile)}` };
			} else {
				const s = summarize(result, row.suites);
				entry = { row: row.name, version: row.version, pass: s.failed.length === 0 && result.success, ...s };
			}
		}
		entry.seconds = Math.round((Date.now() - started) / 1000);
		if (row.counts && fs.existsSync(logFile)) entry.counts = fs.readFileSync(logFile, 'utf8').match(row.counts) ?? [];
		summary.push(entry);
		console.log(formatLine(entry, row.suites));
		for (const line of entry.counts ?? []) console.log(`  ${line}`);
		for (const f of entry.failed ?? []) console.log(`  failed: ${f}`);
	}
	fs.writeFileSync(path.join(OUT_DIR, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
	process.exitCode = summary.every((e) => e.pass) ? 0 : 1;
}

function formatLine(entry, suiteNames) {
	const head = `compat: n8n ${entry.row} ${entry.pass ? 'pass' : 'FAIL'}`;
	if (entry.error) return `${head} (${entry.error})`;
	const suites = suiteNames
		.map((s) => {
			const counts = entry.suites[s];
			if (!counts) return `${s} -`;
			return `${s} ${counts.passed}/${counts.total}${counts.skipped ? ` (${counts.skipped} skipped)` : ''}`;
		})
		.join(', ');
	return `${head} (${entry.passed}/${entry.total} tests: ${suites}; ${entry.seconds} s)`;
}

main().catch((error) => {
	console.error(`compat: ${error.message}`);
	process.exit(2);
});
