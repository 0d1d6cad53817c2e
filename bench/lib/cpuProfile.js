'use strict';
// Where n8n's CPU goes during one measured window: V8's sampling profiler,
// driven over the inspector protocol of the n8n server (started with
// --inspect on 127.0.0.1), switched on and off around the window only, so
// start-up and the other peers' runs stay out of it. The summary sorts
// self time into the parts that matter for webhook intake.
const fs = require('fs');
const path = require('path');

const { openInspector } = require('./inspector');

const SAMPLING_INTERVAL_US = 1_000;

/** Opens the inspector of the process listening on `port` and starts sampling. */
async function startProfiling(port) {
	const { send, close } = await openInspector(port);
	await send('Profiler.enable');
	await send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
	await send('Profiler.start');
	return {
		/** Stops sampling and resolves to the profile (Chrome's .cpuprofile format). */
		async stop() {
			try {
				const { profile } = await send('Profiler.stop');
				// BENCH_PROFILE_DIR keeps every raw profile (Chrome DevTools opens them).
				const dir = process.env.BENCH_PROFILE_DIR;
				if (dir) fs.writeFileSync(path.join(dir, `intake-${Date.now()}.cpuprofile`), JSON.stringify(profile));
				return profile;
			} finally {
				close();
			}
		},
	};
}

/**
 * Buckets by the script a sampled function belongs to, first match wins.
 * Names are what a reader of the table needs, not package names.
 */
const BUCKETS = [
	['this package (Omnichannel nodes)', (url) => url.includes('/node_modules/n8n-nodes-omnichannel/')],
	['the bench peer trigger', (url) => url.includes('/node_modules/n8n-nodes-bench-intake/')],
	['expression isolates (isolated-vm, expression runtime)', (url) => /expression-runtime|isolated-vm/.test(url)],
	['database (TypeORM, SQLite driver, @n8n/db)', (url) => /\/typeorm\/|\/sqlite3\/|\/@n8n\/db\/|\/pg\//.test(url)],
	['n8n execution engine (n8n-core)', (url) => url.includes('/n8n-core/')],
	['n8n-workflow (expressions, workflow model)', (url) => url.includes('/n8n-workflow/')],
	['n8n server (webhooks, executions, events)', (url) => url.includes('/node_modules/n8n/dist/')],
	['HTTP stack (express, body parsing)', (url) => /\/express\/|\/body-parser\/|\/raw-body\/|\/router\/|node:_http|node:net|node:internal\/http/.test(url)],
	['other libraries', (url) => url.includes('/node_modules/')],
	['Node.js internals', (url) => url.startsWith('node:')],
];

/**
 * Named pieces of work, counted inclusively (a sample counts when any frame
 * of its stack matches). Only the synchronous part shows: what runs after an
 * await (a database answer, say) is sampled under its own continuation.
 */
const ACTIVITIES = [
	['this package: webhook() (verify, parse, filter, de-duplicate)', /^receiveDelivery .*n8n-nodes-omnichannel\//],
	['this package: the execution step (ledger check, output)', /^execute .*n8n-nodes-omnichannel\//],
	["n8n: credential checks before each execution (workflows whose nodes have credentials)", /^(findInaccessible|execute) .*(credentials-permission-checker|dynamic-credentials-context-hook)/],
	["n8n: node parameters resolved when it builds the workflow (grows with the node's properties)", /^getNodeParameters .*n8n-workflow\//],
	['n8n: loading the published workflow for each request', /^loadWebhookExecutionData /],
	['n8n: sending the answer (express)', /^send .*express\/lib\/response\.js/],
];

const frameName = (callFrame) => `${callFrame.functionName || '(anonymous)'} ${callFrame.url.replace(/^.*node_modules\//, '')}`;

function activitiesOf(profile, byId) {
	const parent = new Map();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const totals = new Map(ACTIVITIES.map(([name]) => [name, 0]));
	for (let index = 0; index < profile.samples.length; index++) {
		const us = profile.timeDeltas[index + 1] ?? 0;
		const matched = new Set();
		for (let id = profile.samples[index]; id !== undefined; id = parent.get(id)) {
			const name = frameName(byId.get(id).callFrame);
			for (const [activity, pattern] of ACTIVITIES) if (pattern.test(name)) matched.add(activity);
		}
		for (const activity of matched) totals.set(activity, totals.get(activity) + us);
	}
	return [...totals].map(([name, us]) => ({ name, ms: us / 1000 }));
}

function bucketOf(node) {
	const { url, functionName } = node.callFrame;
	if (functionName === '(garbage collector)') return 'garbage collection';
	if (functionName === '(program)' || functionName === '(root)') return 'V8 and native code (no JavaScript frame)';
	const match = BUCKETS.find(([, test]) => test(url));
	return match ? match[0] : 'other';
}

/**
 * Self time per bucket and the busiest functions, over the busy time only
 * ('(idle)' samples are n8n waiting, not working).
 * @returns {{ busyMs: number, buckets: {name: string, ms: number, share: number}[], top: {name: string, ms: number}[], activities: {name: string, ms: number}[] }}
 */
function summariseProfile(profile, { topFunctions = 12 } = {}) {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const selfUs = new Map();
	for (let index = 0; index < profile.samples.length; index++) {
		const us = profile.timeDeltas[index + 1] ?? 0;
		const id = profile.samples[index];
		selfUs.set(id, (selfUs.get(id) ?? 0) + us);
	}
	const buckets = new Map();
	const functions = new Map();
	let busyUs = 0;
	for (const [id, us] of selfUs) {
		const node = byId.get(id);
		if (node.callFrame.functionName === '(idle)') continue;
		busyUs += us;
		const bucket = bucketOf(node);
		buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
		const name = `${frameName(node.callFrame)}:${node.callFrame.lineNumber + 1}`;
		functions.set(name, (functions.get(name) ?? 0) + us);
	}
	const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);
	return {
		busyMs: busyUs / 1000,
		buckets: sorted(buckets).map(([name, us]) => ({ name, ms: us / 1000, share: us / busyUs })),
		top: sorted(functions).slice(0, topFunctions).map(([name, us]) => ({ name, ms: us / 1000 })),
		activities: activitiesOf(profile, byId),
	};
}

module.exports = { startProfiling, summariseProfile };
