'use strict';
// The sandbox in a process of its own (cli.js), not in the caller's event
// loop: sharing one thread would make the caller's work part of what is
// measured (the bench feeding and polling during webhook intake), and the
// caller's stalls would bunch up the requests the rate limit counts (a test's).
const { spawn } = require('child_process');
const path = require('path');
const readline = require('readline');

const { sandboxClient } = require('./client');

const SCRIPT = path.join(__dirname, 'cli.js');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/**
 * Resolves to the sandbox's first stdout line (its CLI's JSON line) plus a client and close().
 * @param {string[]} [seedArgs] the CLI's seed options (default: the demo world)
 */
async function startSandboxProcess(seedArgs = ['--seed', 'demo']) {
	const child = spawn(process.execPath, [SCRIPT, '--port', '0', ...seedArgs], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const exited = new Promise((resolve) => child.once('exit', resolve));
	const killOnExit = () => child.kill('SIGKILL');
	process.once('exit', killOnExit);
	let info;
	try {
		info = await firstLine(child, exited);
	} catch (error) {
		child.kill('SIGKILL');
		throw error;
	}
	return {
		...info,
		client: sandboxClient(info),
		async close() {
			process.removeListener('exit', killOnExit);
			if (child.exitCode !== null) return;
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
			await exited;
			clearTimeout(timer);
		},
	};
}

function firstLine(child, exited) {
	const lines = readline.createInterface({ input: child.stdout });
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('sandbox did not start in time')), START_TIMEOUT_MS);
		exited.then((code) => reject(new Error(`sandbox exited early (code ${code})`)));
		lines.once('line', (line) => {
			clearTimeout(timer);
			lines.close();
			// Later output is not read; keep the pipe drained so the sandbox never blocks.
			child.stdout.resume();
			resolve(JSON.parse(line));
		});
	});
}

module.exports = { startSandboxProcess };
