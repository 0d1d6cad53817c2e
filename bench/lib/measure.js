'use strict';
// One measured `n8n execute` of a Manual Trigger -> node workflow: the
// sandbox's request statistics around it, the measured node's own
// executionTime and output, and the peak memory of the n8n process.
const os = require('os');

const { executeWorkflow, nodeRun } = require('./n8nExecute');
const { peakMbBetween } = require('./rssSampler');
const { MEASURED } = require('./workflows');

async function measureExecution({ n8n, sandbox }, workflowId) {
	await sandbox.client.control('DELETE', '/stats');
	const { run, exitCode, peakRssMb, rssSamples } = await executeWorkflow(n8n, workflowId);
	const stats = await sandbox.client.control('GET', '/stats');
	const measured = nodeRun(run, MEASURED);
	if (!measured) throw new Error(`workflow ${workflowId}: the measured node did not run (status ${run.status})`);
	return {
		status: run.status,
		exitCode,
		peakRssMb,
		nodePeakRssMb: peakMbBetween(rssSamples, measured.startTime, measured.startTime + measured.executionTimeMs),
		startTime: measured.startTime,
		executionTimeMs: measured.executionTimeMs,
		nodeError: measured.error,
		items: measured.items,
		requests: stats.requests,
		status429: stats.by_status['429'] ?? 0,
		byStatus: stats.by_status,
		maxPerSecond: stats.max_per_second,
	};
}

/**
 * Measures every peer `runs` times with `measure(peer, runIndex)`, which
 * resolves to that run's metrics, and returns { [peer]: [metrics, ...] }.
 * Each run also records the machine's 1-minute load average before it
 * started: other work on a 2-core machine shows up in every figure.
 */
async function measureRuns({ runs, log }, scenario, peers, measure) {
	const results = Object.fromEntries(peers.map((peer) => [peer, []]));
	for (let runIndex = 0; runIndex < runs; runIndex++) {
		// Alternating the order keeps a warm cache or a slow first run from
		// always favouring the same peer.
		const order = runIndex % 2 === 0 ? peers : [...peers].reverse();
		for (const peer of order) {
			const loadAverage = os.loadavg()[0];
			const metrics = { ...(await measure(peer, runIndex)), loadAverage };
			results[peer].push(metrics);
			log(`${scenario} run ${runIndex + 1}/${runs} ${peer}: ${JSON.stringify(metrics)}`);
		}
	}
	return results;
}

module.exports = { measureExecution, measureRuns };
