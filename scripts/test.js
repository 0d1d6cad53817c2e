'use strict';
// `npm test`, what CI runs (.ci/run). While what the real-n8n files need is
// installed in the background (n8n and Node 24 into the cache, Debian's
// PostgreSQL, Redis and Chromium), it builds, lints and runs the in-process
// files (4 at once); then it packs the package once and runs the real-n8n
// files in four lanes at once, each a Jest run of its own with one shared
// n8n or queue-mode cluster (jest.config.js, test/support/n8n/shared.js).
// Ends with the 10 slowest files and one line for CI, "jest: N passed, N
// failed, N skipped", kept in test-results/summary.txt (.ci/run repeats it
// last). Arguments are Jest path patterns: only the matching files run.
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { packRepo } = require('../harness/package');

const ROOT = path.join(__dirname, '..');
const OUT_DIR = path.join(ROOT, 'test-results');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
/** The in-process suites mostly wait (the sandbox's latency, rate limits, timers): 4 at once suit 2 cores (CONTRIBUTING.md). */
const UNIT_WORKERS = 4;
/**
 * The lanes of the real-n8n files, run side by side, each a Jest run with its
 * own shared n8n or queue-mode cluster: most of their time is spent waiting
 * on n8n's own clocks (the wait tracker's minute, a webhook's grace), so four
 * lanes keep 2 cores busier than two did (CONTRIBUTING.md has the figures).
 * The queue-mode files that start clusters of their own (they restart
 * processes or services) are one lane; those on the shared cluster another;
 * the rest is split in two of about equal time. A file goes to the first
 * lane whose pattern matches it.
 */
const LANES = [
	{ name: 'queue-own', pattern: /^test\/queue-mode\/(faults|queue|send-and-wait-chat)\.n8n\./ },
	{ name: 'queue', pattern: /^test\/(queue-mode\/|action-node\/send-and-wait-queue\.)/ },
	{ name: 'waits', pattern: /^test\/(action-node\/(send-and-wait-chat|send-and-wait|create-or-update)|trigger\/(republish|trigger))\.n8n\./ },
	{ name: 'regular', pattern: /./ },
];

/** Runs a command to its end; resolves to its exit code. `log`: a file for its output instead of ours. */
function run(command, args, { log, env } = {}) {
	return new Promise((resolve) => {
		const out = log ? fs.openSync(log, 'w') : 'inherit';
		const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', out, out], env: { ...process.env, ...env } });
		if (log) fs.closeSync(out);
		child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
	});
}

function readJson(file) {
	return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
}

/** One Jest run; resolves to its JSON results (null when it wrote none) and exit code. */
async function jest(name, args, options) {
	const outputFile = path.join(OUT_DIR, `jest-${name}.json`);
	fs.rmSync(outputFile, { force: true });
	const started = Date.now();
	// Jest's summary reporter would write summary.txt per run: this script writes it for the whole.
	const status = await run(process.execPath, [JEST, ...args, '--reporters=default', '--json', `--outputFile=${outputFile}`], options);
	return { name, status, seconds: Math.round((Date.now() - started) / 1000), json: readJson(outputFile) };
}

/** The real-n8n files the patterns select, by lane. */
async function e2eFilesByLane(patterns) {
	const listFile = path.join(OUT_DIR, 'e2e-files.txt');
	// The patterns follow a flag without a value: after an array option (--selectProjects, --testPathIgnorePatterns) Jest's
	// argument parser would take them as more of its values, and list every file but the ones asked for.
	const status = await run(process.execPath, [JEST, '--selectProjects=e2e', '--testPathIgnorePatterns=/test/compat/', '--listTests', ...patterns], { log: listFile });
	if (status !== 0) throw new Error(`jest --listTests failed: ${fs.readFileSync(listFile, 'utf8').slice(-2000)}`);
	const files = fs
		.readFileSync(listFile, 'utf8')
		.split('\n')
		.filter((line) => line.endsWith('.n8n.test.js'))
		.map((file) => path.relative(ROOT, file));
	return LANES.map((lane) => ({ ...lane, files: files.filter((file) => LANES.find((l) => l.pattern.test(file)) === lane) })).filter((lane) => lane.files.length > 0);
}

