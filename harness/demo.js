'use strict';
// The demo environment: the sandbox (demo seed, plus two days of recent
// support activity for the daily report) and a real n8n with our
// packed package, the owner account, a ready credential for the sandbox, the
// MCP server's token and the examples/ workflows, the auto-reply and the MCP
// server published. `npm run demo` runs it
// in the foreground; the E2E suite runs the examples against it.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const { startSandbox } = require('../sandbox');
const { sandboxClient } = require('../sandbox/client');
const { startN8n, omnichannelCredential, waitFor, workflows } = require('./index');
const { startProcesses, startQueueCluster } = require('./queue');

const REPO_ROOT = path.join(__dirname, '..');
const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/** The credential every example refers to. */
const DEMO_CREDENTIAL = Object.freeze({ id: 'omnichannelDemo1', name: 'Omnichannel sandbox' });
/** The Bearer Auth credential (n8n's `httpBearerAuth`) of the MCP server example's trigger. */
const MCP_TOKEN_CREDENTIAL = Object.freeze({ id: 'mcpServerToken01', name: 'MCP server token' });
/** The credential each type of reference in examples/ must name. */
const EXAMPLE_CREDENTIALS = Object.freeze({ omnichannelApi: DEMO_CREDENTIAL, httpBearerAuth: MCP_TOKEN_CREDENTIAL });

/** Example workflow ids (fixed in examples/*.json). */
const EXAMPLE_IDS = Object.freeze({
	autoReply: 'exAutoReply00001',
	crmSync: 'exCrmSync0000001',
	crmUpsert: 'exCrmUpsert00001',
	dailyReport: 'exDailyReport001',
	aiSupportAgent: 'exAiSupportAgent',
	mcpServer: 'exMcpServer00001',
	pollTeamChat: 'exPollTeamChat01',
	refundApproval: 'exRefundApproval',
	orderNumber: 'exOrderNumber001',
});

/**
 * The demo's recent activity, for the daily support report: about two days
 * of support work up to now (customers, the bot, people, hand-overs,
 * ratings: the sandbox's POST /bulk-history), so that yesterday has a day of
 * it in every time zone. Silent, like the seed.
 */
const RECENT_ACTIVITY = Object.freeze({ hours: 50, conversations: 60, messages: 480, seed: 20261128 });

async function seedRecentActivity(sandbox) {
	const now = Date.now();
	await sandboxClient(sandbox).control('POST', '/bulk-history', {
		from: new Date(now - RECENT_ACTIVITY.hours * 3_600_000).toISOString(),
		to: new Date(now - 60_000).toISOString(),
		conversations: RECENT_ACTIVITY.conversations,
		messages: RECENT_ACTIVITY.messages,
		seed: RECENT_ACTIVITY.seed,
	});
}

/** The MCP server example's production URL (its MCP Server Trigger's path, under n8n's /mcp/). */
function mcpServerUrl(examples, n8nBaseUrl) {
	const workflow = examples.find((example) => example.id === EXAMPLE_IDS.mcpServer);
	const trigger = workflow?.nodes.find((node) => node.type === '@n8n/n8n-nodes-langchain.mcpTrigger');
	return trigger ? `${n8nBaseUrl}/mcp/${trigger.parameters.path}` : undefined;
}

/**
 * examples/*.json, checked: every node of ours uses the demo credential (the
 * MCP trigger its token) and only parameters our nodes have, so a renamed
 * parameter fails here and not silently in the editor.
 */
function loadExamples() {
	const files = fs.readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.json')).sort();
	return files.map((file) => {
		const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'));
		workflows.checkWorkflowParameters(workflow);
		for (const node of workflow.nodes) {
			for (const [type, ref] of Object.entries(node.credentials ?? {})) {
				const expected = EXAMPLE_CREDENTIALS[type];
				if (ref.id !== expected?.id) {
					throw new Error(`${file}: node "${node.name}" uses ${type} credential ${ref.id}, not ${expected?.id ?? 'one the demo creates'}`);
				}
			}
		}
		return workflow;
	});
}

/** Waits until the published auto-reply's webhook is registered at the sandbox. */
async function waitForWebhook(sandbox, webhookBaseUrl) {
	const client = sandboxClient(sandbox);
	await waitFor(async () => (await client.listAll('/webhooks')).some((hook) => hook.url.startsWith(webhookBaseUrl)), {
		what: 'the auto-reply trigger to register its webhook at the sandbox',
		timeoutMs: 60_000,
	});
}

