'use strict';
// Scenario "webhooks-queue": webhook intake in n8n's queue mode (PostgreSQL,
// Redis, main, 2 workers) with 1 and then 2 webhook processes, for our
// trigger, the minimal community trigger (bench/intake-peer) and n8n's
// Webhook node, taking turns on the same cluster. As in the webhooks
// scenario, the sandbox's real signed sender delivers message.created events
// with injected duplicates through the intake relay with a fixed number of
// events outstanding; with 2 webhook processes the relay hands requests to
// them in turn, as a round-robin load balancer would, so copies of one event
// can reach different processes.
//
// Each number of webhook processes gets a fresh cluster (harness/queue.js).
const { settledAttempts, feedWindowed, intakeCounts } = require('../lib/deliveries');
const { startRelay } = require('../lib/intakeRelay');
const { cpuSeconds } = require('../lib/processCpu');
const { settledExecutions, eventIdOf } = require('../lib/executions');
const { installIntakePeer, intakePeerWorkflow } = require('../lib/intakePeer');
const wf = require('../lib/workflows');
const os = require('os');

const { startProcesses, startQueueCluster, waitFor } = require('../../harness');

// BENCH_QUEUE_INTAKE_EVENTS, BENCH_QUEUE_INTAKE_SETTLING and BENCH_QUEUE_INTAKE_WEBHOOKS (e.g. "1") shrink a run to check the scenario itself.
const EVENTS = Number(process.env.BENCH_QUEUE_INTAKE_EVENTS) || 900;
const WEBHOOK_PROCESSES = (process.env.BENCH_QUEUE_INTAKE_WEBHOOKS || '1,2').split(',').map(Number);
/** Each event copied once more with probability 1/9: about 10% of deliveries are duplicates. */
const DUPLICATE_RATE = 1 / 9;
/** Unmeasured events per peer once the cluster is up (a fresh n8n costs more per delivery at first). */
const SETTLING_EVENTS = Number(process.env.BENCH_QUEUE_INTAKE_SETTLING) || 150;
const WINDOW = 16;
const WORKERS = 2;
const INTAKE_TIMEOUT_MS = 5 * 60 * 1000;
const EXECUTIONS_TIMEOUT_MS = 15 * 60 * 1000;

const PEER_KINDS = {
	omnichannel: { label: 'Omnichannel Trigger (verified, de-duplicated)', eventId: (json) => json.id },
	minimal: { label: 'Minimal community trigger (no verification)', eventId: (json) => json.id },
	webhook: { label: 'Webhook node (no verification)', eventId: (json) => json.body?.id },
};
const REGISTERED_BY_BENCH = new Set(['webhook', 'minimal']);
const peerId = (kind, webhooks) => `${kind}W${webhooks}`;

const COLUMNS = [
	{ key: 'acceptedPerS', label: 'Deliveries/s accepted', digits: 1 },
	{ key: 'deliveries', label: 'Deliveries', digits: 0 },
	{ key: 'duplicateDeliveries', label: 'Of them duplicates', digits: 0 },
	{ key: 'failedAttempts', label: 'Not acknowledged', digits: 0 },
	{ key: 'conflicts', label: 'Of them 409', digits: 0 },
	{ key: 'executions', label: 'Executions started', digits: 0 },
	{ key: 'distinctEventsExecuted', label: 'Distinct events run downstream', digits: 0 },
	{ key: 'extraExecutions', label: 'Downstream runs beyond one per event', digits: 0 },
	{ key: 'cpuMainMs', label: 'Main CPU ms per delivery', digits: 1 },
	{ key: 'cpuWebhookMs', label: 'Webhook process(es) CPU ms per delivery', digits: 1 },
	{ key: 'cpuWorkersMs', label: 'Workers CPU ms per delivery', digits: 1 },
	{ key: 'executionsDoneS', label: 'Last execution finished after (s)', digits: 2 },
];

/** A fresh cluster with `webhooks` webhook processes behind the relay, every peer's workflows imported. */
async function openCluster({ sandbox, tarball }, webhooks, runs) {
	const relay = await startRelay([]);
	let cluster;
	try {
		cluster = await startQueueCluster({ workers: WORKERS, webhooks, tarball, start: false, env: { WEBHOOK_URL: `${relay.url}/` } });
		relay.retarget(cluster.webhooks.map((webhook) => webhook.port));
		for (const n8n of cluster.n8nProcesses) installIntakePeer(n8n.userFolder);
		const { client } = sandbox;
		const channel = await client.control('POST', '/channels', { type: 'whatsapp', name: `Bench queue intake ${webhooks}` });
		const conversation = await client.control('POST', '/conversations', { channel_id: channel.id });
		const credentials = wf.credentialsFor(`Wq${webhooks}`, { baseUrl: sandbox.base_url, apiKey: sandbox.key });
		const plan = { omnichannel: [], minimal: [], webhook: [] };
		// One workflow per peer and run, and one more each for settling.
		for (let runIndex = 0; runIndex <= runs; runIndex++) {
			const tag = `${webhooks}${runIndex + 1}`;
			const ours = wf.intakeOurs(wf.benchId('WqOurs', tag), credentials);
			plan.omnichannel.push({ workflow: ours, webhookId: ours.nodes[0].webhookId });
			plan.minimal.push(intakePeerWorkflow(wf.benchId('WqMin', tag)));
			plan.webhook.push(wf.intakePlain(wf.benchId('WqPlain', tag)));
		}
		await cluster.main.importCredentials([credentials.ours]);
		await cluster.main.importWorkflows(Object.values(plan).flat().map((entry) => entry.workflow));
		await startProcesses(cluster);
		await cluster.main.setupOwnerAndApiKey();
		return { cluster, relay, plan, conversationId: conversation.id };
	} catch (error) {
		await cluster?.dispose();
		await relay.close();
		throw error;
	}
}

