'use strict';
// Scenario `window`: what the trigger's de-duplication window costs per
// delivery, empty and full (40,000 ids in n8n's database), in one real n8n
// (SQLite, n8n's default settings) against n8n's plain Webhook node measured
// in the same run. No sandbox: this process signs and sends the deliveries
// itself, 16 in flight, so the figures are n8n's intake and nothing else.
// The three peers take turns (plain, empty, full, plain, ...) so that all see
// the same machine load.
//   BENCH_RUNS=3 BENCH_DELIVERIES=300 npm run bench -- --only window
//   BENCH_BASELINE_TARBALL=old.tgz ...   adds that build's trigger (window empty)
//                                        as a fourth peer, in an n8n of its own
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { startN8n, omnichannelCredential, packRepo, workflows: w, waitFor, NODE_TYPES } = require('../../harness');
const { signatureHeader } = require('../../sandbox/webhooks/signing');
const { fillLedger, FULL_WINDOW } = require('../lib/ledgerPrefill');
const { cpuSeconds } = require('../lib/processCpu');
const { summarise } = require('../lib/summary');
const { boundedInteger } = require('../lib/options');

const IN_FLIGHT = 16;
const MAX_RUNS = 10;
const MAX_DELIVERIES = 5_000;
const SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;

const PEERS = {
	plain: { label: "n8n's Webhook node (no verification, no de-duplication)" },
	empty: { label: 'Omnichannel Trigger, window empty' },
	full: { label: `Omnichannel Trigger, window full (${FULL_WINDOW.toLocaleString('en-US')} ids)` },
	baseline: { label: 'Omnichannel Trigger of BENCH_BASELINE_TARBALL (its own n8n)' },
};

function eventBody(id) {
	return JSON.stringify({
		id,
		type: 'message.created',
		created_at: new Date().toISOString(),
		app_id: 'app_bench',
		data: { id: `msg_${id.slice(4)}`, conversation_id: 'conv_bench', content: 'bench', from_customer: true },
	});
}

async function deliver(url, id) {
	const body = eventBody(id);
	const timestamp = Math.floor(Date.now() / 1000);
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'x-service-webhook-id': id,
			'x-service-webhook-timestamp': String(timestamp),
			'x-service-webhook-signature': signatureHeader(SECRET, id, timestamp, body),
		},
		body,
	});
	await response.text();
	return response.status;
}

/** Manual registration's secret, in its credential (the trigger's only place for it). */
const SIGNING_CREDENTIAL = { id: 'benchWindowSign1', name: 'Bench signing secret', type: 'omnichannelWebhookSigningApi', data: { signingSecret: SECRET } };

function workflowsFor(credential) {
	const trigger = (id) =>
		w.node('Trigger', NODE_TYPES.trigger, { events: ['message.created'], registration: 'manual' }, {
			typeVersion: 2,
			webhookId: crypto.randomUUID(),
			credentials: { omnichannelWebhookSigningApi: { id: SIGNING_CREDENTIAL.id, name: SIGNING_CREDENTIAL.name } },
			id,
		});
	const plainNode = w.node('Webhook', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path: 'bench-window-plain', responseMode: 'onReceived', options: {} }, {
		typeVersion: 2,
		webhookId: crypto.randomUUID(),
	});
	const nodes = { plain: plainNode, empty: trigger(crypto.randomUUID()), full: trigger(crypto.randomUUID()) };
	const ids = { plain: 'benchWindowPlain', empty: 'benchWindowEmpty', full: 'benchWindowFull0' };
	const workflows = Object.fromEntries(
		Object.entries(nodes).map(([peer, node]) => [peer, w.workflow({ id: ids[peer], name: `Bench window ${peer}`, nodes: [node], connections: [] })]),
	);
	const path = (peer) => (peer === 'plain' ? 'bench-window-plain' : `${nodes[peer].webhookId}/omnichannel`);
	return { workflows, path };
}

