'use strict';
// `npm run demo` (after scripts/demo/start.sh has built the package and the n8n
// cache): starts the demo environment, prints how to use it and stays up
// until Ctrl-C. Prints the n8n login and the MCP server's token, never the
// sandbox's API key.
// `npm run dev` adds --dev: n8n in development mode with N8N_DEV_RELOAD=true,
// and the package rebuilt into it on every change (rebuild.js).
//
//   node scripts/demo/cli.js [--port 5678] [--user-folder .e2e/demo] [--queue | --dev]
const net = require('net');
const path = require('path');

const { freePort, installedPackageDir, PACKAGE_NAME } = require('../../harness');
const { sandboxClient } = require('../../sandbox/client');
const { startDemo, EXAMPLE_IDS } = require('../../harness/demo');
const { watchAndRebuild } = require('./rebuild');

const DEFAULT_PORT = 5678;

function parseArgs(argv) {
	const args = { port: undefined, userFolder: path.join(__dirname, '..', '..', '.e2e', 'demo'), queue: false, dev: false };
	for (let i = 0; i < argv.length; i++) {
		const value = argv[i + 1];
		if (argv[i] === '--queue' || argv[i] === '--dev') {
			args[argv[i].slice(2)] = true;
			continue;
		}
		if (argv[i] === '--port' && /^\d+$/.test(value ?? '')) args.port = Number(value);
		else if (argv[i] === '--user-folder' && value) args.userFolder = path.resolve(value);
		else throw new Error(`unknown or incomplete argument "${argv[i]}"; usage: scripts/demo/cli.js [--port N] [--user-folder DIR] [--queue | --dev]`);
		i++;
	}
	// n8n reloads community nodes in its main process only; queue mode's workers would keep the old code.
	if (args.queue && args.dev) throw new Error('--dev reloads the nodes of one n8n process: use it without --queue');
	return args;
}

/** n8n's usual port when it is free, so the editor is where users expect it. */
function isFree(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

async function choosePort(requested) {
	if (requested !== undefined) return requested;
	if (await isFree(DEFAULT_PORT)) return DEFAULT_PORT;
	const port = await freePort();
	console.log(`demo: port ${DEFAULT_PORT} is taken, using ${port}`);
	return port;
}

/** A conversation on an active channel, for the "try it" command. */
async function sampleConversation(sandbox) {
	const client = sandboxClient(sandbox);
	const active = new Set((await client.listAll('/channels')).filter((c) => c.is_active).map((c) => c.id));
	return (await client.listAll('/conversations')).find((c) => active.has(c.channel_id));
}

function printReady({ n8n, cluster, sandbox, login, examples, mcpUrl, mcpToken }, conversation, userFolder) {
	const body = JSON.stringify({ conversation_id: conversation.id, text: 'Hi, is my order on its way?' });
	const published = [EXAMPLE_IDS.autoReply, EXAMPLE_IDS.mcpServer];
	const names = examples.map((w) => `${w.name}${published.includes(w.id) ? '  (published)' : ''}`);
	console.log(
		[
			'',
			'Omnichannel demo is running.',
			'',
			`  n8n editor    ${n8n.baseUrl}`,
			`  login         ${login.email} / ${login.password}`,
			`  credential    "Omnichannel sandbox", for the sandbox API at ${sandbox.base_url}`,
			`  workflows     ${names.join('\n                ')}`,
			`  MCP server    ${mcpUrl}  (Streamable HTTP or SSE: the demo's tools for MCP clients)`,
			`  MCP token     ${mcpToken}  (send "Authorization: Bearer <token>"; new on every start)`,
			'',
			`Try it: a customer writes in on ${conversation.channel}, and the auto-reply answers (see Executions):`,
			`  curl -s -X POST ${sandbox.control_url}/inbound -H 'content-type: application/json' -d '${body}'`,
			'',
			...(cluster ? ['Queue mode, which process serves what:', ...cluster.describe().map((line) => `  ${line}`), ''] : []),
			cluster
				? `n8n data: PostgreSQL above and ${cluster.root} (removed on stop). Press Ctrl-C to stop.`
				: `n8n data: ${userFolder} (reset on every start). Press Ctrl-C to stop.`,
			'',
		].join('\n'),
	);
}

/** Resolves on the first SIGINT or SIGTERM. */
const untilStopped = () =>
	new Promise((resolve) => {
		process.once('SIGINT', () => resolve('SIGINT'));
		process.once('SIGTERM', () => resolve('SIGTERM'));
	});

async function main() {
	const args = parseArgs(process.argv.slice(2));
	const stopped = untilStopped();
	const starting = startDemo({
		n8nPort: await choosePort(args.port),
		userFolder: args.userFolder,
		queue: args.queue,
		// n8n watches installed packages only in development mode (NODE_ENV unset or development).
		env: args.dev ? { NODE_ENV: 'development', N8N_DEV_RELOAD: 'true' } : {},
		log: (line) => console.log(`demo: ${line}`),
	});
	const first = await Promise.race([starting, stopped]);
	if (typeof first === 'string') {
		// Ctrl-C while starting: exiting kills the n8n processes (see the harness).
		console.log(`demo: ${first} while starting, exiting`);
		process.exit(130);
	}
	const demo = first;
	const rebuilding = args.dev
		? await watchAndRebuild({ installedDir: installedPackageDir(args.userFolder, PACKAGE_NAME), log: (line) => console.log(`dev: ${line}`) })
		: undefined;
	printReady(demo, await sampleConversation(demo.sandbox), args.userFolder);
	if (rebuilding) console.log('dev: watching nodes/ and credentials/: save a file, and n8n reloads the nodes a few seconds later (reopen a node panel to see its new parameters).\n');
	const signal = await stopped;
	console.log(`demo: ${signal}, stopping n8n and the sandbox`);
	await rebuilding?.stop();
	await demo.close();
	console.log('demo: stopped');
}

main().catch((error) => {
	console.error(`demo: failed: ${error.message}`);
	process.exit(1);
});