async function activate(kind, entry, { sandbox, cluster, relay }) {
	await cluster.main.publishWorkflow(entry.workflow.id);
	if (REGISTERED_BY_BENCH.has(kind)) {
		const url = `${relay.url}/webhook/${entry.path}`;
		return await sandbox.client.api('POST', '/webhooks', { url, events: ['message.created'], description: `bench queue: ${PEER_KINDS[kind].label}` });
	}
	return await waitFor(
		async () => (await sandbox.client.listAll('/webhooks')).find((webhook) => webhook.url.includes(entry.webhookId)),
		{ what: `the trigger's webhook at the sandbox`, timeoutMs: 60_000, intervalMs: 500 },
	);
}

async function deactivate(kind, entry, webhook, { sandbox, cluster }) {
	await cluster.main.unpublishWorkflow(entry.workflow.id);
	if (REGISTERED_BY_BENCH.has(kind)) await sandbox.client.api('DELETE', `/webhooks/${webhook.id}`);
}

/** n8n registers a published webhook on the webhook processes within seconds: the first 2xx proves the path. */
async function warmUp({ sandbox, relay }, webhook, conversationId) {
	const { client } = sandbox;
	await client.control('DELETE', '/deliveries');
	await client.control('PUT', '/faults', { webhook_duplicate_rate: 0 });
	// A 404 before every process knows the webhook is retried by the sender 5 s later.
	await feedWindowed({ client, relay, conversationId, count: 1, window: 1, timeoutMs: 120_000 });
	const attempts = await settledAttempts(client, webhook.id);
	return attempts.find((attempt) => attempt.ok)?.event_id;
}

const cpuOf = (processes) => processes.reduce((sum, n8n) => sum + cpuSeconds(n8n.pid), 0);

async function measureIntake(kind, entry, context, { count, measured }) {
	const { sandbox, relay, cluster, conversationId } = context;
	const { client } = sandbox;
	const webhook = await activate(kind, entry, context);
	try {
		const warmUpEventId = await warmUp(context, webhook, conversationId);
		await client.control('DELETE', '/deliveries');
		await client.control('PUT', '/faults', { webhook_duplicate_rate: DUPLICATE_RATE });
		relay.reset();
		const roles = { main: [cluster.main], webhooks: cluster.webhooks, workers: cluster.workers };
		const before = Object.fromEntries(Object.entries(roles).map(([role, processes]) => [role, cpuOf(processes)]));
		const startedAt = Date.now();
		await feedWindowed({ client, relay, conversationId, count, window: WINDOW, timeoutMs: INTAKE_TIMEOUT_MS });
		const attempts = await settledAttempts(client, webhook.id);
		await client.control('PUT', '/faults', { webhook_duplicate_rate: 0 });
		if (!measured) return undefined;
		const acknowledgedAt = relay.responses().filter(({ status }) => status >= 200 && status < 300).map(({ at }) => at);
		const intakeS = (Math.max(...acknowledgedAt) - startedAt) / 1000;
		const accepted = attempts.filter((attempt) => attempt.ok).length;
		// Ours starts at least one execution per event (a copy reaching the other webhook process starts one too).
		const expected = (REGISTERED_BY_BENCH.has(kind) ? accepted : count) + 1;
		const executions = await settledExecutions(cluster.main, entry.workflow.id, { count: expected, timeoutMs: EXECUTIONS_TIMEOUT_MS });
		// Every process's CPU until the last execution finished: the workers run them after the answers.
		const cpuMs = Object.fromEntries(Object.entries(roles).map(([role, processes]) => [role, ((cpuOf(processes) - before[role]) * 1000) / attempts.length]));
		// Executions whose trigger step passed an event on (ours ends a duplicate's execution at the trigger step).
		const executed = executions.map((execution) => eventIdOf(execution, PEER_KINDS[kind].eventId)).filter((id) => id !== undefined && id !== warmUpEventId);
		const lastStoppedAt = Math.max(...executions.map((execution) => Date.parse(execution.stoppedAt)));
		return {
			...intakeCounts({ attempts, accepted, intakeS, executed }),
			executions: executions.length - 1,
			cpuMainMs: cpuMs.main,
			cpuWebhookMs: cpuMs.webhooks,
			cpuWorkersMs: cpuMs.workers,
			executionsDoneS: (lastStoppedAt - startedAt) / 1000,
		};
	} finally {
		await deactivate(kind, entry, webhook, context);
	}
}