async function measure(n8n, url, workflowId, deliveries, executedBefore) {
	const pid = n8n.server.child.pid;
	const ids = Array.from({ length: deliveries }, () => `evt_${crypto.randomBytes(10).toString('hex')}`);
	let next = 0;
	const statuses = [];
	const cpuBefore = cpuSeconds(pid);
	const started = Date.now();
	await Promise.all(
		Array.from({ length: IN_FLIGHT }, async () => {
			while (next < ids.length) statuses.push(await deliver(url, ids[next++]));
		}),
	);
	const answeredMs = Date.now() - started;
	const executions = await n8n.api.waitForExecutions(workflowId, { count: executedBefore + deliveries, timeoutMs: 15 * 60_000 });
	const doneMs = Math.max(...executions.map((execution) => Date.parse(execution.stoppedAt))) - started;
	const cpuMs = (cpuSeconds(pid) - cpuBefore) * 1000;
	return {
		failed: statuses.filter((status) => status !== 200).length,
		deliveriesPerS: deliveries / (answeredMs / 1000),
		// Until every execution has finished: the ledger check runs in the execution.
		cpuMsPerDelivery: cpuMs / deliveries,
		executedPerS: deliveries / (doneMs / 1000),
		executions: executions.length - executedBefore,
	};
}

function markdown(results) {
	const rows = [];
	const metric = (peer, key, digits) => {
		const s = results.summary[peer][key];
		return `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
	};
	for (const [peer, { label }] of Object.entries(PEERS).filter(([peer]) => results.summary[peer])) {
		rows.push(`| ${label} | ${metric(peer, 'deliveriesPerS', 1)} | ${metric(peer, 'executedPerS', 1)} | ${metric(peer, 'cpuMsPerDelivery', 1)} |`);
	}
	const { ratios } = results;
	return [
		'# The trigger\'s de-duplication window: cost per delivery',
		'',
		`Generated by \`npm run bench:window\` on ${results.generated_at} (${results.machine}), n8n ${results.n8n_version}, SQLite, n8n's default settings. ` +
			`${results.runs} runs of ${results.deliveries} signed deliveries per peer, ${IN_FLIGHT} in flight, peers taking turns; median (min–max).`,
		'',
		'| Peer | Deliveries/s answered | Executions finished/s | n8n CPU ms per delivery (until the last execution ended) |',
		'|---|---|---|---|',
		...rows,
		'',
		`- Full window against empty window, CPU per delivery: **${(100 * (ratios.fullVsEmptyCpu - 1)).toFixed(1)}%** (goal: at most +10%).`,
		`- Deliveries/s against the plain Webhook node: empty window **${(100 * ratios.emptyVsPlainRate).toFixed(1)}%**, full window **${(100 * ratios.fullVsPlainRate).toFixed(1)}%** (goal: at least 62%).`,
		...(ratios.baselineVsPlainRate === undefined
			? []
			: [`- The baseline build against the plain Webhook node, same run: **${(100 * ratios.baselineVsPlainRate).toFixed(1)}%**; this build's empty window against the baseline: **${(100 * ratios.emptyVsBaselineRate).toFixed(1)}%** of its rate, ${(100 * (ratios.emptyVsBaselineCpu - 1)).toFixed(1)}% CPU per delivery.`]),
		'',
	].join('\n');
}

