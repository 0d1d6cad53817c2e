'use strict';
// BENCH_PROFILE=1 for the intake scenarios: n8n runs with its inspector on a
// free 127.0.0.1 port, every peer's intake window is sampled, and the
// scenario's notes get a table of where n8n's CPU went per delivery.
const { freePort } = require('../../harness');
const { startProfiling, summariseProfile } = require('./cpuProfile');

const enabled = () => process.env.BENCH_PROFILE === '1';

/** Node flags for the n8n server: its inspector when profiling, else none. */
async function profilerNodeArgs() {
	if (!enabled()) return { nodeArgs: [], inspectPort: null };
	const inspectPort = await freePort();
	return { nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`], inspectPort };
}

/** Runs `fn` (the measured window) under the sampler when profiling; resolves to { value, profile }. */
async function profiled(inspectPort, fn) {
	if (!inspectPort) return { value: await fn(), profile: null };
	const profiler = await startProfiling(inspectPort);
	let value;
	try {
		value = await fn();
	} catch (error) {
		await profiler.stop().catch(() => undefined);
		throw error;
	}
	return { value, profile: summariseProfile(await profiler.stop()) };
}

const format = (value) => value.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/**
 * A markdown table: per bucket, n8n's busy CPU ms per delivery for every
 * peer (all runs pooled), and each peer's busiest functions.
 * @param {Record<string, {label: string}>} peers
 * @param {Record<string, {profile: object, deliveries: number}[]>} samples per peer
 */
function profileNotes(peers, samples) {
	const ids = Object.keys(samples).filter((id) => samples[id].length > 0);
	if (ids.length === 0) return [];
	const perDelivery = {};
	/** Adds each { name, ms } of one run, per delivery, into the map. */
	const addPerDelivery = (map, entries, deliveries) => {
		for (const { name, ms } of entries) map.set(name, (map.get(name) ?? 0) + ms / deliveries);
	};
	for (const id of ids) {
		const deliveries = samples[id].reduce((sum, run) => sum + run.deliveries, 0);
		perDelivery[id] = { busy: 0, buckets: new Map(), top: new Map(), activities: new Map() };
		for (const { profile } of samples[id]) {
			perDelivery[id].busy += profile.busyMs / deliveries;
			addPerDelivery(perDelivery[id].buckets, profile.buckets, deliveries);
			addPerDelivery(perDelivery[id].top, profile.top, deliveries);
			addPerDelivery(perDelivery[id].activities, profile.activities, deliveries);
		}
	}
	const bucketNames = new Set(ids.flatMap((id) => [...perDelivery[id].buckets.keys()]));
	const rows = [...bucketNames].sort((a, b) => (perDelivery[ids[0]].buckets.get(b) ?? 0) - (perDelivery[ids[0]].buckets.get(a) ?? 0));
	const table = [
		`| Busy CPU ms per delivery, by where it was spent | ${ids.map((id) => peers[id].label).join(' | ')} |`,
		`|---|${ids.map(() => '---:').join('|')}|`,
		`| **all (self time of every sampled function)** | ${ids.map((id) => `**${format(perDelivery[id].busy)}**`).join(' | ')} |`,
		...rows.map((name) => `| ${name} | ${ids.map((id) => format(perDelivery[id].buckets.get(name) ?? 0)).join(' | ')} |`),
	];
	const activities = [
		`| Busy CPU ms per delivery in named work (inclusive, synchronous part) | ${ids.map((id) => peers[id].label).join(' | ')} |`,
		`|---|${ids.map(() => '---:').join('|')}|`,
		...[...perDelivery[ids[0]].activities.keys()].map(
			(name) => `| ${name} | ${ids.map((id) => format(perDelivery[id].activities.get(name) ?? 0)).join(' | ')} |`,
		),
	];
	const tops = ids.map((id) => {
		const top = [...perDelivery[id].top].sort((a, b) => b[1] - a[1]).slice(0, 6);
		return `${peers[id].label}, busiest functions (ms per delivery): ${top.map(([name, ms]) => `\`${name}\` ${format(ms)}`).join('; ')}.`;
	});
	return [
		'CPU profile (BENCH_PROFILE=1): V8 samples n8n\'s main thread every millisecond during each intake window; self time is ' +
			'sorted by the script each sampled function belongs to. Work on other threads (SQLite, the isolates\' own threads) ' +
			'is not on the main thread and not counted. Profiling slows every peer alike; the rates above were measured with it on.',
		table.join('\n'),
		activities.join('\n'),
		...tops,
	];
}

module.exports = { profilerNodeArgs, profiled, profileNotes };
