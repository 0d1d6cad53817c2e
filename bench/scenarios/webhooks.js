'use strict';
// Scenario 3: webhook intake. The sandbox's real signed sender delivers
// message.created events (with injected duplicates) to our published trigger
// and, in turn, to n8n's plain Webhook node and to the smallest community
// webhook trigger (bench/intake-peer), neither verifying, both registered at
// the sandbox through the public API. Both are fed the same way: through
// the intake relay, with a fixed number of events outstanding (lib/intakeRelay.js
// says why an open flood does not measure intake).
const { measureRuns } = require('../lib/measure');
const { feedWindowed, settledAttempts, intakeCounts } = require('../lib/deliveries');
const { startRelay } = require('../lib/intakeRelay');
const { cpuSeconds } = require('../lib/processCpu');
const { fillLedger, FULL_WINDOW } = require('../lib/ledgerPrefill');
const { settledExecutions, eventIdOf } = require('../lib/executions');
const { waitFor, freePort } = require('../../harness');
const wf = require('../lib/workflows');
const { installIntakePeer, intakePeerWorkflow } = require('../lib/intakePeer');
const { profilerNodeArgs, profiled, profileNotes } = require('../lib/intakeProfile');

/** 1,800 events, each copied once more with probability 1/9: about 2,000 deliveries, 10% of them duplicates. */
const EVENTS = 1_800;
const DUPLICATE_RATE = 200 / 1_800;
/**
 * Events each peer takes, unmeasured, once n8n has started: the first minutes
 * of a fresh n8n cost more CPU per delivery (measured: about 40 ms against 27
 * later), which would otherwise fall on whichever peer runs first.
 */
const SETTLING_EVENTS = 400;
/** Events outstanding (created, not yet acknowledged) at any time. */
const WINDOW = 16;
const INTAKE_TIMEOUT_MS = 5 * 60 * 1000;
/** Acknowledged events may still be executing: n8n works through them after the last answer. */
const EXECUTIONS_TIMEOUT_MS = 15 * 60 * 1000;

const PEERS = {
	omnichannel: { label: 'Omnichannel Trigger (verified, de-duplicated)', eventId: (json) => json.id },
	webhook: { label: 'Webhook node (no verification)', eventId: (json) => json.body?.id },
	minimal: { label: 'Minimal community trigger (bench only; no verification)', eventId: (json) => json.id },
};
/** Peers the bench registers at the sandbox itself (ours registers its own webhook). */
const REGISTERED_BY_BENCH = new Set(['webhook', 'minimal']);

const COLUMNS = [
	{ key: 'acceptedPerS', label: 'Deliveries/s accepted', digits: 1 },
	{ key: 'intakeS', label: 'Intake (s)', digits: 2 },
	{ key: 'deliveries', label: 'Deliveries', digits: 0 },
	{ key: 'duplicateDeliveries', label: 'Of them duplicates', digits: 0 },
	{ key: 'failedAttempts', label: 'Not acknowledged', digits: 0 },
	{ key: 'conflicts', label: 'Of them 409 (outcome of a copy not known in time)', digits: 0 },
	{ key: 'executions', label: 'Executions started', digits: 0 },
	{ key: 'distinctEventsExecuted', label: 'Distinct events executed', digits: 0 },
	{ key: 'extraExecutions', label: 'Executions beyond one per event', digits: 0 },
	{ key: 'cpuMsPerDelivery', label: 'n8n CPU ms per delivery (until the last answer)', digits: 1 },
	{ key: 'executionsDoneS', label: 'Last execution finished after (s)', digits: 2 },
	{ key: 'eventsExecutedPerS', label: 'Distinct events executed/s', digits: 1 },
];

