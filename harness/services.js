'use strict';
// Private PostgreSQL and Redis servers for n8n's queue mode, from Debian's
// packages: installed with apt-get when missing (CI runs as root), started
// in a temp folder on free 127.0.0.1 ports, never the system services, and
// stopped by pid.
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const { ensureDebianPackages, postgresBin } = require('./debian-packages');
const { freePort } = require('./ports');
const { waitFor } = require('./poll');

const DB = Object.freeze({ name: 'n8n', user: 'n8n', password: 'n8n-queue-test' });

/** Installs PostgreSQL and Redis from Debian's packages when either is missing. */
function ensureServicePackages() {
	ensureDebianPackages(['postgresql', 'redis-server']);
}

/** Runs a PostgreSQL tool as the `postgres` user when we are root (initdb refuses root). */
function runPg(bin, args, options = {}) {
	const asRoot = process.getuid?.() === 0;
	const [command, commandArgs] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, args[0]), ...args.slice(1)]] : [path.join(bin, args[0]), args.slice(1)];
	return execFileSync(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000, ...options }).toString();
}

function pidAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

async function stopPid(pid, signal, timeoutMs = 20_000) {
	if (!pid || !pidAlive(pid)) return;
	process.kill(pid, signal);
	try {
		await waitFor(() => !pidAlive(pid), { what: `process ${pid} to exit`, timeoutMs, intervalMs: 100 });
	} catch {
		process.kill(pid, 'SIGKILL');
	}
}

/**
 * A private PostgreSQL cluster with an `n8n` database; `stop()` ends it by pid.
 * With `statements`, pg_stat_statements counts every query (`statements()`,
 * `resetStatements()`): what a workload asks of n8n's database.
 */
async function startPostgres({ statements = false } = {}) {
	const bin = postgresBin();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-pg-'));
	const data = path.join(dir, 'data');
	if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
	const port = await freePort();
	runPg(bin, ['initdb', '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
	// fsync off: a test database that is thrown away needs no durability.
	const preload = statements ? ' -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all' : '';
	const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off${preload}`;
	const startServer = () => {
		runPg(bin, ['pg_ctl', '-D', data, '-o', serverOptions, '-l', path.join(dir, 'postgres.log'), '-w', 'start']);
		return Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
	};
	let pid = startServer();
	const psql = (sql) => runPg(bin, ['psql', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', sql]);
	try {
		psql(`CREATE USER ${DB.user} PASSWORD '${DB.password}'`);
		psql(`CREATE DATABASE ${DB.name} OWNER ${DB.user}`);
		if (statements) runPg(bin, ['psql', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', DB.name, '-v', 'ON_ERROR_STOP=1', '-c', 'CREATE EXTENSION pg_stat_statements']);
	} catch (error) {
		await stopPid(pid, 'SIGINT');
		throw error;
	}
	return {
		port,
		get pid() {
			return pid;
		},
		dir,
		/** Stops the server (its data kept), waits `downMs`, starts it again on the same port. */
		async restart(downMs) {
			await stopPid(pid, 'SIGINT');
			await new Promise((resolve) => setTimeout(resolve, downMs));
			pid = startServer();
		},
		/** Runs SQL in the n8n database and returns psql's unaligned output. */
		query: (sql) => runPg(bin, ['psql', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', DB.name, '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql]),
		/** With `statements`: the calls of every query since the last reset, as [{ calls, query }]. */
		statements() {
			const out = this.query(`SELECT calls, regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '${DB.name}')`);
			return out
				.split('\n')
				.filter(Boolean)
				.map((line) => {
					const at = line.indexOf('|');
					return { calls: Number(line.slice(0, at)), query: line.slice(at + 1) };
				});
		},
		resetStatements() {
			this.query('SELECT pg_stat_statements_reset()');
		},
		env: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(port),
			DB_POSTGRESDB_DATABASE: DB.name,
			DB_POSTGRESDB_USER: DB.user,
			DB_POSTGRESDB_PASSWORD: DB.password,
		},
		async stop() {
			// SIGINT is PostgreSQL's "fast" shutdown.
			await stopPid(pid, 'SIGINT');
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
}

function redisPing(port) {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		let answer = '';
		socket.setTimeout(1000, () => socket.destroy());
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk) => {
			answer += chunk;
			if (answer.includes('\r\n')) socket.end();
		});
		socket.on('close', () => resolve(answer.startsWith('+PONG')));
		socket.on('error', () => resolve(false));
	});
}

/** A private Redis without persistence; `stop()` ends it by pid. */
async function startRedis() {
	const port = await freePort();
	const startServer = async () => {
		const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
			stdio: 'ignore',
		});
		const exited = new Promise((resolve) => child.once('exit', resolve));
		try {
			await waitFor(async () => await redisPing(port), { what: `redis on port ${port}`, timeoutMs: 20_000, intervalMs: 100 });
		} catch (error) {
			child.kill('SIGKILL');
			throw error;
		}
		return { child, exited };
	};
	let server = await startServer();
	const stopServer = async () => {
		const { child, exited } = server;
		if (child.exitCode !== null || child.signalCode !== null) return;
		child.kill('SIGTERM');
		let timer;
		await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
		clearTimeout(timer);
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
	};
	return {
		port,
		get pid() {
			return server.child.pid;
		},
		env: { QUEUE_BULL_REDIS_HOST: '127.0.0.1', QUEUE_BULL_REDIS_PORT: String(port) },
		/** Stops the server (without persistence: its data is gone), waits `downMs`, starts an empty one on the same port. */
		async restart(downMs) {
			await stopServer();
			await new Promise((resolve) => setTimeout(resolve, downMs));
			server = await startServer();
		},
		stop: stopServer,
	};
}

module.exports = { ensureServicePackages, startPostgres, startRedis };
