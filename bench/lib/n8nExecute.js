'use strict';
// `n8n execute --id=<id> --rawOutput` as the harness runs it, plus what the
// benchmark needs on top: the process's peak memory, and the run data of a
// failed run (a peer that stops at its first error is a result, not a crash).
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { parseRunOutput } = require('../../harness');
const { sampleRss } = require('./rssSampler');

const PRELOAD = path.join(__dirname, 'peakRssPreload.js');
/** The slowest measured run (3,000 sends at 60/s) takes about a minute. */
const EXECUTE_TIMEOUT_MS = 15 * 60 * 1000;

/**
 * Runs a saved workflow in a fresh n8n process.
 * @returns {Promise<{ run: object, exitCode: number, peakRssMb: number | null, rssSamples: object[] }>}
 */
async function executeWorkflow(n8n, workflowId) {
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-execute-'));
	const env = {
		...(await n8n.env()),
		// BENCH_CPU_PROF_DIR: V8's CPU profile of every `n8n execute` process, kept there (Chrome DevTools opens it).
		NODE_OPTIONS: `--require ${PRELOAD}${process.env.BENCH_CPU_PROF_DIR ? ` --cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}` : ''}`,
		BENCH_PEAK_RSS_DIR: scratch,
		// BENCH_MEMORY_TRACE_DIR: the process's heap, external and other memory every 50 ms, kept there (peakRssPreload.js).
		...(process.env.BENCH_MEMORY_TRACE_DIR ? { BENCH_MEMORY_TRACE_DIR: process.env.BENCH_MEMORY_TRACE_DIR } : {}),
	};
	const logFile = path.join(n8n.userFolder, `bench-execute-${workflowId}.log`);
	// stdout goes to a file, not a pipe: n8n exits right after printing the run
	// (about 90 MB for 100,000 contacts), and through a pipe the end was lost.
	const outputFile = path.join(scratch, 'run.json');
	try {
		const { pid, exitCode, rssSamples } = await spawnToEnd(n8n.install, ['execute', `--id=${workflowId}`, '--rawOutput'], env, { outputFile, logFile });
		const output = fs.readFileSync(outputFile, 'utf8');
		const run = parseRunOutput(output);
		if (!run) {
			// What n8n printed instead (an error, when it could not print the run), for the results.
			const said = output.trim().split('\n').slice(-3).join(' ').slice(-400);
			throw new Error(`n8n execute --id=${workflowId} printed no run data (exit ${exitCode}${said ? `: ${said}` : ''}); see ${logFile}`);
		}
		return { run, exitCode, peakRssMb: readPeakRss(scratch, pid), rssSamples };
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
}

function spawnToEnd(install, args, env, { outputFile, logFile }) {
	const stdout = fs.openSync(outputFile, 'w');
	const stderr = fs.openSync(logFile, 'w');
	return new Promise((resolve, reject) => {
		const child = spawn(install.nodeBin, [install.n8nBin, ...args], { env, stdio: ['ignore', stdout, stderr] });
		const sampler = sampleRss(child.pid);
		const timer = setTimeout(() => child.kill('SIGKILL'), EXECUTE_TIMEOUT_MS);
		child.on('error', reject);
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			const rssSamples = sampler.stop();
			if (signal) return reject(new Error(`n8n ${args[0]} killed by ${signal} (timeout ${EXECUTE_TIMEOUT_MS} ms?); see ${logFile}`));
			resolve({ pid: child.pid, exitCode: code, rssSamples });
		});
	}).finally(() => {
		fs.closeSync(stdout);
		fs.closeSync(stderr);
	});
}

function readPeakRss(dir, pid) {
	const file = path.join(dir, `${pid}.json`);
	if (!fs.existsSync(file)) return null;
	return Math.round(JSON.parse(fs.readFileSync(file, 'utf8')).maxRssKb / 1024);
}

/** The one run of `nodeName` in a run: when it started, its executionTime and output items (json). */
function nodeRun(run, nodeName) {
	const task = run.data.resultData.runData[nodeName]?.[0];
	if (!task) return undefined;
	return {
		startTime: task.startTime,
		executionTimeMs: task.executionTime,
		error: task.error ? task.error.message : undefined,
		items: (task.data?.main?.[0] ?? []).map((item) => item.json),
	};
}

module.exports = { executeWorkflow, nodeRun };