async function setUp({ sandbox, openN8n, runs }, n8nEnv) {
	const { client } = sandbox;
	const port = await freePort();
	const relay = await startRelay(port);
	// The address n8n gives its webhooks, and so registers at the sandbox: the relay's.
	const { nodeArgs, inspectPort } = await profilerNodeArgs();
	const n8n = await openN8n({ port, env: { ...n8nEnv, WEBHOOK_URL: `${relay.url}/` }, nodeArgs });
	installIntakePeer(n8n.userFolder);
	const channel = await client.control('POST', '/channels', { type: 'whatsapp', name: 'Bench intake' });
	const conversation = await client.control('POST', '/conversations', { channel_id: channel.id });
	const credentials = wf.credentialsFor('Wh', { baseUrl: sandbox.base_url, apiKey: sandbox.key });
	const plan = { omnichannel: [], webhook: [], minimal: [] };
	// One workflow per peer and run, and one more each for settling.
	for (let runIndex = 0; runIndex <= runs; runIndex++) {
		const ours = wf.intakeOurs(wf.benchId('WhOurs', String(runIndex + 1)), credentials);
		plan.omnichannel.push({ workflow: ours, webhookId: ours.nodes[0].webhookId });
		plan.webhook.push(wf.intakePlain(wf.benchId('WhPlain', String(runIndex + 1))));
		plan.minimal.push(intakePeerWorkflow(wf.benchId('WhMinimal', String(runIndex + 1))));
	}
	await n8n.importCredentials([credentials.ours]);
	await n8n.importWorkflows(Object.values(plan).flat().map((entry) => entry.workflow));
	await n8n.start();
	await n8n.setupOwnerAndApiKey();
	await client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: 60, webhook_duplicate_rate: 0 });
	return { n8n, plan, relay, conversationId: conversation.id, inspectPort };
}

/** Publishes the workflow and returns the sandbox webhook that delivers to it. */
async function activate(peer, entry, { sandbox, n8n, relay }) {
	const { client } = sandbox;
	await n8n.publishWorkflow(entry.workflow.id);
	if (REGISTERED_BY_BENCH.has(peer)) {
		const url = `${relay.url}/webhook/${entry.path}`;
		return await client.api('POST', '/webhooks', { url, events: ['message.created'], description: `bench: ${PEERS[peer].label}` });
	}
	// Our trigger registers its own webhook while n8n activates it.
	return await waitFor(
		async () => (await client.listAll('/webhooks')).find((webhook) => webhook.url.includes(entry.webhookId)),
		{ what: `the trigger's webhook at the sandbox`, timeoutMs: 60_000, intervalMs: 500 },
	);
}

async function deactivate(peer, entry, webhook, { sandbox, n8n }) {
	await n8n.unpublishWorkflow(entry.workflow.id);
	if (REGISTERED_BY_BENCH.has(peer)) await sandbox.client.api('DELETE', `/webhooks/${webhook.id}`);
}

/**
 * One event, without duplicates, before the clock starts: proves the path
 * (URL, signature, activation) and warms both peers the same way. Returns its id.
 */
async function warmUp({ sandbox, relay }, webhook, conversationId) {
	const { client } = sandbox;
	await client.control('DELETE', '/deliveries');
	await feedWindowed({ client, relay, conversationId, count: 1, window: 1, timeoutMs: 60_000 });
	return (await settledAttempts(client, webhook.id))[0].event_id;
}

/** Every peer takes SETTLING_EVENTS on its own workflow before any run is measured. */
async function settle(context, plan, runs, conversationId) {
	const { client } = context.sandbox;
	for (const peer of Object.keys(PEERS)) {
		const entry = plan[peer][runs];
		const webhook = await activate(peer, entry, context);
		try {
			await feedWindowed({ client, relay: context.relay, conversationId, count: SETTLING_EVENTS, window: WINDOW, timeoutMs: INTAKE_TIMEOUT_MS });
			await settledAttempts(client, webhook.id);
		} finally {
			await deactivate(peer, entry, webhook, context);
		}
	}
}

