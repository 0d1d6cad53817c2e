'use strict';
// `npm run demo` (after scripts/demo/start.sh has built the package and the n8n
// cache): starts the demo environment, prints how to use it and stays up
// until Ctrl-C. Prints the n8n login, never the sandbox's API key.
//
//   node scripts/demo/cli.js [--port 5678] [--user-folder .e2e/demo] [--queue]
const net = require('net');
const path = require('path');

const { freePort } = require('../../test/support/n8n');
const { sandboxClient } = require('../../sandbox/client');
const { startDemo, EXAMPLE_IDS } = require('./environment');

const DEFAULT_PORT = 5678;

function parseArgs(argv) {
	const args = { port: undefined, userFolder: path.join(__dirname, '..', '..', '.e2e', 'demo'), queue: false };
	for (let i = 0; i < argv.length; i++) {
		const value = argv[i + 1];
		if (argv[i] === '--queue') {
			args.queue = true;
			continue;
		}
		if (argv[i] === '--port' && /^\d+$/.test(value ?? '')) args.port = Number(value);
		else if (argv[i] === '--user-folder' && value) args.userFolder = path.resolve(value);
		else throw new Error(`unknown or incomplete argument "${argv[i]}"; usage: scripts/demo/cli.js [--port N] [--user-folder DIR] [--queue]`);
		i++;
	}
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

function printReady({ n8n, cluster, sandbox, login, examples, mcpUrl }, conversation, userFolder) {
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
			`  MCP server    ${mcpUrl}  (Streamable HTTP or SSE, no auth: the demo's tools for MCP clients)`,
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
		log: (line) => console.log(`demo: ${line}`),
	});
	const first = await Promise.race([starting, stopped]);
	if (typeof first === 'string') {
		// Ctrl-C while starting: exiting kills the n8n processes (see the harness).
		console.log(`demo: ${first} while starting, exiting`);
		process.exit(130);
	}
	const demo = first;
	printReady(demo, await sampleConversation(demo.sandbox), args.userFolder);
	const signal = await stopped;
	console.log(`demo: ${signal}, stopping n8n and the sandbox`);
	await demo.close();
	console.log('demo: stopped');
}

main().catch((error) => {
	console.error(`demo: failed: ${error.message}`);
	process.exit(1);
});