/**
 * Waits until n8n serves the published MCP server: n8n answers the publish
 * before it registers the endpoint, which answers 404 until then.
 */
async function waitForMcpServer(url) {
	await waitFor(
		async () => {
			const response = await fetch(url, { method: 'POST', signal: AbortSignal.timeout(10_000) });
			await response.body?.cancel();
			return response.status !== 404;
		},
		{ what: `the MCP server at ${url}`, timeoutMs: 60_000 },
	);
}

/**
 * @param {object} [options]
 * @param {number} [options.n8nPort] defaults to a free port
 * @param {number} [options.sandboxPort] defaults to a free port
 * @param {string} [options.userFolder] n8n's data; emptied first. Defaults to a temp folder.
 * @param {(line: string) => void} [options.log] progress lines
 * @param {boolean} [options.queue] n8n in queue mode (harness/queue.js): main on `n8nPort`, 2 workers, a webhook process
 * @param {object} [options.env] extra n8n environment
 * @param {object} [options.n8n] a running n8n to set the demo's world up in
 *   (the tests' shared one, harness/attached.js); close() then removes what it imported
 */
async function startDemo({ n8nPort, sandboxPort = 0, userFolder, log = () => {}, queue = false, env: extraEnv = {}, n8n: runningN8n } = {}) {
	const examples = loadExamples();
	log('starting the sandbox (demo seed)');
	const sandbox = await startSandbox({ seed: 'demo', port: sandboxPort });
	await seedRecentActivity(sandbox);
	let n8n = runningN8n;
	let cluster;
	const close = async () => {
		try {
			await (cluster ?? n8n)?.dispose();
		} finally {
			await sandbox.close();
		}
	};
	try {
		// The schedules of the examples ("every day at 8:00") in the user's time zone, not n8n's default New York.
		const env = { GENERIC_TIMEZONE: Intl.DateTimeFormat().resolvedOptions().timeZone, ...extraEnv };
		if (runningN8n) {
			log(`using the n8n at ${runningN8n.baseUrl}`);
		} else if (queue) {
			log('starting PostgreSQL and Redis, installing the packed package for main, 2 workers and a webhook process');
			cluster = await startQueueCluster({ env, mainPort: n8nPort, start: false });
			n8n = cluster.main;
		} else {
			if (userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
			log('installing the packed package into a fresh n8n user folder');
			n8n = await startN8n({ userFolder, port: n8nPort, env, start: false });
		}
		log('importing the credentials and the example workflows');
		// A new token per start, as the demo's n8n data is new on every start.
		const mcpToken = crypto.randomBytes(24).toString('base64url');
		await n8n.importCredentials([
			omnichannelCredential({ ...DEMO_CREDENTIAL, baseUrl: sandbox.base_url, apiKey: sandbox.key }),
			{ ...MCP_TOKEN_CREDENTIAL, type: 'httpBearerAuth', data: { token: mcpToken } },
		]);
		await n8n.importWorkflows(examples);
		log(queue ? 'starting n8n: main, then the workers and the webhook process' : 'starting n8n');
		await (cluster ? startProcesses(cluster) : n8n.start());
		const login = await n8n.setupOwnerAndApiKey();
		log('publishing the auto-reply workflow');
		await n8n.publishWorkflow(EXAMPLE_IDS.autoReply);
		// Triggers register the URL of the process that takes production webhooks.
		const webhookBaseUrl = (cluster?.webhook ?? n8n).baseUrl;
		await waitForWebhook(sandbox, webhookBaseUrl);
		// The AI agent example stays unpublished: it needs the user's own chat model.
		log('publishing the MCP server workflow');
		await n8n.publishWorkflow(EXAMPLE_IDS.mcpServer);
		const mcpUrl = mcpServerUrl(examples, webhookBaseUrl);
		await waitForMcpServer(mcpUrl);
		return { n8n, cluster, sandbox, login, examples, mcpUrl, mcpToken, close };
	} catch (error) {
		await close();
		throw error;
	}
}

module.exports = { startDemo, loadExamples, seedRecentActivity, DEMO_CREDENTIAL, EXAMPLE_IDS };