async function measureIntake(peer, entry, context, conversationId) {
	const { sandbox, relay } = context;
	const { client } = sandbox;
	const webhook = await activate(peer, entry, context);
	try {
		const warmUpEventId = await warmUp(context, webhook, conversationId);
		if (context.fullWindow && peer === 'omnichannel') fillLedger(context.n8n, entry.workflow.id, entry.workflow.nodes[0].id);
		await client.control('DELETE', '/deliveries');
		await client.control('PUT', '/faults', { webhook_duplicate_rate: DUPLICATE_RATE });
		relay.reset();
		// The server's pid (the harness keeps its child process): its CPU per delivery.
		const serverPid = context.n8n.server.child.pid;
		const cpuBefore = cpuSeconds(serverPid);
		const startedAt = Date.now();
		const { value: attempts, profile } = await profiled(context.inspectPort, async () => {
			await feedWindowed({ client, relay, conversationId, count: EVENTS, window: WINDOW, timeoutMs: INTAKE_TIMEOUT_MS });
			return await settledAttempts(client, webhook.id);
		});
		if (profile) context.profiles[peer].push({ profile, deliveries: attempts.length });
		const cpuMsPerDelivery = ((cpuSeconds(serverPid) - cpuBefore) * 1000) / attempts.length;
		await client.control('PUT', '/faults', { webhook_duplicate_rate: 0 });
		const acknowledgedAt = relay.responses().filter(({ status }) => status >= 200 && status < 300).map(({ at }) => at);
		const intakeS = (Math.max(...acknowledgedAt) - startedAt) / 1000;
		const accepted = attempts.filter((attempt) => attempt.ok).length;
		const expected = REGISTERED_BY_BENCH.has(peer) ? accepted : EVENTS;
		const executions = await settledExecutions(context.n8n, entry.workflow.id, { count: expected + 1, timeoutMs: EXECUTIONS_TIMEOUT_MS });
		const metrics = metricsOf(peer, { attempts, accepted, intakeS, executions, warmUpEventId });
		// From the first event to the end of the last execution it started.
		const lastStoppedAt = Math.max(...executions.map((execution) => Date.parse(execution.stoppedAt)));
		const executionsDoneS = (lastStoppedAt - startedAt) / 1000;
		return { ...metrics, cpuMsPerDelivery, executionsDoneS, eventsExecutedPerS: metrics.distinctEventsExecuted / executionsDoneS };
	} finally {
		await deactivate(peer, entry, webhook, context);
	}
}

function metricsOf(peer, { attempts, accepted, intakeS, executions, warmUpEventId }) {
	const executed = executions.map((execution) => eventIdOf(execution, PEERS[peer].eventId)).filter((id) => id !== warmUpEventId);
	return {
		...intakeCounts({ attempts, accepted, intakeS, executed }),
		executions: executed.length,
		failedExecutions: executions.filter((execution) => execution.status !== 'success').length,
	};
}

function targets(summary) {
	const ours = summary.omnichannel;
	const ratioTo = (peer) => ours.acceptedPerS.median / summary[peer].acceptedPerS.median;
	const percent = (ratio) => `${(100 * ratio).toFixed(1)}%`;
	const exactlyOnce = ours.extraExecutions.max === 0 && ours.distinctEventsExecuted.min === EVENTS && ours.executions.max === EVENTS;
	return [
		{ target: "at least 100% of the minimal community trigger's rate (medians)", value: percent(ratioTo('minimal')), met: ratioTo('minimal') >= 1 },
		// n8n spares only its own Webhook node the expression isolate (live-webhooks.js, webhookPhaseNeedsIsolate):
		// no community node can, so the 90% of the issue is reported, not required.
		{ target: "against n8n's own Webhook node (medians; 90% wanted where n8n lets a node get there)", value: percent(ratioTo('webhook')), met: null },
		{
			target: 'every delivery to our trigger answered 2xx (0 not acknowledged, of them 409s) in every run',
			value: `${ours.failedAttempts.max} not acknowledged at most, ${ours.conflicts.max} of them 409`,
			met: ours.failedAttempts.max === 0,
		},
		{
			target: `exactly one execution per distinct event id (${EVENTS} events) in every run`,
			value: `${ours.executions.min}–${ours.executions.max} executions, ${ours.distinctEventsExecuted.min}–${ours.distinctEventsExecuted.max} distinct`,
			met: exactlyOnce,
		},
	];
}

/**
 * The same measurement under n8n's default settings, or (variant) with extra
 * n8n environment for both peers alike.
 * @param {{ n8nEnv?: Record<string, string>, titleSuffix?: string, note?: string }} [variant]
 */
