'use strict';
// The trigger in n8n's queue mode (private PostgreSQL and Redis, main, two
// workers, webhook process) on the days operators dread: a worker killed with
// SIGKILL in the middle of an execution and the crashed execution retried,
// and Redis and PostgreSQL stopped and restarted while deliveries arrive.
// Every event runs downstream exactly once, counted in the sandbox.
const crypto = require('crypto');

const { sleep, waitFor, workflows: w } = require('../../harness');
const { openQueueContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { customerMessageEvent } = require('../support/n8n/signed-events');

const TEST_TIMEOUT_MS = 6 * 60 * 1000;
/** Time for anything that should not happen (a second run) to show up. */
const QUIET_PERIOD_MS = 5000;
/** After a blip, how long nothing may change before the events not run yet are taken as n8n's residue. */
const STABLE_MS = 15_000;
const SIGNING_SECRET = `whsec_${crypto.randomBytes(24).toString('base64')}`;
const SIGNING_CREDENTIAL = { id: 'faultsSigningCred', name: 'Faults signing secret', type: 'omnichannelWebhookSigningApi', data: { signingSecret: SIGNING_SECRET } };
/** Short delivery retries, so events refused during a blip are delivered again soon. */
const RETRY_SCHEDULE_MS = Array(40).fill(2000);
/** Redis stays down well under the ~10 s after which n8n processes exit. */
const DOWN_MS = 4000;
const BLIP_EVENTS = 30;
const PACE_MS = 250;

const IDS = { crash: 'faultCrashWait01', blip: 'faultBlipAuto001' };
/** Statuses of an execution n8n failed on its own, before any of our nodes ran: Retry runs it. */
const LOST_BY_N8N = new Set(['error', 'crashed']);
const TRIGGER = 'On customer message';

const started = Date.now();
let ctx;
let cluster;
let sandbox;
let client;
let credential;
let markerConversation;
let inboundConversation;
let crashPath;

const newEventId = () => `evt_${crypto.randomBytes(10).toString('hex')}`;

async function deliver(eventId) {
	const { headers, body } = customerMessageEvent({ secret: SIGNING_SECRET, eventId, appId: sandbox.app_id, conversationId: inboundConversation, content: 'crash' })();
	const response = await fetch(`${cluster.webhook.baseUrl}/webhook/${crashPath}`, { method: 'POST', headers, body });
	await response.text();
	return response.status;
}

/** Delivers a new event to the crash workflow and resolves, once a worker started its execution, to that worker and the execution id. */
async function startOnWorker(eventId) {
	const seenBefore = new Set(cluster.workerExecutionIds().flatMap((ids) => [...ids]));
	expect(await waitFor(async () => ((await deliver(eventId)) === 200 ? 200 : undefined), { what: 'the published crash workflow', timeoutMs: 60_000, intervalMs: 1000 })).toBe(200);
	// The worker's log names the execution it started; it then waits 10 s.
	return await waitFor(
		() => {
			const ran = cluster.workerExecutionIds();
			const index = ran.findIndex((ids) => [...ids].some((id) => !seenBefore.has(id)));
			return index === -1 ? undefined : { worker: cluster.workers[index], executionId: [...ran[index]].find((id) => !seenBefore.has(id)) };
		},
		{ what: 'the execution on a worker', timeoutMs: 60_000 },
	);
}

async function markerCounts() {
	const messages = await client.listAll('/messages', { conversation_id: markerConversation });
	const counts = new Map();
	for (const message of messages) counts.set(message.content, (counts.get(message.content) ?? 0) + 1);
	return counts;
}

/**
 * After a blip, whether nothing more can come: every event's delivery was answered 2xx (the sandbox retries no
 * more), no execution of the workflow is running, and the counts and the executions' statuses stayed the same
 * for STABLE_MS. An event n8n failed or left queued on its own never runs, and waiting out the whole bound for
 * it cost the suite three minutes.
 */
function nothingMoreAfterBlip() {
	let last = '';
	let sameSince = Date.now();
	return async (counts) => {
		const attempts = (await client.control('GET', '/deliveries')).filter((attempt) => attempt.url.startsWith(cluster.webhook.baseUrl));
		const answered = new Set(attempts.filter((attempt) => attempt.status >= 200 && attempt.status < 300).map((attempt) => attempt.event_id));
		const owed = attempts.some((attempt) => !answered.has(attempt.event_id));
		const statuses = (await cluster.main.listExecutions({ workflowId: IDS.blip })).map((execution) => `${execution.id}:${execution.status}`).sort();
		const state = JSON.stringify([[...counts.entries()].sort(), statuses]);
		if (state !== last || owed || statuses.some((status) => status.endsWith(':running'))) {
			last = state;
			sameSince = Date.now();
			return false;
		}
		return Date.now() - sameSince >= STABLE_MS;
	};
}

/** Waits (bounded) for every text, or until `nothingMore(counts)` says no more can come; returns without throwing so the counts get printed either way. */
async function settle(texts, timeoutMs, label, nothingMore = async () => false) {
	await waitFor(async () => {
		const counts = await markerCounts();
		return texts.every((text) => counts.has(text)) || (await nothingMore(counts));
	}, { what: `${texts.length} downstream run(s)`, timeoutMs, intervalMs: 1000 }).catch((error) => console.log(`faults: ${label}: ${error.message}`));
	await sleep(QUIET_PERIOD_MS);
	return await markerCounts();
}

function histogramOf(runs) {
	const histogram = {};
	for (const r of runs) histogram[r] = (histogram[r] ?? 0) + 1;
	return histogram;
}

function workflows() {
	const marker = (text) =>
		w.omnichannelNode('Count run', credential, { resource: 'message', operation: 'sendText', conversationId: w.byId(markerConversation), text });
	return [
		w.workflow({
			id: IDS.crash,
			name: 'Fault suite: crash during a Wait',
			nodes: [
				w.omnichannelTrigger(TRIGGER, credential, { events: ['message.created'], registration: 'manual' }, {
					credentials: { omnichannelWebhookSigningApi: { id: SIGNING_CREDENTIAL.id, name: SIGNING_CREDENTIAL.name } },
				}),
				w.node('Wait', 'n8n-nodes-base.wait', { amount: 10, unit: 'seconds' }, { typeVersion: 1.1, webhookId: crypto.randomUUID() }),
				marker("={{ 'crash ' + $json.id }}"),
			],
			connections: w.chain(TRIGGER, 'Wait', 'Count run'),
		}),
		w.workflow({
			id: IDS.blip,
			name: 'Fault suite: Redis and Postgres blips',
			nodes: [w.omnichannelTrigger(TRIGGER, credential, { events: ['message.created'], options: { directions: ['customer'] } }), marker("={{ 'blip-run ' + $json.data.content }}")],
			connections: w.chain(TRIGGER, 'Count run'),
		}),
	];
}

beforeAll(async () => {
	ctx = await openQueueContext({
		credential: { id: 'faultQueueCred01', name: 'Fault suite sandbox' },
		// It kills workers and restarts Redis and PostgreSQL: a cluster of its own.
		ownCluster: true,
		setUp: async (opened) => {
			({ sandbox, client, credential } = opened);
			const active = new Set((await client.listAll('/channels')).filter((c) => c.is_active).map((c) => c.id));
			[inboundConversation, markerConversation] = (await client.listAll('/conversations')).filter((c) => active.has(c.channel_id)).map((c) => c.id);
			const all = workflows();
			crashPath = `${all.find((wf) => wf.id === IDS.crash).nodes[0].webhookId}/omnichannel`;
			return { credentials: [SIGNING_CREDENTIAL], workflows: all, publish: all.map(({ id }) => id) };
		},
	});
	cluster = ctx.cluster;
	await waitFor(async () => (await client.listAll('/webhooks')).some((h) => h.url.startsWith(cluster.webhook.baseUrl)), {
		what: 'the blip workflow’s webhook at the sandbox',
		timeoutMs: 60_000,
	});
	console.log(`faults: queue cluster up in ${Math.round((Date.now() - started) / 1000)} s`);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	try {
		await ctx?.close();
	} finally {
		console.log(`faults: queue-mode fault file took ${Math.round((Date.now() - started) / 1000)} s`);
	}
});

test(
	'a worker killed with SIGKILL during a Wait and started again: Retry of the crashed execution sends once; a duplicate delivery then runs nothing',
	async () => {
		const eventId = newEventId();
		const text = `crash ${eventId}`;
		const { worker, executionId } = await startOnWorker(eventId);
		await sleep(2000);
		await worker.kill();
		await worker.start();
		const crashed = await waitFor(
			async () => {
				const execution = await cluster.main.api.getExecution(executionId, { includeData: false });
				return execution.status === 'crashed' ? execution : undefined;
			},
			{ what: `execution ${executionId} marked crashed`, timeoutMs: 60_000, intervalMs: 1000 },
		);
		const sentBeforeRetry = (await markerCounts()).get(text) ?? 0;

		await cluster.main.api.retryExecution(crashed.id, { loadWorkflow: false });
		const afterRetry = (await settle([text], 60_000, 'crash retry')).get(text) ?? 0;

		expect(await deliver(eventId)).toBe(200);
		const afterDuplicate = (await settle([text], 20_000, 'crash duplicate')).get(text) ?? 0;
		const executions = await cluster.main.listExecutions({ workflowId: IDS.crash });
		console.log(
			`faults: crash: 1 event, execution ${executionId} ${crashed.status}; messages for it before Retry ${sentBeforeRetry}, after Retry ${afterRetry}, ` +
				`after a duplicate delivery ${afterDuplicate}; executions ${executions.map((e) => `${e.id}:${e.status}`).join(' ')}`,
		);
		expect(sentBeforeRetry).toBe(0);
		expect(afterRetry).toBe(1);
		expect(afterDuplicate).toBe(1);
	},
	TEST_TIMEOUT_MS,
);

/**
 * Measured, not asserted (n8n's own behaviour, about two minutes):
 * FAULTS_STALL_CHECK=1 runs it. A worker that does not come back before
 * n8n's stall check (its 60 s job lock plus the check; docs/trigger.md has the
 * measured time).
 */
(process.env.FAULTS_STALL_CHECK === '1' ? test : test.skip)(
	'measured: a worker killed during a Wait that does not come back before n8n’s stall check',
	async () => {
		const eventId = newEventId();
		const text = `crash ${eventId}`;
		// The other worker stays up: Bull's stall check runs in the workers.
		const { worker, executionId } = await startOnWorker(eventId);
		await sleep(2000);
		const killedAt = Date.now();
		await worker.kill();
		let execution;
		let changedAfterMs;
		try {
			execution = await waitFor(
				async () => {
					const current = await cluster.main.api.getExecution(executionId, { includeData: true });
					return current.status !== 'running' && current.status !== 'new' ? current : undefined;
				},
				{ what: `execution ${executionId} to leave "running"`, timeoutMs: 180_000, intervalMs: 2000 },
			);
			changedAfterMs = Date.now() - killedAt;
		} finally {
			await worker.start();
		}
		const runData = Object.keys(execution.data?.resultData?.runData ?? {});
		let retry;
		try {
			await cluster.main.api.retryExecution(executionId, { loadWorkflow: false });
			retry = 'accepted';
		} catch (error) {
			retry = `refused: ${error.message.slice(0, 200)}`;
		}
		const sent = (await settle([text], 30_000, 'stall retry')).get(text) ?? 0;
		console.log(
			`faults: stall check: worker killed and not restarted; execution ${executionId} became "${execution.status}" ${Math.round(changedAfterMs / 1000)} s after the kill, ` +
				`run data of [${runData.join(', ')}]; Retry ${retry}; messages for the event ${sent}`,
		);
	},
	TEST_TIMEOUT_MS,
);

describe.each([
	['Redis', () => cluster.redis],
	['PostgreSQL', () => cluster.postgres],
])('%s stopped and restarted while deliveries arrive', (name, service) => {
	test(
		`every event runs downstream exactly once after the service's retries`,
		async () => {
			await client.control('DELETE', '/deliveries');
			await client.control('PUT', '/faults', { retry_schedule_ms: RETRY_SCHEDULE_MS });
			const texts = Array.from({ length: BLIP_EVENTS }, (_, i) => `${name} blip ${i + 1} ${crypto.randomUUID().slice(0, 8)}`);
			let counts;
			try {
				let restart;
				for (const [index, text] of texts.entries()) {
					// Not awaited: deliveries keep arriving while it is down.
					if (index === Math.floor(BLIP_EVENTS / 3)) restart = service().restart(DOWN_MS);
					await client.control('POST', '/inbound', { conversation_id: inboundConversation, text });
					await sleep(PACE_MS);
				}
				await restart;
				counts = await settle(texts.map((t) => `blip-run ${t}`), 90_000, `${name} blip`, nothingMoreAfterBlip());
			} finally {
				await client.control('DELETE', '/faults');
			}
			// n8n can accept a delivery (200) and then fail the execution on its own, before any node runs: a
			// worker that lost its database connection answers "Driver not Connected" to every job until it is
			// restarted, or marks it crashed. What an operator does after such an outage: restart the workers,
			// then Retry the executions that failed or crashed.
			const failed = (await cluster.main.listExecutions({ workflowId: IDS.blip })).filter((execution) => LOST_BY_N8N.has(execution.status));
			const retried = [];
			if (failed.length > 0) {
				await cluster.restart('worker');
				for (const execution of failed) {
					await cluster.main.api.retryExecution(execution.id, { loadWorkflow: false });
					retried.push(execution.id);
				}
				counts = await settle(texts.map((t) => `blip-run ${t}`), 90_000, `${name} blip after Retry`, nothingMoreAfterBlip());
			}
			const runs = texts.map((t) => counts.get(`blip-run ${t}`) ?? 0);
			const statuses = {};
			for (const attempt of await client.control('GET', '/deliveries')) {
				if (attempt.url.startsWith(cluster.webhook.baseUrl)) statuses[attempt.status] = (statuses[attempt.status] ?? 0) + 1;
			}
			const alive = cluster.n8nProcesses.filter((p) => p.pid !== undefined && p.server.child.exitCode === null).length;
			const executions = await cluster.main.listExecutions({ workflowId: IDS.blip, includeData: true });
			const byStatus = histogramOf(executions.map((execution) => execution.status));
			const errors = executions
				.map((execution) => execution.data?.resultData?.error)
				.filter(Boolean)
				.map((error) => `${error.node?.name ?? 'n8n'}: ${String(error.message).slice(0, 160)}`);
			console.log(
				`faults: ${name} restarted (down ${DOWN_MS / 1000} s): ${BLIP_EVENTS} events, runs per event ${JSON.stringify(histogramOf(runs))}, ` +
					`delivery answers ${JSON.stringify(statuses)}, executions ${JSON.stringify(byStatus)} (${retried.length} failed in n8n, retried after restarting the workers), ` +
					`n8n processes still running ${alive}/${cluster.n8nProcesses.length}` +
					(errors.length > 0 ? `; execution errors: ${[...new Set(errors)].join(' | ')}` : ''),
			);
			// Nothing ran twice; an event that never ran is one whose execution n8n failed (or left queued) on its
			// own after accepting the delivery, which even a restart and Retry did not run: n8n's residue, printed above.
			expect(runs.filter((n) => n > 1)).toEqual([]);
			const lostByN8n = executions.filter((execution) => execution.status === 'new' || (LOST_BY_N8N.has(execution.status) && !execution.retrySuccessId)).length;
			expect(runs.filter((n) => n === 0).length).toBeLessThanOrEqual(lostByN8n);
			// With nothing n8n failed or left queued on its own, every event ran once.
			if (lostByN8n === 0) expect(histogramOf(runs)).toEqual({ 1: BLIP_EVENTS });
		},
		TEST_TIMEOUT_MS,
	);
});
