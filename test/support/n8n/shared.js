'use strict';
// What a run of the real-n8n files shares, so that each is started once per
// run instead of once per file: the packed package, one regular-mode n8n and
// one queue-mode cluster. Jest's globalSetup (run.js) packs the package and
// names a folder for the run; the first file that needs the n8n or the
// cluster starts it there and writes its record, later files attach to it
// (harness/attached.js), and globalTeardown stops everything by pid. Files run
// one at a time, so a file may stop and start the shared n8n (a restart
// test): attached handles work by pid and the record follows the new one.
const fs = require('fs');
const path = require('path');

const { DEFAULT_OWNER, startN8n, sleep } = require('../../../harness');
const { AttachedN8n } = require('../../../harness/attached');
const { alive, killGroupOf } = require('../../../harness/n8n-process');
const { startQueueCluster, startProcesses } = require('../../../harness/queue');

const RUN_DIR_ENV = 'OMNICHANNEL_TEST_RUN_DIR';
const LOCK_STALE_MS = 15 * 60 * 1000;

const runDir = () => process.env[RUN_DIR_ENV];

/** Runs `fn` holding a lock folder of the run: one starter at a time, whatever the number of jest workers. */
async function withLock(name, fn) {
	const lock = path.join(runDir(), `${name}.lock`);
	for (;;) {
		try {
			fs.mkdirSync(lock);
			break;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
			if (age > LOCK_STALE_MS) fs.rmSync(lock, { recursive: true, force: true });
			else await sleep(200);
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lock, { recursive: true, force: true });
	}
}

const readRecord = (file) => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null);
// Owner-only: the record holds the owner's session and API key of a test n8n.
const writeRecord = (file, record) => fs.writeFileSync(file, JSON.stringify(record), { mode: 0o600 });

/** The session that attached handles reuse: n8n limits logins per address, and every file would log in. */
function sessionOf(n8n) {
	return { baseUrl: n8n.baseUrl, owner: DEFAULT_OWNER, cookie: n8n.api.cookie, apiKey: n8n.api.apiKey };
}

/**
 * The run's regular-mode n8n (SQLite), started on first use; null outside a
 * jest run of the real-n8n project (no run folder), where a file starts its own.
 */
async function sharedN8n() {
	if (!runDir()) return null;
	return await withLock('n8n', async () => {
		const file = path.join(runDir(), 'n8n.json');
		let record = readRecord(file);
		if (!record) {
			const n8n = await startN8n({ userFolder: path.join(runDir(), 'n8n'), tarball: process.env.OMNICHANNEL_E2E_TARBALL });
			await n8n.setupOwnerAndApiKey();
			record = { ...n8n.toRecord(), ...sessionOf(n8n), file };
			writeRecord(file, record);
		}
		const attached = await AttachedN8n.attach(record);
		// A file that stopped it and failed before starting it again.
		await attached.start();
		return attached;
	});
}

/**
 * The run's queue-mode cluster (PostgreSQL, Redis, main, 2 workers, a webhook
 * process), started on first use with n8n's defaults; null outside a jest run
 * of the real-n8n project. Its n8n processes are attached handles: `main`
 * imports and publishes over REST and removes what it imported on dispose.
 */
async function sharedQueueCluster() {
	if (!runDir()) return null;
	return await withLock('queue', async () => {
		const file = path.join(runDir(), 'queue.json');
		let record = readRecord(file);
		if (!record) {
			const cluster = await startQueueCluster({ start: false, tarball: process.env.OMNICHANNEL_E2E_TARBALL, root: path.join(runDir(), 'queue') });
			// Written before anything can fail, so that teardown finds every pid.
			const save = () => writeRecord(file, cluster.toRecord());
			save();
			await startProcesses(cluster);
			await cluster.main.setupOwnerAndApiKey();
			record = { ...cluster.toRecord(), ...sessionOf(cluster.main), file };
			writeRecord(file, record);
		}
		const attach = (processRecord) => AttachedN8n.attach({ ...record, ...processRecord, file: undefined });
		const main = await attach(record.main);
		const webhooks = await Promise.all(record.webhooks.map(attach));
		const workers = await Promise.all(record.workers.map(attach));
		for (const n8n of [main, ...webhooks, ...workers]) {
			if (!n8n.pid) throw new Error(`the run's queue cluster lost its ${n8n.command} process (pid ${n8n.record.pid} is gone): see ${n8n.logFile}`);
		}
		return {
			postgres: record.postgres,
			redis: record.redis,
			main,
			webhooks,
			webhook: webhooks[0],
			workers,
			workerExecutionIds: () => workers.map((worker) => worker.executionIdsInLog()),
			async dispose() {
				await main.dispose();
			},
		};
	});
}

/** globalTeardown: every process the run's records name, stopped by pid; then the run's folder goes. */
async function stopSharedServices(dir = runDir()) {
	if (!dir || !fs.existsSync(dir)) return;
	const pids = [];
	const folders = [dir];
	for (const name of ['n8n.json', 'queue.json']) {
		const record = readRecord(path.join(dir, name));
		if (!record) continue;
		if (record.postgres) folders.push(record.postgres.dir);
		if (record.command) pids.push({ pid: record.pid, group: true });
		for (const part of [record.main, ...(record.webhooks ?? []), ...(record.workers ?? [])]) if (part) pids.push({ pid: part.pid, group: true });
		if (record.redis) pids.push({ pid: record.redis.pid, group: false, signal: 'SIGTERM' });
		if (record.postgres) pids.push({ pid: record.postgres.pid, group: false, signal: 'SIGINT' });
	}
	for (const { pid, group, signal = 'SIGTERM' } of pids) {
		if (!pid || !alive(pid)) continue;
		if (group) killGroupOf(pid, signal);
		else process.kill(pid, signal);
	}
	const deadline = Date.now() + 20_000;
	while (pids.some(({ pid }) => pid && alive(pid)) && Date.now() < deadline) await sleep(100);
	for (const { pid, group } of pids) {
		if (!pid || !alive(pid)) continue;
		if (group) killGroupOf(pid, 'SIGKILL');
		else process.kill(pid, 'SIGKILL');
	}
	for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
}

module.exports = { RUN_DIR_ENV, sharedN8n, sharedQueueCluster, stopSharedServices };