async function run(context, { n8nEnv = {}, titleSuffix = '', note, fullWindow = false } = {}) {
	const { n8n, plan, relay, conversationId, inspectPort } = await setUp(context, n8nEnv);
	const profiles = Object.fromEntries(Object.keys(PEERS).map((peer) => [peer, []]));
	const peerContext = { sandbox: context.sandbox, n8n, relay, fullWindow, inspectPort, profiles };
	let results;
	try {
		await settle(peerContext, plan, context.runs, conversationId);
		results = await measureRuns(context, 'webhooks', Object.keys(PEERS), (peer, runIndex) =>
			measureIntake(peer, plan[peer][runIndex], peerContext, conversationId),
		);
	} finally {
		await n8n.dispose();
		await relay.close();
	}
	return {
		title: `Webhook intake: ${EVENTS.toLocaleString('en-US')} events, about 2,000 signed deliveries (10% duplicates)${titleSuffix}${inspectPort ? ', CPU-profiled' : ''}`,
		setup: { events: EVENTS, webhook_duplicate_rate: DUPLICATE_RATE, events_outstanding: WINDOW, n8n_env: n8nEnv, ledger_prefilled: fullWindow ? FULL_WINDOW : 0 },
		columns: COLUMNS,
		peers: PEERS,
		results,
		targets,
		notes: [
			`Once n8n has started, each peer first takes ${SETTLING_EVENTS} events on a workflow of its own, unmeasured. ` +
				`The bench creates ${EVENTS} inbound messages through the sandbox's control API with ${WINDOW} events outstanding at a time ` +
				'(the next is created once n8n acknowledged one); the sandbox signs and sends each at once, and its injected duplicates ' +
				'(half at the same time as the original, half up to 200 ms after it) come on top. Deliveries pass a byte-for-byte relay ' +
				'that notes when n8n answered; intake time runs from the first event to the last acknowledgement. ' +
				'The plain Webhook node and the minimal community trigger (bench/intake-peer: answers 200 and starts an execution for every ' +
				'request, no verification) start an execution for every copy; n8n takes an expression isolate for every request to the ' +
				'minimal trigger as to ours, but not to its own Webhook node. Ours verifies the signature and starts one per event id. ' +
				'n8n answers every peer once the execution has started; the executions run after the answer, so the last two columns count ' +
				'until the last execution finished. Our trigger\'s executions record each event id in n8n\'s database as their first step.',
			...(note ? [note] : []),
			...profileNotes(PEERS, profiles),
		],
	};
}

/**
 * n8n's own setting that lets a webhook request and an execution take an
 * expression isolate only when an expression is actually evaluated. By
 * default n8n takes one for every webhook request to a node other than its
 * Webhook node (live-webhooks.js, webhookPhaseNeedsIsolate) and for every
 * execution, and those dominate intake on a small machine.
 */
const LAZY_ISOLATES = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };

const runWithLazyIsolates = (context) =>
	run(context, {
		n8nEnv: LAZY_ISOLATES,
		titleSuffix: ', n8n with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true',
		note:
			'Every peer runs in an n8n started with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true: n8n then takes an expression isolate ' +
			'only when an expression is evaluated, instead of for every webhook request (except to its own Webhook node) and every execution.',
	});

/**
 * The same under n8n's defaults, with the trigger's de-duplication window in
 * n8n's database full (40,000 ids) before the first delivery: every accepted
 * event's check then reads and writes the whole window.
 */
const runWithFullWindow = (context) =>
	run(context, {
		fullWindow: true,
		titleSuffix: `, trigger's de-duplication window full (${FULL_WINDOW.toLocaleString('en-US')} ids)`,
		note:
			`Before each run of our trigger, its window in n8n's database (processed_data) is filled to ${FULL_WINDOW.toLocaleString('en-US')} ids, ` +
			'as 5 events/s for two hours leave it; n8n reads and writes that whole row for every accepted event. The plain Webhook node keeps no window.',
	});

module.exports = { run, runWithLazyIsolates, runWithFullWindow, LAZY_ISOLATES };
