#!/usr/bin/env node
'use strict';
// `npm run bench`: the benchmarks of issue 6, inside a real n8n, against the
// sandbox with 100 ms latency and its 60 requests/s limit. Not part of
// `npm test`: a full run takes about 15 minutes.
//
//   npm run bench                                  all scenarios, 3 runs each
//   BENCH_RUNS=1 npm run bench -- --only reads     one scenario, one run
//   BENCH_SKIP_BUILD=1 ...                         use the dist/ already built
//
// Writes bench/results.json and bench/RESULTS.md. The API key is sent to n8n
// as a credential and never printed or written to the results.
const { execFileSync } = require('child_process');
const os = require('os');
const path = require('path');

const { startN8n, N8N_VERSION } = require('../test/e2e/harness');
const { parseOptions, SCENARIOS } = require('./lib/options');
const { startSandboxProcess } = require('./lib/sandboxProcess');
const { summariseRuns } = require('./lib/summary');
const { writeResults } = require('./lib/report');

const scenarioModules = {
	reads: require('./scenarios/reads'),
	sends: require('./scenarios/sends'),
	webhooks: require('./scenarios/webhooks'),
};

const log = (message) => process.stderr.write(`[bench] ${message}\n`);

function build() {
	if (process.env.BENCH_SKIP_BUILD === '1') return;
	log('npm run build');
	execFileSync('npm', ['run', 'build'], { cwd: path.join(__dirname, '..'), stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 });
}

function machine(n8n) {
	return {
		cpus: os.cpus().length,
		cpu_model: os.cpus()[0]?.model?.trim() ?? 'unknown',
		memory_gb: Math.round(os.totalmem() / 2 ** 30),
		os: `${os.type()} ${os.release()}`,
		n8n_node: execFileSync(n8n.install.nodeBin, ['--version']).toString().trim().replace(/^v/, ''),
	};
}

/** A scenario's raw runs turned into what results.json keeps: summaries and targets. */
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

async function main() {
	const { scenarios, runs } = parseOptions();
	build();
	log(`scenarios ${scenarios.join(', ')}; ${runs} run(s) each`);
	const sandbox = await startSandboxProcess();
	let n8n;
	try {
		n8n = await startN8n({ start: false });
		const measured = {};
		for (const name of scenarios) {
			log(`--- ${name}`);
			const context = { sandbox, n8n, runs, log };
			try {
				measured[name] = finish(await scenarioModules[name].run(context), runs);
			} finally {
				await sandbox.client.control('DELETE', '/faults');
			}
			for (const target of measured[name].targets) log(`${target.met ? 'met   ' : 'MISSED'} ${target.target}: ${target.value}`);
		}
		const files = writeResults({ machine: machine(n8n), n8nVersion: N8N_VERSION, scenarios: measured, order: SCENARIOS });
		process.stdout.write(`${files.text}\n`);
		log(`wrote ${path.relative(process.cwd(), files.json)} and ${path.relative(process.cwd(), files.markdown)}`);
	} finally {
		await n8n?.dispose();
		await sandbox.close();
	}
}

main().catch((error) => {
	log(`failed: ${error.stack ?? error}`);
	process.exit(1);
});
