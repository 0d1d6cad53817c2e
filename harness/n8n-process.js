'use strict';
// Runs n8n (harness/n8n-version, or $N8N_VERSION) under Node 24 for one user
// folder: the long-lived server (`n8n start`) and one-shot CLI commands
// (import, execute) against the same sqlite database. Output goes to <userFolder>/n8n-*.log, never to our stdout,
// so nothing n8n prints (or echoes back) ends up in test or demo output.
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const { ensureN8nInstall } = require('./install');
const { freePort } = require('./ports');
const { waitFor } = require('./poll');

const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 20_000;
const CLI_TIMEOUT_MS = 180_000;

/** Environment shared by every n8n process of one user folder. */
function baseEnv({ userFolder, port, encryptionKey, install, extra }) {
	const env = {
		...process.env,
		// n8n spawns its JavaScript task runner as plain `node`; it must be Node 24.
		PATH: `${install.nodeDir}${path.delimiter}${process.env.PATH}`,
		// jest sets NODE_ENV=test, which switches n8n into its own test mode.
		NODE_ENV: 'production',
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: encryptionKey,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		// Trigger nodes register this URL at the service; 127.0.0.1 avoids an
		// IPv6 `localhost` that nothing listens on.
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		...extra,
	};
	for (const name of Object.keys(env)) {
		// npm's own settings (from `npm test`) mean nothing to n8n.
		if (name.startsWith('npm_')) delete env[name];
	}
	return env;
}

// Every n8n process runs in its own process group, so that stopping it also
// ends the task runner it spawns. Groups still alive when this process exits
// (a crashed test, Ctrl-C during the demo's start) are killed with it.
const liveGroups = new Set();
process.once('exit', () => {
	for (const child of liveGroups) killGroup(child, 'SIGKILL');
});

function killGroup(child, signal) {
	killGroupOf(child.pid, signal);
}

function killGroupOf(pid, signal) {
	try {
		process.kill(-pid, signal);
	} catch (error) {
		if (error.code !== 'ESRCH') throw error;
	}
}

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Resolves once a process this one did not spawn (no exit event to wait for) is gone. */
async function exitOf(pid) {
	while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
	return { code: null, signal: null };
}

function spawnGroup(command, args, options) {
	const child = spawn(command, args, { ...options, detached: true });
	liveGroups.add(child);
	child.once('exit', () => liveGroups.delete(child));
	return child;
}

/**
 * The user folder's encryption key, made once and kept in the folder: CLI
 * imports encrypt credentials with it, and every later server or CLI run on
 * the same folder (a benchmark reusing it, say) must decrypt with the same key.
 */
function encryptionKeyOf(userFolder) {
	const file = path.join(userFolder, '.harness-encryption-key');
	if (!fs.existsSync(file)) fs.writeFileSync(file, crypto.randomBytes(24).toString('hex'), { mode: 0o600 });
	return fs.readFileSync(file, 'utf8').trim();
}

