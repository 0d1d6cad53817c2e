'use strict';
// `npm run dev` minus the install: in a copy of the repository (the test edits
// its sources), the demo comes up with n8n in development mode, and a change
// saved under nodes/ reaches the node types n8n serves its editor, and nothing
// else reloads them (a reload rewrites the node list n8n serves, which answers
// empty meanwhile). Prints how long that took; asserts only that it happened.
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { DEFAULT_OWNER, freePort, N8nApi, waitFor } = require('../../harness');
const { SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');

const REPO_ROOT = path.join(__dirname, '..', '..');
const EDITED = path.join('nodes', 'Omnichannel', 'Omnichannel.node.ts');
const DESCRIPTION = "'Send messages, manage contacts and conversations, and report support work on Telegram";

/** The files git tracks or would track, the built dist/ and a link to node_modules: enough to pack and rebuild. */
function copyRepository(target) {
	const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT }).toString().split('\0').filter(Boolean);
	for (const file of files) {
		if (!fs.existsSync(path.join(REPO_ROOT, file))) continue;
		fs.mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
		fs.copyFileSync(path.join(REPO_ROOT, file), path.join(target, file));
	}
	fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(target, 'dist'), { recursive: true });
	fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(target, 'node_modules'));
}

describe('npm run dev', () => {
	let copy;
	let child;
	let exited;
	let output = '';
	let port;
	let userFolder;
	/** How often n8n's log says it reloaded the nodes. */
	const reloads = () => (fs.readFileSync(path.join(userFolder, 'n8n-server.log'), 'utf8').match(/Hot reload triggered/g) ?? []).length;

	beforeAll(async () => {
		copy = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-dev-'));
		copyRepository(copy);
		port = await freePort();
		userFolder = path.join(copy, '.e2e', 'dev-n8n');
		child = spawn(process.execPath, [path.join(copy, 'scripts', 'demo', 'cli.js'), '--dev', '--port', String(port), '--user-folder', userFolder], {
			cwd: copy,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
		const ready = waitFor(() => output.includes('dev: watching'), {
			what: 'npm run dev to be ready',
			timeoutMs: SETUP_TIMEOUT_MS - 60_000,
			intervalMs: 500,
		});
		const failed = exited.then((status) => {
			throw new Error(`dev exited early (${JSON.stringify(status)}):\n${output}`);
		});
		await Promise.race([ready, failed]);
		failed.catch(() => {});
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		if (child && child.exitCode === null && child.signalCode === null) {
			child.kill('SIGINT');
			await exited;
		}
		if (copy) fs.rmSync(copy, { recursive: true, force: true });
	});

	test(
		'a saved change to a node reaches the node types n8n serves its editor, and Ctrl-C stops everything',
		async () => {
			const api = new N8nApi(`http://127.0.0.1:${port}`);
			await api.login(DEFAULT_OWNER);
			const described = async (marker) => JSON.stringify(await api.nodeTypes()).includes(marker);
			expect(await described('dev-loop-marker')).toBe(false);
			// Starting copies an unchanged build: n8n must not reload for it.
			expect(reloads()).toBe(0);

			const file = path.join(copy, EDITED);
			const source = fs.readFileSync(file, 'utf8');
			expect(source).toContain(DESCRIPTION);
			// Written as editors save: a new file renamed over the old one.
			const saved = Date.now();
			fs.writeFileSync(`${file}.tmp`, source.replace(DESCRIPTION, `'dev-loop-marker ${DESCRIPTION.slice(1)}`));
			fs.renameSync(`${file}.tmp`, file);
			await waitFor(() => described('dev-loop-marker'), { what: 'the edited description in /types/nodes.json', timeoutMs: 60_000, intervalMs: 100 });
			const firstMs = Date.now() - saved;

			// A second save of the same file (editors' watch targets change on rename).
			const again = Date.now();
			fs.writeFileSync(file, source.replace(DESCRIPTION, `'dev-loop-second ${DESCRIPTION.slice(1)}`));
			await waitFor(() => described('dev-loop-second'), { what: 'the second edit in /types/nodes.json', timeoutMs: 60_000, intervalMs: 100 });
			console.log(`dev: a saved change showed in n8n's node types after ${firstMs} ms, the next one after ${Date.now() - again} ms`);
			// Only the saved file was parsed again: a new tsc per save parsed all of the
			// program (8 s of CPU), which on a loaded machine outlasted the waits above.
			expect(output).toMatch(/dev: rebuilt after a change to nodes\/Omnichannel\/Omnichannel\.node\.ts in \d+ ms \(tsc parsed 1 of \d+ files\); \d+ file\(s\) changed/);
			expect(reloads()).toBeGreaterThanOrEqual(2);

			child.kill('SIGINT');
			expect(await exited).toEqual({ code: 0, signal: null });
		},
		TEST_TIMEOUT_MS,
	);
});
