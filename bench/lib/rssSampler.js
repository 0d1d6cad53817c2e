'use strict';
// Samples a process's resident set size (VmRSS in /proc/<pid>/status) every
// few milliseconds, so the peak while one node ran can be told apart from the
// process's overall peak (which, for `n8n execute --rawOutput`, comes when it
// serialises the whole run data to print it); and its CPU time (utime + stime
// in /proc/<pid>/stat, all its threads, not its children), which the machine's
// load stretches far less than wall time.
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

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function readCpuSeconds(pid) {
	try {
		// The fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
		const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
		return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
	} catch {
		return undefined;
	}
}

/** Starts sampling; stop() returns the samples [{ at: epoch ms, kb, cpuS }]. */
function sampleRss(pid, intervalMs = INTERVAL_MS) {
	const samples = [];
	const timer = setInterval(() => {
		const kb = readRssKb(pid);
		if (kb !== undefined) samples.push({ at: Date.now(), kb, cpuS: readCpuSeconds(pid) });
	}, intervalMs);
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

/** The process's CPU seconds at `at`, read between the samples around it as if used evenly; or undefined. */
function cpuAt(samples, at) {
	const timed = samples.filter(({ cpuS }) => cpuS !== undefined);
	const after = timed.findIndex((sample) => sample.at >= at);
	if (after <= 0) return undefined;
	const [a, b] = [timed[after - 1], timed[after]];
	return a.cpuS + ((b.cpuS - a.cpuS) * (at - a.at)) / Math.max(1, b.at - a.at);
}

/** CPU seconds the process used between two epoch-ms instants, or null without samples around both. */
function cpuSecondsBetween(samples, from, to) {
	const [start, end] = [cpuAt(samples, from), cpuAt(samples, to)];
	return start === undefined || end === undefined ? null : end - start;
}

module.exports = { sampleRss, peakMbBetween, cpuSecondsBetween, readRssKb };
