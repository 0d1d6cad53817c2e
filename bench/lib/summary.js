'use strict';
// Median and spread of repeated runs. The spread is the whole range (min to
// max): with 3 runs a percentile band would only restate min and max anyway.

function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The q-quantile by nearest rank: the value at floor(q × n) of the sorted
 * values, always one that was measured (the median of an even count is the
 * upper of the middle two).
 */
function quantile(values, q) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** { median, min, max, runs } of one metric over the runs that have it. */
function summarise(values) {
	const numbers = values.filter((value) => typeof value === 'number' && Number.isFinite(value));
	if (numbers.length === 0) return null;
	return { median: median(numbers), min: Math.min(...numbers), max: Math.max(...numbers), runs: numbers };
}

/** For every metric key found in the runs: its summary. */
function summariseRuns(runs) {
	const keys = [...new Set(runs.flatMap((run) => Object.keys(run)))];
	return Object.fromEntries(keys.map((key) => [key, summarise(runs.map((run) => run[key]))]).filter(([, value]) => value));
}

module.exports = { median, quantile, summarise, summariseRuns };
