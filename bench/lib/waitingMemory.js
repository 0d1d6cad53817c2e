'use strict';
// What an n8n server holds while executions wait in it: its V8 heap after a
// full garbage collection, its resident memory and its SQLite database's size.
const fs = require('fs');
const path = require('path');

const { sleep } = require('../../harness');
const { openInspector } = require('./inspector');
const { readRssKb } = require('./rssSampler');

/** Time for n8n to settle (garbage collection, database writes) before memory and size are read. */
const SETTLE_MS = 5000;
const RSS_INTERVAL_MS = 250;

/**
 * The V8 heap n8n still uses after a full garbage collection, over the
 * inspector of the server (started with --inspect on 127.0.0.1): what the
 * waiting executions hold, without garbage not yet collected.
 */
async function heapAfterGcMb(inspectPort) {
	const { send, close } = await openInspector(inspectPort);
	try {
		await send('HeapProfiler.collectGarbage');
		await send('HeapProfiler.collectGarbage');
		const { usedSize } = await send('Runtime.getHeapUsage');
		return Math.round(usedSize / 2 ** 20);
	} finally {
		close();
	}
}

/** The lowest RSS over SETTLE_MS: what n8n keeps, with garbage not yet collected left out as far as possible. */
async function settledRssMb(pid) {
	let lowest = Infinity;
	for (let elapsed = 0; elapsed < SETTLE_MS; elapsed += RSS_INTERVAL_MS) {
		lowest = Math.min(lowest, readRssKb(pid) ?? Infinity);
		await sleep(RSS_INTERVAL_MS);
	}
	if (lowest === Infinity) throw new Error(`no RSS of process ${pid}: has n8n exited?`);
	return Math.round(lowest / 1024);
}

/** The size of n8n's SQLite database with its journal files, MB to one decimal. */
function databaseMb(n8n) {
	const folder = path.join(n8n.userFolder, '.n8n');
	const bytes = fs
		.readdirSync(folder)
		.filter((name) => name.startsWith('database.sqlite'))
		.reduce((sum, name) => sum + fs.statSync(path.join(folder, name)).size, 0);
	return Math.round((bytes / 2 ** 20) * 10) / 10;
}

/** All three, read after SETTLE_MS. */
async function waitingMemory(n8n, inspectPort) {
	await sleep(SETTLE_MS);
	return { heapMb: await heapAfterGcMb(inspectPort), rssMb: await settledRssMb(n8n.server.child.pid), databaseMb: databaseMb(n8n) };
}

module.exports = { waitingMemory, SETTLE_MS };
