'use strict';
// `npm run demo` minus the build (npm test has just built): the demo process
// comes up, prints a login that works, serves the examples, and stops cleanly
// on Ctrl-C (SIGINT), taking n8n with it.
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { freePort, N8nApi, waitFor } = require('../../harness');
const { SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { EXAMPLE_IDS } = require('../../harness/demo');
const { connectMcp, mcpRequestStatus } = require('../support/n8n/mcp');

const DEMO_SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'demo', 'cli.js');

describe('the demo command', () => {
	let child;
	let exited;
	let output = '';
	let userFolder;
	let port;

	beforeAll(async () => {
		port = await freePort();
		userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-demo-'));
		child = spawn(process.execPath, [DEMO_SCRIPT, '--port', String(port), '--user-folder', userFolder], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
		await waitFor(
			() => {
				if (child.exitCode !== null) throw new Error(`demo exited early:\n${output}`);
				return output.includes('Press Ctrl-C to stop');
			},
			{ what: 'the demo to print that it is ready', timeoutMs: SETUP_TIMEOUT_MS - 60_000, intervalMs: 500 },
		);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		if (child && child.exitCode === null && child.signalCode === null) {
			child.kill('SIGINT');
			await exited;
		}
		if (userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
	});

	test(
		'prints the editor URL and a login that works, and serves the examples',
		async () => {
			const editor = `http://127.0.0.1:${port}`;
			expect(output).toContain(`n8n editor    ${editor}`);
			const [, email, password] = output.match(/login +(\S+) \/ (\S+)/);
			// The sandbox's API key stays out of the demo's output.
			expect(output).not.toMatch(/svc_(live|test)_/);

			expect((await fetch(`${editor}/healthz`)).status).toBe(200);
			const api = new N8nApi(editor);
			await api.login({ email, password });
			const workflows = await api.rest('GET', '/workflows');
			const active = Object.fromEntries(workflows.map((w) => [w.id, w.active]));
			expect(active).toEqual({
				[EXAMPLE_IDS.autoReply]: true,
				[EXAMPLE_IDS.crmSync]: false,
				[EXAMPLE_IDS.crmUpsert]: false,
				[EXAMPLE_IDS.dailyReport]: false,
				[EXAMPLE_IDS.aiSupportAgent]: false,
				[EXAMPLE_IDS.mcpServer]: true,
				[EXAMPLE_IDS.pollTeamChat]: false,
				[EXAMPLE_IDS.refundApproval]: false,
				[EXAMPLE_IDS.orderNumber]: false,
			});
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'prints an MCP server URL and token: without the token the URL refuses (403), with it the MCP SDK client lists the Omnichannel tools',
		async () => {
			const [, url] = output.match(/MCP server +(http\S+)/);
			const [, token] = output.match(/MCP token +(\S+)/);
			expect(token).toMatch(/^[\w-]{32}$/);
			expect(await mcpRequestStatus(url)).toBe(403);
			const mcp = await connectMcp(url, { token });
			try {
				const { tools } = await mcp.listTools();
				expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['Send_message', 'Find_contacts', 'Workspace_identity']));
			} finally {
				await mcp.close();
			}
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'stops on Ctrl-C, and n8n with it',
		async () => {
			child.kill('SIGINT');
			let timer;
			const timeout = new Promise((resolve) => (timer = setTimeout(resolve, 30_000, 'timeout')));
			const result = await Promise.race([exited, timeout]);
			clearTimeout(timer);
			expect(result).toEqual({ code: 0, signal: null });
			expect(output).toContain('demo: stopped');
			await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
		},
		TEST_TIMEOUT_MS,
	);
});
