'use strict';
// n8n's queue mode on one machine: private PostgreSQL and Redis, one main process (`n8n start`: editor,
// API, trigger registration, polls), workers (`n8n worker`: every execution)
// and a webhook process (`n8n webhook`: production /webhook/*). Each process
// has its own user folder with our packed package installed the way users
// install it, and the same encryption key. Everything is stopped by pid.
//
//   const cluster = await startQueueCluster();          // workers: 2
//   cluster.main.api / cluster.main.importWorkflows(...) // as with startN8n
//   cluster.webhook.baseUrl                              // where the service delivers
//   startQueueCluster({ webhooks: 2 }).webhooks          // several webhook processes (webhook is the first)
//   await cluster.restart('webhook');                    // 'main' | 'webhook' | 'worker' | 'all'
//   await cluster.dispose();
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { N8n } = require('./n8n');
const { packRepo, installPackage } = require('./package');
const { freePort } = require('./ports');
const { ensureServicePackages, startPostgres, startRedis } = require('./services');

/** Stops every part that started, in reverse order, whatever fails. */
async function stopAll(parts) {
	const errors = [];
	for (const part of [...parts].reverse()) {
		try {
			await part.stop();
		} catch (error) {
			errors.push(error);
		}
	}
	if (errors.length > 0) throw errors[0];
}

class QueueCluster {
	constructor({ root, postgres, redis, main, workers, webhooks }) {
		this.root = root;
		this.postgres = postgres;
		this.redis = redis;
		this.main = main;
		this.workers = workers;
		this.webhooks = webhooks;
		/** The webhook process (the first, when there are several): the URL triggers register. */
		this.webhook = webhooks[0];
	}

	get n8nProcesses() {
		return [this.main, ...this.webhooks, ...this.workers];
	}

	/** Which process serves what, for the demo and for logs. */
	describe() {
		return [
			`main          ${this.main.baseUrl}  (editor, REST and public API, publishes triggers; also serves /webhook/*)`,
			...this.webhooks.map(
				(webhook, index) => `webhook${this.webhooks.length > 1 ? ` ${index + 1}` : '  '}    ${webhook.baseUrl}  (production /webhook/* and /mcp/*${index === 0 ? ': the URL triggers register' : ''})`,
			),
			...this.workers.map((worker, index) => `worker ${index + 1}      health on ${worker.baseUrl}  (runs executions)`),
			`postgres      127.0.0.1:${this.postgres.port}  (pid ${this.postgres.pid})`,
			`redis         127.0.0.1:${this.redis.port}  (pid ${this.redis.pid})`,
		];
	}

	/**
	 * Restarts one role ('main', 'webhook', 'worker' for every worker) or
	 * 'all', each process stopped by pid and started again on the same port.
	 */
	async restart(role) {
		const targets = {
			main: [this.main],
			webhook: this.webhooks,
			worker: this.workers,
			all: this.n8nProcesses,
		}[role];
		if (!targets) throw new Error(`unknown role "${role}"`);
		for (const target of targets) await target.stop();
		// main first: it owns migrations and trigger activation.
		if (targets.includes(this.main)) await this.main.start();
		await Promise.all(targets.filter((target) => target !== this.main).map((target) => target.start()));
	}

	/** The workers' logs: which executions ran where. */
	workerExecutionIds() {
		return this.workers.map((worker) => worker.executionIdsInLog());
	}

	/** What another process needs to attach to this cluster (test/support/n8n/shared.js): ports, pids, folders. */
	toRecord() {
		const { port, pid, dir, env } = this.postgres;
		return {
			root: this.root,
			postgres: { port, pid, dir, env },
			redis: { port: this.redis.port, pid: this.redis.pid, env: this.redis.env },
			main: this.main.toRecord(),
			webhooks: this.webhooks.map((n8n) => n8n.toRecord()),
			workers: this.workers.map((n8n) => n8n.toRecord()),
		};
	}

	async dispose() {
		try {
			await stopAll([this.postgres, this.redis, ...this.n8nProcesses.map((n8n) => ({ stop: () => n8n.stop() }))]);
		} finally {
			fs.rmSync(this.root, { recursive: true, force: true });
		}
	}
}

