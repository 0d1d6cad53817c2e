'use strict';
// npm run test:compat [-- <n8n version>...]
//
// Runs the real-n8n core of the E2E suite (credential test, every operation,
// the trigger's lifecycle and verified deliveries, the example workflows)
// against several n8n versions, one after the other: the same test files,
// with N8N_VERSION set for the harness (harness/install.js), which
// installs each version once into its own cache folder (about 5 minutes and
// 2.2 GB in ~/.cache the first time).
//
// Prints one line per version on stdout:
//   compat: n8n 2.40.7 pass (33/33 tests: credential 3/3, ...)
// and writes the details to test-results/compat/ (jest's log and JSON per
// version, summary.json). Exits 1 when any version failed.
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const OUT_DIR = path.join(ROOT, 'test-results', 'compat');

/**
 * The suites' own version, the newest that installs here (2.41.3 pins
 * packages the registry mirror lacks, see ensure-n8n.sh), the oldest 2.x and
 * the newest 1.x.
 */
const DEFAULT_VERSIONS = ['2.40.7', '2.41.1', '2.0.0', '1.123.81'];
const SUITE_FILES = {
	credential: path.join('test', 'credentials', 'credential.n8n.test.js'),
	'action-node': path.join('test', 'action-node', 'action-node.n8n.test.js'),
	trigger: path.join('test', 'trigger', 'trigger.n8n.test.js'),
	examples: path.join('test', 'examples', 'examples.n8n.test.js'),
	'send-and-wait': path.join('test', 'action-node', 'send-and-wait.n8n.test.js'),
};
const SUITES = Object.keys(SUITE_FILES);
const INSTALL_TIMEOUT_MS = 30 * 60 * 1000;
const JEST_TIMEOUT_MS = 60 * 60 * 1000;

function versionsFromArgs() {
	const args = process.argv.slice(2);
	const versions = args.length > 0 ? args : (process.env.COMPAT_N8N_VERSIONS?.split(/[\s,]+/).filter(Boolean) ?? DEFAULT_VERSIONS);
	for (const v of versions) {
		if (!/^\d+\.\d+\.\d+$/.test(v)) throw new Error(`not an n8n version: "${v}" (expected e.g. 2.40.7)`);
	}
	return versions;
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
		const result = spawnSync('bash', [path.join(ROOT, 'test', 'support', 'n8n', 'ensure-n8n.sh')], {
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

/** Runs jest on the core E2E files under N8N_VERSION; resolves to jest's JSON result (or null). */
function runJest(version, logFile, jsonFile) {
	const files = SUITES.map((suite) => SUITE_FILES[suite]);
	const args = [
		path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
		...files,
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
			env: cleanEnv({ N8N_VERSION: version, CI: 'true' }),
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
function summarize(result) {
	const suites = {};
	const failed = [];
	for (const file of result.testResults) {
		const suite = SUITES.find((name) => file.name.endsWith(SUITE_FILES[name]));
		const tests = file.assertionResults;
		const passed = tests.filter((t) => t.status === 'passed').length;
		suites[suite] = { passed, total: tests.length };
		for (const t of tests) if (t.status !== 'passed') failed.push(`${suite}: ${t.title}`);
		// A file that failed before any test ran (setup error) counts as failed.
		if (tests.length === 0 || (file.status === 'failed' && passed === tests.length)) {
			failed.push(`${suite}: ${(file.message || 'failed to run').split('\n').find((l) => l.trim()) ?? 'failed to run'}`);
		}
	}
	for (const suite of SUITES) if (!suites[suite]) failed.push(`${suite}: did not run`);
	const passed = Object.values(suites).reduce((n, s) => n + s.passed, 0);
	const total = Object.values(suites).reduce((n, s) => n + s.total, 0);
	return { suites, failed, passed, total };
}

async function main() {
	const versions = versionsFromArgs();
	// The suites install the packed package: build it first, as `npm test` does.
	const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
	if (build.status !== 0) throw new Error('npm run build failed');
	fs.mkdirSync(OUT_DIR, { recursive: true });
	const summary = [];
	for (const version of versions) {
		const started = Date.now();
		const logFile = path.join(OUT_DIR, `n8n-${version}.log`);
		const jsonFile = path.join(OUT_DIR, `n8n-${version}.json`);
		process.stderr.write(`compat: n8n ${version}: installing (first time about 5 minutes), then the core suites; log ${path.relative(ROOT, logFile)}\n`);
		const installError = install(version, logFile);
		let entry;
		if (installError) {
			entry = { version, pass: false, error: installError };
		} else {
			const result = await runJest(version, logFile, jsonFile);
			if (!result) {
				entry = { version, pass: false, error: `jest wrote no results; see ${path.relative(ROOT, logFile)}` };
			} else {
				const s = summarize(result);
				entry = { version, pass: s.failed.length === 0 && result.success, ...s };
			}
		}
		entry.seconds = Math.round((Date.now() - started) / 1000);
		summary.push(entry);
		console.log(formatLine(entry));
		for (const f of entry.failed ?? []) console.log(`  failed: ${f}`);
	}
	fs.writeFileSync(path.join(OUT_DIR, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
	process.exitCode = summary.every((e) => e.pass) ? 0 : 1;
}

function formatLine(entry) {
	const head = `compat: n8n ${entry.version} ${entry.pass ? 'pass' : 'FAIL'}`;
	if (entry.error) return `${head} (${entry.error})`;
	const suites = SUITES.map((s) => (entry.suites[s] ? `${s} ${entry.suites[s].passed}/${entry.suites[s].total}` : `${s} -`)).join(', ');
	return `${head} (${entry.passed}/${entry.total} tests: ${suites}; ${entry.seconds} s)`;
}

main().catch((error) => {
	console.error(`compat: ${error.message}`);
	process.exit(2);
});