async function run({ sandbox, tarball, runs, log }) {
	const kinds = Object.keys(PEER_KINDS);
	const results = {};
	const peers = {};
	for (const webhooks of WEBHOOK_PROCESSES) {
		log(`webhooks-queue: cluster with ${webhooks} webhook process(es), ${WORKERS} workers`);
		const { cluster, relay, plan, conversationId } = await openCluster({ sandbox, tarball }, webhooks, runs);
		const context = { sandbox, cluster, relay, conversationId };
		try {
			for (const kind of kinds) await measureIntake(kind, plan[kind][runs], context, { count: SETTLING_EVENTS, measured: false });
			for (let runIndex = 0; runIndex < runs; runIndex++) {
				const order = runIndex % 2 === 0 ? kinds : [...kinds].reverse();
				for (const kind of order) {
					const id = peerId(kind, webhooks);
					peers[id] = { label: `${PEER_KINDS[kind].label}, ${webhooks} webhook process${webhooks > 1 ? 'es' : ''}` };
					const loadAverage = os.loadavg()[0];
					const metrics = { ...(await measureIntake(kind, plan[kind][runIndex], context, { count: EVENTS, measured: true })), loadAverage };
					(results[id] ??= []).push(metrics);
					log(`webhooks-queue W=${webhooks} run ${runIndex + 1}/${runs} ${kind}: ${JSON.stringify(metrics)}`);
				}
			}
		} finally {
			await cluster.dispose();
			await relay.close();
		}
	}
	return {
		title: `Webhook intake in queue mode: ${EVENTS} events, about ${Math.round(EVENTS * (1 + DUPLICATE_RATE))} signed deliveries (10% duplicates), ${WORKERS} workers, ${WEBHOOK_PROCESSES.join(' and ')} webhook process(es)`,
		setup: { events: EVENTS, webhook_duplicate_rate: DUPLICATE_RATE, events_outstanding: WINDOW, workers: WORKERS, webhook_processes: WEBHOOK_PROCESSES },
		columns: COLUMNS,
		peers,
		results,
		targets: (summary) => targets(summary),
		notes: [
			`Each number of webhook processes runs on a fresh queue-mode cluster (PostgreSQL, Redis, main, ${WORKERS} workers), every process with the packed package ` +
				`and bench/intake-peer installed. Each peer first takes ${SETTLING_EVENTS} unmeasured events, then the peers take turns. ` +
				`The bench creates ${EVENTS} inbound messages with ${WINDOW} events outstanding; the sandbox's injected duplicates come on top. ` +
				'The relay hands requests to the webhook processes in turn. Deliveries/s run from the first event to the last acknowledgement. ' +
				"CPU is each process's own (user + system, not its task runner) from the first event until the last execution finished, per delivery. " +
				'Ours starts an execution for a copy that reaches a webhook process which had not started that event; its first step, on a worker, ' +
				'outputs nothing for a duplicate, so "downstream runs" count executions whose trigger step passed the event on. The other two peers start one per copy.',
		],
	};
}

function targets(summary) {
	const rate = (kind, webhooks) => summary[peerId(kind, webhooks)]?.acceptedPerS?.median;
	const percent = (ratio) => (Number.isFinite(ratio) ? `${(100 * ratio).toFixed(1)}%` : 'not measured');
	const list = [];
	for (const webhooks of WEBHOOK_PROCESSES) {
		const ours = summary[peerId('omnichannel', webhooks)];
		if (!ours) continue;
		const ratio = rate('omnichannel', webhooks) / rate('minimal', webhooks);
		list.push({ target: `${webhooks} webhook process(es): at least 95% of the minimal community trigger's rate (medians)`, value: percent(ratio), met: ratio >= 0.95 });
		list.push({ target: `${webhooks} webhook process(es): against n8n's Webhook node (medians)`, value: percent(rate('omnichannel', webhooks) / rate('webhook', webhooks)), met: null });
		list.push({
			target: `${webhooks} webhook process(es): every delivery to our trigger answered 2xx`,
			value: `${ours.failedAttempts.max} not acknowledged at most, ${ours.conflicts.max} of them 409`,
			met: ours.failedAttempts.max === 0,
		});
		list.push({
			target: `${webhooks} webhook process(es): exactly one downstream run per distinct event id (${EVENTS} events)`,
			value: `${ours.distinctEventsExecuted.min}–${ours.distinctEventsExecuted.max} distinct, ${ours.extraExecutions.max} beyond one at most`,
			met: ours.distinctEventsExecuted.min === EVENTS && ours.extraExecutions.max === 0,
		});
	}
	if (WEBHOOK_PROCESSES.includes(1) && WEBHOOK_PROCESSES.includes(2)) {
		for (const kind of Object.keys(PEER_KINDS)) {
			list.push({ target: `${PEER_KINDS[kind].label}: rate with 2 webhook processes against 1`, value: percent(rate(kind, 2) / rate(kind, 1)), met: null });
		}
	}
	return list;
}

module.exports = { run };
