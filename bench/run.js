#!/usr/bin/env node
'use strict';
// `npm run bench`: every benchmark scenario, each against a peer measured in
// the same run. Not part of `npm test`: the scenarios in n8n alone take about
// 15 minutes.
//   bench/scenarios/<scenario>.js      what a scenario measures and against what
//   bench/results/<scenario>.json/.md  its last results (bench/lib/results.js)
// Most scenarios run inside a real n8n against one sandbox with 100 ms latency
// and its 60 requests/s limit; `sandbox` (the sandbox alone), `window` (n8n
// with no sandbox) and `send-and-wait`/`send-and-wait-queue`,
// `send-and-wait-chat`/`send-and-wait-chat-queue` and `burst`/`burst-queue`
// (n8n and a sandbox of their own) set up their own.
//
//   npm run bench                                  all scenarios, 3 runs each
//   BENCH_RUNS=1 npm run bench -- --only reads     one scenario, one run
//   BENCH_SKIP_BUILD=1 ...                         use the dist/ already built
//   BENCH_TARBALL=/path/pkg.tgz ...                measure that package instead
//                                                  (a release, or a patch to compare)
//   ... --only burst-volume-lazy                   bursts at volume with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true
//                                                  (and burst-volume-queue-lazy)
//   ... --only chat-stream-queue                   chat waits under a stream of messages, queue mode,
//                                                  beside the Webhook → Wait node (BENCH_STREAM_RATES)
//   ... --only webhooks-queue                      webhook intake in queue mode, 1 and 2
//                                                  webhook processes (BENCH_QUEUE_INTAKE_EVENTS)
//   BENCH_PROFILE=1 ... --only webhooks-lazy       CPU-profile n8n during each intake
//                                                  window (BENCH_PROFILE_DIR keeps the
//                                                  raw .cpuprofile files)
//   BENCH_CPU_PROF_DIR=<dir> ... --only report-team
//                                                  V8's CPU profile of every `n8n execute` there
//   BENCH_MEMORY_TRACE_DIR=<dir> ... --only report-team
//                                                  every `n8n execute`'s heap, external and other
//                                                  memory every 50 ms, there
//   ... --only report-team-published               the same peers published in a running n8n,
//                                                  a fresh server for every run of every peer
//
// The API key is sent to n8n as a credential and never printed or written to
// the results.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { startN8n, packRepo, ensureN8nInstall, N8N_VERSION } = require('../harness');
const { parseOptions } = require('./lib/options');
const { startSandboxProcess } = require('../sandbox/process');
const { summariseRuns } = require('./lib/summary');
const { scenarioResults } = require('./lib/report');
const { writeResults } = require('./lib/results');

/** Scenarios that set up what they measure themselves. */
const standaloneScenarios = {
	sandbox: require('./scenarios/sandbox'),
	window: require('./scenarios/window'),
	'send-and-wait': require('./scenarios/send-and-wait'),
	'send-and-wait-queue': { run: require('./scenarios/send-and-wait').runInQueueMode },
	'send-and-wait-chat': require('./scenarios/send-and-wait-chat'),
	'send-and-wait-chat-queue': { run: require('./scenarios/send-and-wait-chat').runInQueueMode },
	burst: require('./scenarios/burst'),
	'burst-queue': { run: require('./scenarios/burst').runInQueueMode },
	'burst-volume': require('./scenarios/burst-volume'),
	'burst-volume-queue': { run: require('./scenarios/burst-volume').runInQueueMode },
	'burst-volume-lazy': { run: require('./scenarios/burst-volume').runWithLazyIsolates },
	'burst-volume-queue-lazy': { run: require('./scenarios/burst-volume').runInQueueModeWithLazyIsolates },
	'burst-cap': require('./scenarios/burst-cap'),
	'burst-cap-queue': { run: require('./scenarios/burst-cap').runInQueueMode },
	'lock-calls': require('./scenarios/lock-calls'),
	'chat-stream-queue': require('./scenarios/chat-stream'),
	memory: require('./scenarios/memory'),
};

/** Scenarios run inside n8n against the shared sandbox. */
const n8nScenarios = {
	reads: require('./scenarios/reads'),
	sends: require('./scenarios/sends'),
	upsert: require('./scenarios/upsert'),
	'upsert-memory': { run: require('./scenarios/upsert').runMemory },
	report: require('./scenarios/report'),
	'report-memory': { run: require('./scenarios/report').runMemory },
	'report-team': require('./scenarios/report-team'),
	'report-team-published': { run: require('./scenarios/report-team').runInRunningN8n },
	webhooks: require('./scenarios/webhooks'),
	'webhooks-lazy': { run: require('./scenarios/webhooks').runWithLazyIsolates },
	'webhooks-full': { run: require('./scenarios/webhooks').runWithFullWindow },
	queue: require('./scenarios/queue'),
	'webhooks-queue': require('./scenarios/webhooks-queue'),
};

