'use strict';
// Samples a process's resident set size (VmRSS in /proc/<pid>/status) every
// few milliseconds, so the peak while one node ran can be told apart from the
// process's overall peak (which, for `n8n execute --rawOutput`, comes when it
// serialises the whole run data to print it).
const fs = require('fs');

const INTERVAL_MS = 50;

function readRssKb(pid) {
	try {
		const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Number(match[1]) : undefined;
	} catch {
		return undefined; // the process has just exited
	}
}

/** Starts sampling; stop() returns the samples [{ at: epoch ms, kb }]. */
function sampleRss(pid) {
	const samples = [];
	const timer = setInterval(() => {
		const kb = readRssKb(pid);
		if (kb !== undefined) samples.push({ at: Date.now(), kb });
	}, INTERVAL_MS);
	return {
		stop() {
			clearInterval(timer);
			return samples;
		},
	};
}

/** Highest sampled RSS in MB between two epoch-ms instants, or null without a sample there. */
function peakMbBetween(samples, from, to) {
	const inside = samples.filter(({ at }) => at >= from && at <= to).map(({ kb }) => kb);
	return inside.length ? Math.round(Math.max(...inside) / 1024) : null;
}

module.exports = { sampleRss, peakMbBetween, readRssKb };