/** @param {{ runs: number, log: (message: string) => void }} options */
async function run({ runs, log }) {
	if (runs > MAX_RUNS) throw new Error(`the window scenario takes at most ${MAX_RUNS} runs (BENCH_RUNS)`);
	const deliveries = boundedInteger('BENCH_DELIVERIES', process.env.BENCH_DELIVERIES, 300, MAX_DELIVERIES);
	const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-bench-window-'));
	const n8n = await startN8n({ start: false, tarball: packRepo(packDir) });
	const baselineTarball = process.env.BENCH_BASELINE_TARBALL;
	const baseline = baselineTarball ? await startN8n({ start: false, tarball: baselineTarball }) : undefined;
	try {
		const credential = omnichannelCredential({ id: 'benchWindowCred1', baseUrl: 'http://127.0.0.1:9/api/public/v1', apiKey: 'svc_test_bench.window' });
		const { workflows, path: pathOf } = workflowsFor(credential);
		await n8n.importCredentials([credential, SIGNING_CREDENTIAL]);
		await n8n.importWorkflows(Object.values(workflows));
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		const urls = {};
		for (const [peer, workflow] of Object.entries(workflows)) {
			await n8n.publishWorkflow(workflow.id);
			urls[peer] = `${n8n.baseUrl}/webhook/${pathOf(peer)}`;
			// One delivery each: proves the path, creates the ledger rows, warms up.
			await waitFor(async () => (await deliver(urls[peer], `evt_warm_${peer}`)) === 200, { what: `${peer} published`, timeoutMs: 60_000 });
		}
		const executed = { plain: 1, empty: 1, full: 1 };
		for (const peer of Object.keys(executed)) await n8n.api.waitForExecutions(workflows[peer].id, { count: 1 });
		const samples = { plain: [], empty: [], full: [] };
		const hosts = { plain: n8n, empty: n8n, full: n8n };
		if (baseline) {
			await baseline.importCredentials([credential, SIGNING_CREDENTIAL]);
			await baseline.importWorkflows([workflows.empty]);
			await baseline.start();
			await baseline.setupOwnerAndApiKey();
			await baseline.publishWorkflow(workflows.empty.id);
			urls.baseline = `${baseline.baseUrl}/webhook/${pathOf('empty')}`;
			await waitFor(async () => (await deliver(urls.baseline, 'evt_warm_baseline')) === 200, { what: 'baseline published', timeoutMs: 60_000 });
			await baseline.api.waitForExecutions(workflows.empty.id, { count: 1 });
			Object.assign(executed, { baseline: 1 });
			Object.assign(samples, { baseline: [] });
			Object.assign(hosts, { baseline });
		}
		const workflowOf = (peer) => workflows[peer === 'baseline' ? 'empty' : peer];
		for (let run = 1; run <= runs; run++) {
			// The full peer's window is full again before each of its runs.
			fillLedger(n8n, workflows.full.id, workflows.full.nodes[0].id);
			for (const peer of Object.keys(samples)) {
				const sample = await measure(hosts[peer], urls[peer], workflowOf(peer).id, deliveries, executed[peer]);
				executed[peer] += deliveries;
				samples[peer].push(sample);
				log(`run ${run}/${runs} ${peer}: ${sample.deliveriesPerS.toFixed(1)} deliveries/s, ${sample.cpuMsPerDelivery.toFixed(1)} CPU ms per delivery, ${sample.failed} failed`);
			}
		}
		const summary = Object.fromEntries(
			Object.entries(samples).map(([peer, list]) => [
				peer,
				Object.fromEntries(['deliveriesPerS', 'cpuMsPerDelivery', 'executedPerS', 'failed', 'executions'].map((key) => [key, summarise(list.map((s) => s[key]))])),
			]),
		);
		const results = {
			generated_at: new Date().toISOString(),
			machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB`,
			n8n_version: n8n.install.version,
			runs,
			deliveries,
			samples,
			summary,
			ratios: {
				fullVsEmptyCpu: summary.full.cpuMsPerDelivery.median / summary.empty.cpuMsPerDelivery.median,
				emptyVsPlainRate: summary.empty.deliveriesPerS.median / summary.plain.deliveriesPerS.median,
				fullVsPlainRate: summary.full.deliveriesPerS.median / summary.plain.deliveriesPerS.median,
				...(summary.baseline && {
					baselineVsPlainRate: summary.baseline.deliveriesPerS.median / summary.plain.deliveriesPerS.median,
					emptyVsBaselineRate: summary.empty.deliveriesPerS.median / summary.baseline.deliveriesPerS.median,
					emptyVsBaselineCpu: summary.empty.cpuMsPerDelivery.median / summary.baseline.cpuMsPerDelivery.median,
				}),
			},
		};
		return { json: results, markdown: markdown(results) };
	} finally {
		await n8n.dispose();
		await baseline?.dispose();
		fs.rmSync(packDir, { recursive: true, force: true });
	}
}

module.exports = { run };