const log = (message) => process.stderr.write(`[bench] ${message}\n`);

function build() {
	if (process.env.BENCH_SKIP_BUILD === '1' || process.env.BENCH_TARBALL) return;
	log('npm run build');
	execFileSync('npm', ['run', 'build'], { cwd: path.join(__dirname, '..'), stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 });
}

function machine(install) {
	return {
		cpus: os.cpus().length,
		cpu_model: os.cpus()[0]?.model?.trim() ?? 'unknown',
		memory_gb: Math.round(os.totalmem() / 2 ** 30),
		os: `${os.type()} ${os.release()}`,
		n8n_node: execFileSync(install.nodeBin, ['--version']).toString().trim().replace(/^v/, ''),
		// n8n takes its settings from the environment the bench runs in. The
		// expression engine's decide most of the cost of a webhook delivery, so
		// a run with any of them set says so (only these: N8N_* may hold secrets).
		n8n_expression_engine_settings: Object.fromEntries(
			Object.entries(process.env).filter(([name]) => name.startsWith('N8N_EXPRESSION_ENGINE')),
		),
	};
}

/** A scenario's raw runs turned into what its results file keeps: summaries and targets. */
function finish(result, runs) {
	const peers = {};
	const summary = {};
	for (const [id, peer] of Object.entries(result.peers)) {
		summary[id] = summariseRuns(result.results[id]);
		peers[id] = { label: peer.label, runs: result.results[id], summary: summary[id] };
	}
	return {
		title: result.title,
		measured_at: new Date().toISOString(),
		runs,
		setup: result.setup,
		columns: result.columns,
		peers,
		targets: result.targets(summary),
		notes: result.notes,
	};
}

/**
 * Every scenario prepares its own n8n user folder (`openN8n(options)`, options
 * as the harness's startN8n), all with the same package: packed once here.
 */
async function withN8nFactory(fn) {
	const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pack-'));
	const opened = [];
	try {
		const tarball = process.env.BENCH_TARBALL || packRepo(packDir);
		const openN8n = async (options = {}) => {
			const n8n = await startN8n({ start: false, tarball, ...options });
			opened.push(n8n);
			return n8n;
		};
		return await fn(openN8n, path.basename(tarball), tarball);
	} finally {
		for (const n8n of opened) await n8n.dispose();
		fs.rmSync(packDir, { recursive: true, force: true });
	}
}

/** Writes a scenario's results files and prints its table. */
function report(name, result) {
	const files = writeResults(name, result);
	process.stdout.write(`${result.markdown}\n`);
	log(`wrote ${path.relative(process.cwd(), files.json)} and ${path.relative(process.cwd(), files.markdown)}`);
}

/** The scenarios that share one sandbox and one packed package, each in n8n user folders of its own. */
async function runInN8n(names, runs) {
	const sandbox = await startSandboxProcess();
	try {
		await withN8nFactory(async (openN8n, packageFile, tarball) => {
			for (const name of names) {
				log(`--- ${name}`);
				let measured;
				try {
					const result = await n8nScenarios[name].run({ sandbox, openN8n, tarball, runs, log });
					measured = { ...finish(result, result.runs ?? runs), package: packageFile };
				} finally {
					await sandbox.client.control('DELETE', '/faults');
				}
				for (const target of measured.targets) log(`${target.met === null ? 'info  ' : target.met ? 'met   ' : 'MISSED'} ${target.target}: ${target.value}`);
				report(name, scenarioResults({ name, machine: machine(ensureN8nInstall()), n8nVersion: N8N_VERSION, scenario: measured }));
			}
		});
	} finally {
		await sandbox.close();
	}
}

async function main() {
	const { scenarios, runs } = parseOptions();
	log(`scenarios ${scenarios.join(', ')}; ${runs} run(s) each`);
	// Every scenario but the sandbox's own measures the packed package.
	if (scenarios.some((name) => name !== 'sandbox')) build();
	for (const name of scenarios.filter((name) => standaloneScenarios[name])) {
		log(`--- ${name}`);
		report(name, await standaloneScenarios[name].run({ runs, log }));
	}
	const inN8n = scenarios.filter((name) => n8nScenarios[name]);
	if (inN8n.length > 0) await runInN8n(inN8n, runs);
}

main().catch((error) => {
	log(`failed: ${error.stack ?? error}`);
	process.exit(1);
});
