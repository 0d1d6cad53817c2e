#!/usr/bin/env node
'use strict';
// CLI of the sandbox (README.md):
//   npm run sandbox -- --port <n> [--host 127.0.0.1] [--seed demo|empty]
//     [--contacts <n>] [--conversations <n>] [--messages-per-conversation <n>]
// Prints exactly one JSON line {base_url, control_url, app_id, key, live_key}
// on stdout, then serves until SIGINT/SIGTERM.

const { startSandbox } = require('.');

const INTEGER_OPTIONS = {
	port: 'port',
	contacts: 'contacts',
	conversations: 'conversations',
	'messages-per-conversation': 'messagesPerConversation',
};
const STRING_OPTIONS = { host: 'host', seed: 'seed' };
const PARENT_CHECK_MS = 200;

/** @param {string[]} argv @returns {import('.').SandboxOptions} */
function parseArgs(argv) {
	/** @type {Record<string, unknown>} */
	const options = {};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--help' || arg === '-h') usage(0);
		if (!arg.startsWith('--')) fail(`unexpected argument: ${arg}`);
		const eq = arg.indexOf('=');
		const name = arg.slice(2, eq === -1 ? undefined : eq);
		const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
		if (value === undefined) fail(`--${name} needs a value`);
		if (name in INTEGER_OPTIONS) {
			if (!/^\d+$/.test(value)) fail(`--${name} must be a non-negative integer`);
			options[INTEGER_OPTIONS[name]] = Number(value);
		} else if (name in STRING_OPTIONS) {
			options[STRING_OPTIONS[name]] = value;
		} else {
			fail(`unknown option --${name}`);
		}
	}
	return options;
}

function usage(code) {
	process.stderr.write(
		'usage: npm run sandbox -- [--port <n>] [--host 127.0.0.1] [--seed demo|empty]\n' +
			'       [--contacts <n>] [--conversations <n>] [--messages-per-conversation <n>]\n',
	);
	process.exit(code);
}

function fail(message) {
	process.stderr.write(`sandbox: ${message}\n`);
	usage(2);
}

async function main() {
	const sandbox = await startSandbox(parseArgs(process.argv.slice(2)));
	const { base_url, control_url, app_id, key, live_key } = sandbox;
	process.stdout.write(JSON.stringify({ base_url, control_url, app_id, key, live_key }) + '\n');
	let stopping = false;
	const stop = () => {
		if (stopping) return;
		stopping = true;
		sandbox.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	stopWhenNpmGoesAway(stop);
}

/**
 * `npm run sandbox` runs us under `sh -c`; when npm gets SIGTERM it ends that
 * shell but the signal never reaches us, which would leave an orphaned
 * sandbox holding its port. Under npm only (a server started directly may be
 * detached on purpose), losing our parent therefore means: stop.
 */
function stopWhenNpmGoesAway(stop) {
	if (!process.env.npm_lifecycle_event) return;
	const parent = process.ppid;
	const timer = setInterval(() => {
		if (process.ppid !== parent) stop();
	}, PARENT_CHECK_MS);
	timer.unref();
}

main().catch((error) => {
	process.stderr.write(`sandbox: ${error && error.message ? error.message : error}\n`);
	process.exit(1);
});