/**
 * Starts the whole queue-mode setup and resolves once every n8n process
 * answers /healthz/readiness.
 * @param {object} [options]
 * @param {number} [options.workers] how many `n8n worker` processes (2)
 * @param {number} [options.webhooks] how many `n8n webhook` processes (1); WEBHOOK_URL names the first
 * @param {string} [options.tarball] an `npm pack` output; packs the repo when omitted
 * @param {object} [options.env] extra environment for every n8n process
 * @param {boolean} [options.start] false to prepare (CLI imports) before `startProcesses`
 * @param {number} [options.mainPort] main's port (editor, API); a free one when omitted
 * @param {string} [options.root] the folder for the processes' user folders (a new temp folder when omitted)
 * @param {object} [options.postgres] startPostgres options (`statements`: count every query)
 */
async function startQueueCluster({ workers = 2, webhooks = 1, tarball, env = {}, start = true, mainPort, root: rootFolder, postgres: postgresOptions } = {}) {
	ensureServicePackages();
	const root = rootFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-queue-'));
	fs.mkdirSync(root, { recursive: true });
	const started = [];
	try {
		const packed = tarball ?? packRepo(root);
		const postgres = await startPostgres(postgresOptions);
		started.push(postgres);
		const redis = await startRedis();
		started.push(redis);

		const webhookPort = await freePort();
		const encryptionKey = crypto.randomBytes(24).toString('hex');
		const shared = {
			...postgres.env,
			...redis.env,
			EXECUTIONS_MODE: 'queue',
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			// The URL triggers register: the webhook process's.
			WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`,
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			...env,
		};
		const processOf = async (role, command, port, extra = {}) => {
			const userFolder = path.join(root, role);
			fs.mkdirSync(userFolder, { recursive: true });
			// Every process decrypts the same credentials.
			fs.writeFileSync(path.join(userFolder, '.harness-encryption-key'), encryptionKey, { mode: 0o600 });
			installPackage(userFolder, packed);
			const n8n = await N8n.create({ userFolder, port, command, env: { ...shared, ...extra } });
			started.push({ stop: () => n8n.stop() });
			return n8n;
		};
		const main = await processOf('main', 'start', mainPort ?? (await freePort()));
		const webhookProcesses = [await processOf('webhook', 'webhook', webhookPort)];
		for (let index = 1; index < webhooks; index++) webhookProcesses.push(await processOf(`webhook${index + 1}`, 'webhook', await freePort()));
		const workerProcesses = [];
		for (let index = 0; index < workers; index++) {
			const port = await freePort();
			workerProcesses.push(await processOf(`worker${index + 1}`, 'worker', port, { QUEUE_HEALTH_CHECK_PORT: String(port) }));
		}
		const cluster = new QueueCluster({ root, postgres, redis, main, workers: workerProcesses, webhooks: webhookProcesses });
		if (start) await startProcesses(cluster);
		return cluster;
	} catch (error) {
		await stopAll(started).catch(() => undefined);
		fs.rmSync(root, { recursive: true, force: true });
		throw error;
	}
}

/** Starts the n8n processes of a prepared cluster: main first (migrations), then the others together. */
async function startProcesses(cluster) {
	await cluster.main.start();
	await Promise.all([...cluster.webhooks, ...cluster.workers].map((n8n) => n8n.start()));
}

/**
 * A running cluster with the given credentials and workflows imported (main
 * imports them into the shared database), an owner and API key, and the
 * `publish` workflow ids published; `env` is extra environment for every n8n
 * process. OMNICHANNEL_E2E_TARBALL runs it against another build (to see a
 * test fail without its fix).
 */
async function openQueueCluster({ credentials, workflows, publish, workers = 2, env }) {
	const cluster = await startQueueCluster({ workers, env, start: false, tarball: process.env.OMNICHANNEL_E2E_TARBALL });
	try {
		await cluster.main.importCredentials(credentials);
		await cluster.main.importWorkflows(workflows);
		await startProcesses(cluster);
		await cluster.main.setupOwnerAndApiKey();
		for (const id of publish) await cluster.main.publishWorkflow(id);
		return cluster;
	} catch (error) {
		await cluster.dispose();
		throw error;
	}
}

module.exports = { startQueueCluster, startProcesses, openQueueCluster, QueueCluster };