/** Starts what the real-n8n files need installing, in the background; each resolves to null or what failed. */
function prepareInBackground() {
	const step = (name, args) => {
		const log = path.join(OUT_DIR, `prepare-${name}.log`);
		return run(process.execPath, args, { log }).then((status) => (status === 0 ? null : `${name} (exit ${status}): ${fs.readFileSync(log, 'utf8').trim().split('\n').slice(-5).join(' | ')}`));
	};
	return Promise.all([
		step('n8n', ['-e', "require('./harness/install').ensureN8nInstall()"]),
		step('debian', ['-e', "const d = require('./harness/debian-packages'); d.ensureDebianPackages(d.DEBIAN_PACKAGES)"]),
	]);
}

function summarize(runs, failures) {
	const totals = { passed: 0, failed: failures.length, skipped: 0 };
	const files = [];
	for (const { name, status, json } of runs) {
		if (!json) {
			totals.failed++;
			console.log(`test: ${name} wrote no results (exit ${status})`);
			continue;
		}
		totals.passed += json.numPassedTests;
		totals.failed += json.numFailedTests + json.numRuntimeErrorTestSuites;
		totals.skipped += json.numPendingTests + json.numTodoTests;
		for (const file of json.testResults) files.push({ file: path.relative(ROOT, file.name), seconds: (file.endTime - file.startTime) / 1000 });
		if (status !== 0 && json.numFailedTests + json.numRuntimeErrorTestSuites === 0) {
			totals.failed++;
			console.log(`test: ${name} exited ${status} with no failed test`);
		}
	}
	for (const failure of failures) console.log(`test: ${failure}`);
	console.log(`\ntest: ${runs.map((r) => `${r.name} ${r.seconds} s`).join(', ')}; the 10 slowest files:`);
	for (const { file, seconds } of files.sort((a, b) => b.seconds - a.seconds).slice(0, 10)) console.log(`  ${seconds.toFixed(0).padStart(5)} s  ${file}`);
	return totals;
}

async function main() {
	const started = Date.now();
	const patterns = process.argv.slice(2);
	fs.mkdirSync(OUT_DIR, { recursive: true });
	const prepared = prepareInBackground();
	const failures = [];
	const runs = [];
	const stage = async (name, command, args) => {
		const at = Date.now();
		const status = await run(command, args);
		console.log(`test: ${name} ${status === 0 ? 'passed' : `FAILED (exit ${status})`} in ${Math.round((Date.now() - at) / 1000)} s`);
		if (status !== 0) failures.push(`${name} failed (exit ${status})`);
		return status === 0;
	};
	if (await stage('build', 'npm', ['run', 'build'])) {
		await stage('lint', process.execPath, [path.join('scripts', 'lint.js')]);
		runs.push(await jest('unit', ['--selectProjects=unit', `--maxWorkers=${UNIT_WORKERS}`, '--passWithNoTests', ...patterns]));
		const lanes = await e2eFilesByLane(patterns);
		const notReady = (await prepared).filter(Boolean);
		if (notReady.length > 0) {
			failures.push(...notReady.map((what) => `could not install ${what}`));
		} else if (lanes.length > 0) {
			// One tarball for the whole run: every n8n of every lane installs it.
			const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-test-pack-'));
			try {
				const env = { OMNICHANNEL_E2E_TARBALL: packRepo(packDir) };
				console.log(`test: real-n8n files in ${lanes.length} lanes: ${lanes.map((l) => `${l.name} (${l.files.length} files)`).join(', ')}; their output is printed when all end`);
				const laneRuns = await Promise.all(
					lanes.map((lane) => jest(`e2e-${lane.name}`, ['--selectProjects=e2e', '--maxWorkers=1', ...lane.files], { env, log: path.join(OUT_DIR, `jest-e2e-${lane.name}.log`) })),
				);
				for (const lane of laneRuns) {
					console.log(`\n===== ${lane.name} (${lane.seconds} s) =====`);
					process.stdout.write(fs.readFileSync(path.join(OUT_DIR, `jest-${lane.name}.log`), 'utf8'));
				}
				runs.push(...laneRuns);
			} finally {
				fs.rmSync(packDir, { recursive: true, force: true });
			}
		}
	}
	const totals = summarize(runs, failures);
	const line = `jest: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`;
	console.log(`test: ${Math.round((Date.now() - started) / 1000)} s in all`);
	console.log(`\n${line}`);
	fs.writeFileSync(path.join(OUT_DIR, 'summary.txt'), `${line}\n`);
	process.exitCode = totals.failed > 0 ? 1 : 0;
}

main().catch((error) => {
	console.error(`test: ${error.stack ?? error.message}`);
	fs.mkdirSync(OUT_DIR, { recursive: true });
	fs.writeFileSync(path.join(OUT_DIR, 'summary.txt'), 'jest: 0 passed, 1 failed, 0 skipped\n');
	process.exitCode = 1;
});
