'use strict';
// sandbox/cli.js and `npm run sandbox` (README.md "Start it").

const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');
const { apiClient } = require('./helpers');

const ROOT = path.resolve(__dirname, '..', '..');
/** @type {import('child_process').ChildProcess[]} */
const children = [];

// Never leave a CLI behind, nor an open pipe that would keep jest waiting.
afterAll(() => {
	for (const child of children) {
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
		child.stdout?.destroy();
		child.stderr?.destroy();
	}
});

/** Starts the CLI, resolves with the child and its first stdout line. */
function launch(command, args) {
	const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	children.push(child);
	const lines = [];
	const stderr = [];
	child.stderr.on('data', (chunk) => stderr.push(chunk));
	const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr: Buffer.concat(stderr).toString() })));
	const firstLine = new Promise((resolve, reject) => {
		const rl = readline.createInterface({ input: child.stdout });
		rl.on('line', (line) => {
			lines.push(line);
			if (lines.length === 1) resolve(line);
		});
		exited.then((result) => reject(new Error(`exited before printing: ${JSON.stringify(result)}`)));
	});
	return { child, firstLine, exited, lines };
}

test('node sandbox/cli.js prints one JSON line, serves, and stops on SIGTERM', async () => {
	const run = launch(process.execPath, ['sandbox/cli.js', '--port', '0', '--seed', 'empty', '--contacts', '25']);
	const info = JSON.parse(await run.firstLine);
	expect(Object.keys(info).sort()).toEqual(['app_id', 'base_url', 'control_url', 'key', 'live_key']);
	expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1$/);
	expect(info.control_url).toBe(info.base_url.replace('/api/public/v1', '/__sandbox'));
	expect(info.key).toMatch(/^svc_test_/);
	expect(info.live_key).toMatch(/^svc_live_/);
	const api = apiClient(info.base_url, info.key);
	expect((await api.get('/contacts')).body.total).toBe(25);
	expect((await api.get('/me', undefined, { key: info.live_key })).body).toMatchObject({ mode: 'live', app_id: info.app_id });
	run.child.kill('SIGTERM');
	const { code } = await run.exited;
	expect(code).toBe(0);
	expect(run.lines).toHaveLength(1);
	await expect(fetch(`${info.base_url}/me`)).rejects.toThrow();
});

test('--option=value syntax, --conversations and --messages-per-conversation; SIGINT stops it', async () => {
	const run = launch(process.execPath, ['sandbox/cli.js', '--port=0', '--seed=empty', '--conversations=4', '--messages-per-conversation=3', '--host', '127.0.0.1']);
	const info = JSON.parse(await run.firstLine);
	const api = apiClient(info.base_url, info.key);
	expect((await api.get('/conversations')).body.total).toBe(4);
	expect((await api.get('/messages')).body.total).toBe(12);
	run.child.kill('SIGINT');
	expect((await run.exited).code).toBe(0);
});

test('the demo seed is the default', async () => {
	const run = launch(process.execPath, ['sandbox/cli.js']);
	const info = JSON.parse(await run.firstLine);
	const api = apiClient(info.base_url, info.key);
	expect((await api.get('/conversations')).body.total).toBe(30);
	run.child.kill('SIGTERM');
	expect((await run.exited).code).toBe(0);
});

test('bad options exit non-zero with a message on stderr and nothing on stdout', async () => {
	for (const args of [['--seed', 'full'], ['--port', 'abc'], ['--bogus', '1'], ['--contacts']]) {
		const run = launch(process.execPath, ['sandbox/cli.js', ...args]);
		run.firstLine.catch(() => undefined);
		const { code, stderr } = await run.exited;
		expect(code).not.toBe(0);
		expect(stderr).toMatch(/sandbox:/);
		expect(run.lines).toHaveLength(0);
	}
});

test('npm run sandbox: the first stdout line is the JSON object', async () => {
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	const run = launch(npm, ['run', 'sandbox', '--', '--port', '0', '--seed', 'empty']);
	const line = await run.firstLine;
	const info = JSON.parse(line);
	expect(info.base_url).toMatch(/\/api\/public\/v1$/);
	const api = apiClient(info.base_url, info.key);
	expect((await api.get('/me')).status).toBe(200);
	run.child.kill('SIGTERM');
	await run.exited;
	// The server goes away too (npm does not pass the signal on through its
	// shell; the CLI notices that its parent is gone).
	for (let i = 0; i < 50; i++) {
		try {
			await fetch(`${info.base_url}/me`);
		} catch {
			return;
		}
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	throw new Error('the sandbox kept running after npm got SIGTERM');
});