/** Last `lines` lines of a log file, for error messages. */
function logTail(file, lines = 40) {
	if (!fs.existsSync(file)) return '(no log)';
	return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

class N8nProcess {
	/**
	 * @param {object} options
	 * @param {string} options.userFolder n8n keeps its data in <userFolder>/.n8n
	 * @param {number} [options.port] server port (a free one when omitted)
	 * @param {object} [options.env] extra environment for every n8n process
	 */
	static async create({ userFolder, port, env = {}, command = 'start', nodeArgs = [] }) {
		const install = ensureN8nInstall();
		fs.mkdirSync(userFolder, { recursive: true });
		return new this({ userFolder, port: port ?? (await freePort()), env, install, command, nodeArgs });
	}

	/**
	 * The same server as seen by another process of this run (or another
	 * test file's module registry), from `toRecord()`: stop, kill and start
	 * work on it by pid, and a start puts the new pid in `record.pid`.
	 */
	static async attach(record) {
		const n8n = await this.create(record);
		if (record.pid && alive(record.pid)) n8n.server = { pid: record.pid, child: null, exited: null };
		n8n.record = record;
		return n8n;
	}

	/** What attach() needs to drive this server from elsewhere. */
	toRecord() {
		return { userFolder: this.userFolder, port: this.port, env: this.extraEnv, command: this.command, nodeArgs: this.nodeArgs, pid: this.pid };
	}

	/**
	 * @param {string} [options.command] `start` (main), or in queue mode `worker`
	 *   or `webhook`; every one answers /healthz/readiness on `port` (a worker
	 *   through its health server, see queue.js)
	 * @param {string[]} [options.nodeArgs] Node flags for the long-lived process
	 *   only (the bench's --inspect), not for CLI runs or the task runner
	 */
	constructor({ userFolder, port, env, install, command = 'start', nodeArgs = [] }) {
		this.userFolder = userFolder;
		this.port = port;
		this.install = install;
		this.extraEnv = env;
		this.command = command;
		this.nodeArgs = nodeArgs;
		this.encryptionKey = encryptionKeyOf(userFolder);
		this.server = null;
		this.logFile = path.join(userFolder, `n8n-${command === 'start' ? 'server' : command}.log`);
	}

	get baseUrl() {
		return `http://127.0.0.1:${this.port}`;
	}

	async env() {
		// Each process gets its own task-runner broker port: a server and a CLI
		// `execute` running side by side would otherwise both claim 5679.
		const extra = { N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...this.extraEnv };
		const { userFolder, port, encryptionKey, install } = this;
		return baseEnv({ userFolder, port, encryptionKey, install, extra });
	}

	/** Runs `n8n <args>` to completion; resolves to its stdout, rejects with the log tail. */
	async runCli(args, { timeoutMs = CLI_TIMEOUT_MS } = {}) {
		const logFile = path.join(this.userFolder, `n8n-cli-${args[0].replace(/\W+/g, '-')}.log`);
		const env = await this.env();
		return await new Promise((resolve, reject) => {
			const child = spawnGroup(this.install.nodeBin, [this.install.n8nBin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
			const stdout = [];
			const log = fs.createWriteStream(logFile);
			child.stdout.on('data', (chunk) => stdout.push(chunk));
			child.stderr.pipe(log);
			const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
			child.on('error', reject);
			child.on('close', (code, signal) => {
				clearTimeout(timer);
				killGroup(child, 'SIGKILL');
				const output = Buffer.concat(stdout).toString();
				log.end(output);
				if (code === 0) return resolve(output);
				const why = signal ? `killed by ${signal} (timeout ${timeoutMs} ms?)` : `exit code ${code}`;
				const error = new Error(`n8n ${args[0]} failed: ${why}\n${logTail(logFile)}`);
				error.stdout = output;
				reject(error);
			});
		});
	}

	/** Starts `n8n <command>` and resolves once /healthz/readiness answers 200. */
	async start() {
		if (this.server) throw new Error('n8n server already running');
		const out = fs.openSync(this.logFile, 'a');
		const child = spawnGroup(this.install.nodeBin, [...this.nodeArgs, this.install.n8nBin, this.command], {
			env: await this.env(),
			stdio: ['ignore', out, out],
		});
		fs.closeSync(out);
		const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
		this.server = { pid: child.pid, child, exited };
		if (this.record) this.record.pid = child.pid;
		let exitedEarly = null;
		exited.then((result) => (exitedEarly = result));
		try {
			await waitFor(
				async () => {
					if (exitedEarly) throw new Error(`n8n exited (code ${exitedEarly.code}, signal ${exitedEarly.signal})`);
					const response = await fetch(`${this.baseUrl}/healthz/readiness`);
					return response.status === 200;
				},
				{ what: `n8n readiness on port ${this.port}`, timeoutMs: START_TIMEOUT_MS, intervalMs: 500 },
			);
		} catch (error) {
			await this.stop();
			throw new Error(`${error.message}\n--- n8n log tail ---\n${logTail(this.logFile)}`);
		}
	}

	/** Stops the server: SIGTERM, then SIGKILL if it has not exited in time. */
	async stop() {
		if (!this.server) return;
		const { pid, child } = this.server;
		const exited = this.server.exited ?? exitOf(pid);
		this.server = null;
		if (child ? child.exitCode !== null || child.signalCode !== null : !alive(pid)) return;
		killGroupOf(pid, 'SIGTERM');
		let timer;
		const timeout = new Promise((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS, 'timeout')));
		const outcome = await Promise.race([exited, timeout]);
		clearTimeout(timer);
		if (outcome === 'timeout') {
			killGroupOf(pid, 'SIGKILL');
			await exited;
		}
		// Whatever n8n left of its group (a task runner mid-shutdown) goes too.
		killGroupOf(pid, 'SIGKILL');
	}

	/** Kills the server and its task runner with SIGKILL (an out-of-memory kill), so nothing shuts down cleanly. */
	async kill() {
		if (!this.server) return;
		const { pid } = this.server;
		const exited = this.server.exited ?? exitOf(pid);
		this.server = null;
		if (alive(pid)) killGroupOf(pid, 'SIGKILL');
		await exited;
	}

	/** The server's pid while it runs (the group leader: stopping it stops its task runner too). */
	get pid() {
		return this.server?.pid;
	}

	serverLogTail(lines) {
		return logTail(this.logFile, lines);
	}
}

module.exports = { N8nProcess, killGroupOf, alive };
