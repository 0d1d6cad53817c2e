'use strict';
// The Omnichannel Polling Trigger in a published workflow of a real n8n,
// against the sandbox: publishing emits nothing; bursts (500 messages at once;
// 1,200 between two polls with Max Items 500), an n8n restart and an
// API outage between polls; every message comes exactly once, oldest first,
// across all executions. Then new contacts, new conversations and conversation
// activity, each event in a workflow of its own. The burst's 500 requests go out at once; how close
// together the sandbox stores them depends on the machine (printed).
//
// n8n refuses a poll time that fires more than once a minute, but checks each
// poll time on its own (n8n-workflow's isSubMinuteCron: a 6-field cron whose
// seconds field is a plain number fires once a minute). Twelve poll times at
// seconds 0, 5, ..., 55 therefore poll every 5 seconds without waiting minutes.
// Each activation (publish, n8n start) also polls at once.
const { PACKAGE_NAME, waitFor, workflows: w } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');

const WORKFLOW_ID = 'e2ePolling000001';
const TRIGGER = 'Poll messages';
const NODE_TYPE = `${PACKAGE_NAME}.omnichannelPollingTrigger`;
const POLL_EVERY_S = 5;
const MAX_ITEMS = 500;
/** Polls that find nothing new, to see that nothing else shows up. */
const QUIET_POLLS_MS = 2 * POLL_EVERY_S * 1000;

const pollTimes = {
	item: Array.from({ length: 60 / POLL_EVERY_S }, (_, index) => ({ mode: 'custom', cronExpression: `${index * POLL_EVERY_S} * * * * *` })),
};

describe('Omnichannel Polling Trigger in a published n8n workflow', () => {
	let ctx;
	let conversations;
	/** Ids of the messages that existed when the workflow was first published. */
	let before;
	/** Execution id -> the message ids it emitted (finished executions only). */
	const emittedBy = new Map();
	/** The other events, each in a workflow of its own (published in the last test). */
	/** Unpublished workflows for Fetch Test Event: customer messages; a conversation without messages. */
	const FETCH = { customer: 'e2ePollFetch0001', none: 'e2ePollFetch0002' };
	const OTHER = {
		contacts: { id: 'e2ePollContacts1', parameters: { event: 'newContact', maxItems: MAX_ITEMS, pollTimes } },
		newConversations: {
			id: 'e2ePollConvNew01',
			parameters: { event: 'conversation', conversationChanges: 'newOnly', maxItems: MAX_ITEMS, pollTimes },
		},
		conversationActivity: { id: 'e2ePollConvAll01', parameters: { event: 'conversation', maxItems: MAX_ITEMS, pollTimes } },
	};

	const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

	async function executions() {
		return (await ctx.n8n.listExecutions({ workflowId: WORKFLOW_ID })).sort((a, b) => Number(a.id) - Number(b.id));
	}

	/** Every message id emitted so far, in the order of the executions and of their items. */
	async function emitted() {
		for (const execution of await executions()) {
			if (emittedBy.has(execution.id) || execution.status !== 'success') continue;
			const full = await ctx.n8n.api.getExecution(execution.id);
			const items = full.data.resultData.runData[TRIGGER][0].data.main[0];
			emittedBy.set(execution.id, items.map((item) => item.json.id));
		}
		return [...emittedBy.keys()].sort((a, b) => Number(a) - Number(b)).flatMap((id) => emittedBy.get(id));
	}

	/** Fetch Test Event: the editor's manual run of the trigger (POST /rest/workflows/:id/run), as n8n saves it. */
	async function fetchTestEvent(workflowId) {
		const { n8n } = ctx;
		const { executionId } = await n8n.api.rest('POST', `/workflows/${workflowId}/run`, {
			triggerToStartFrom: { name: TRIGGER },
			destinationNode: { nodeName: TRIGGER, mode: 'inclusive' },
		});
		const execution = await waitFor(
			async () => {
				const one = await n8n.api.getExecution(executionId);
				return one.finished || one.stoppedAt ? one : undefined;
			},
			{ what: `the manual run ${executionId}`, timeoutMs: 60_000, intervalMs: 500 },
		);
		expect(execution.mode).toBe('manual');
		return execution;
	}

	/** The records each successful execution of a workflow emitted, in execution order. */
	async function emittedIn(workflowId) {
		const runs = (await ctx.n8n.listExecutions({ workflowId })).sort((a, b) => Number(a.id) - Number(b.id));
		const records = [];
		for (const run of runs) {
			expect(run.status).toBe('success');
			const full = await ctx.n8n.api.getExecution(run.id);
			records.push(...full.data.resultData.runData[TRIGGER][0].data.main[0].map((item) => item.json));
		}
		return records;
	}

	/** The sandbox's messages created since the first publish, oldest first (its clock never repeats a millisecond). */
	async function expectedSoFar() {
		const all = await ctx.client.listAll('/messages');
		return all.filter((message) => !before.has(message.id)).reverse().map((message) => message.id);
	}

	async function waitForEmitted(count, what) {
		return await waitFor(async () => ((await emitted()).length >= count ? true : undefined), {
			what,
			timeoutMs: 120_000,
			intervalMs: 1000,
		});
	}

	/** Everything created so far came out exactly once, oldest first, across all executions. */
	async function expectExactlyOnceInOrder() {
		const expected = await expectedSoFar();
		const got = await emitted();
		expect(new Set(got).size).toBe(got.length);
		expect(got).toEqual(expected);
		return expected.length;
	}

	/** `count` customer messages, all requested at once, spread over the conversations. */
	async function inbound(count, label) {
		return await Promise.all(
			Array.from({ length: count }, (_, n) =>
				ctx.client.control('POST', '/inbound', { conversation_id: conversations[n % conversations.length], text: `${label} ${n}` }),
			),
		);
	}

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		conversations = (await client.listAll('/conversations')).slice(0, 10).map((c) => c.id);
		const channel = (await client.listAll('/channels')).find((c) => c.is_active);
		const silent = await client.control('POST', '/conversations', { channel_id: channel.id });
		await n8n.importCredentials([credential]);
		const pollingWorkflow = (id, parameters) =>
			w.workflow({
				id,
				name: `E2E polling trigger ${id}`,
				nodes: [w.node(TRIGGER, NODE_TYPE, parameters, { credentials: { omnichannelApi: { id: credential.id, name: credential.name } } })],
				connections: [],
			});
		await n8n.importWorkflows([
			...Object.values(OTHER).map(({ id, parameters }) => pollingWorkflow(id, parameters)),
			pollingWorkflow(FETCH.customer, { event: 'newMessage', messageFilters: { directions: ['customer'] }, pollTimes }),
			pollingWorkflow(FETCH.none, {
				event: 'newMessage',
				messageFilters: { conversationId: { __rl: true, mode: 'id', value: silent.id } },
				pollTimes,
			}),
			w.workflow({
				id: WORKFLOW_ID,
				name: 'E2E polling trigger',
				nodes: [
					w.node(
						TRIGGER,
						NODE_TYPE,
						{ event: 'newMessage', maxItems: MAX_ITEMS, pollTimes },
						{ credentials: { omnichannelApi: { id: credential.id, name: credential.name } } },
					),
				],
				connections: [],
			}),
		]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
	}, SETUP_TIMEOUT_MS);

	afterAll(() => ctx?.close());

	test(
		'publishing emits nothing: the first poll only records where to start; idle polls read one page',
		async () => {
			before = new Set((await ctx.client.listAll('/messages')).map((m) => m.id));
			expect(before.size).toBeGreaterThan(100);
			await ctx.client.control('DELETE', '/stats');
			await ctx.n8n.publishWorkflow(WORKFLOW_ID);
			// The activation poll and a few scheduled ones.
			await waitFor(async () => ((await ctx.client.control('GET', '/stats')).by_route['GET /messages'] ?? 0) >= 3, {
				what: 'three polls of the messages',
				timeoutMs: 60_000,
			});
			const stats = await ctx.client.control('GET', '/stats');
			// One request per poll: every request so far asked for page 1.
			expect(Object.keys(stats.by_route)).toEqual(['GET /messages']);
			expect(await executions()).toEqual([]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a burst of 500 messages, all requested at once: each emitted once, oldest first',
		async () => {
			const burst = await inbound(500, 'Burst');
			const times = burst.map((message) => Date.parse(message.created_at));
			await waitForEmitted(500, 'the 500 messages of the burst');
			await sleep(QUIET_POLLS_MS);
			expect(await expectExactlyOnceInOrder()).toBe(500);
			// For the report: the spread of the burst's created_at (the sandbox's clock).
			process.stdout.write(`polling e2e: 500 messages created within ${Math.max(...times) - Math.min(...times)} ms\n`);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'1,200 messages between two polls with Max Items 500: executions of 500, 500 and 200, nothing skipped',
		async () => {
			const { n8n } = ctx;
			const executionsBefore = (await executions()).length;
			// No poll runs while the messages are created: the next poll is the activation's.
			await n8n.unpublishWorkflow(WORKFLOW_ID);
			await inbound(1200, 'Backlog');
			await n8n.publishWorkflow(WORKFLOW_ID);
			await waitForEmitted(1700, 'the 1,200 messages of the backlog');
			await sleep(QUIET_POLLS_MS);
			expect(await expectExactlyOnceInOrder()).toBe(1700);
			const sizes = (await executions()).slice(executionsBefore).map((execution) => emittedBy.get(execution.id).length);
			expect(sizes).toEqual([500, 500, 200]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'an n8n restart between polls: the messages of the downtime come once when it is back',
		async () => {
			const { n8n } = ctx;
			await n8n.stop();
			await inbound(40, 'While n8n was down');
			await n8n.start();
			await waitForEmitted(1740, 'the messages created while n8n was down');
			await sleep(QUIET_POLLS_MS);
			expect(await expectExactlyOnceInOrder()).toBe(1740);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'an API outage between polls: the poll fails visibly in n8n, and the next one catches up',
		async () => {
			const { client } = ctx;
			const failedBefore = (await executions()).filter((execution) => execution.status === 'error').length;
			await client.control('PUT', '/faults', { error_rate: 1, error_status: 500 });
			let during;
			try {
				during = await inbound(25, 'During the outage');
				await waitFor(async () => (await executions()).filter((execution) => execution.status === 'error').length > failedBefore, {
					what: 'a failed poll recorded by n8n',
					timeoutMs: 90_000,
					intervalMs: 1000,
				});
			} finally {
				await client.control('DELETE', '/faults');
			}
			const failed = (await executions()).filter((execution) => execution.status === 'error').at(-1);
			const details = await ctx.n8n.api.getExecution(failed.id);
			expect(details.data.resultData.error.message).toMatch(/Omnichannel API failed with status 500/);
			await waitForEmitted(1740 + during.length, 'the messages created during the outage');
			await sleep(QUIET_POLLS_MS);
			expect(await expectExactlyOnceInOrder()).toBe(1765);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'new contacts, new conversations and conversation activity: each once, oldest first',
		async () => {
			const { client, n8n } = ctx;
			for (const { id } of Object.values(OTHER)) await n8n.publishWorkflow(id);
			for (const { id } of Object.values(OTHER)) {
				await waitFor(async () => JSON.stringify((await n8n.api.getWorkflow(id)).staticData ?? {}).includes('pollState'), {
					what: `the first poll of ${id}`,
					timeoutMs: 60_000,
				});
			}

			const contacts = await Promise.all(
				Array.from({ length: 30 }, (_, n) => client.api('POST', '/contacts', { name: `Polled contact ${n}`, lead_status: 'new' })),
			);
			const channel = (await client.listAll('/channels')).find((c) => c.is_active);
			// Each new conversation also creates its customer: a new contact too.
			const started = [];
			for (let n = 0; n < 3; n++) started.push(await client.control('POST', '/conversations', { channel_id: channel.id }));
			const touched = conversations.slice(0, 4);
			await Promise.all(touched.map((id, n) => client.control('POST', '/inbound', { conversation_id: id, text: `Activity ${n}` })));

			const newContacts = [...contacts.map((c) => c.id), ...started.map((c) => c.customer_id)];
			await waitFor(async () => ((await emittedIn(OTHER.contacts.id)).length >= newContacts.length ? true : undefined), {
				what: 'the new contacts',
				timeoutMs: 90_000,
				intervalMs: 1000,
			});
			await waitFor(async () => ((await emittedIn(OTHER.newConversations.id)).length >= started.length ? true : undefined), {
				what: 'the new conversations',
				timeoutMs: 90_000,
				intervalMs: 1000,
			});
			await sleep(QUIET_POLLS_MS);

			// Contacts: every new one once, oldest first (the sandbox's created_at order).
			const all = await client.listAll('/contacts');
			const expectedContacts = all.filter((c) => newContacts.includes(c.id)).reverse().map((c) => c.id);
			expect((await emittedIn(OTHER.contacts.id)).map((c) => c.id)).toEqual(expectedContacts);
			// New only: the three started conversations, once each, whatever activity followed.
			expect((await emittedIn(OTHER.newConversations.id)).map((c) => c.id)).toEqual(started.map((c) => c.id));
			// New and updated: every conversation with activity, each state (id, updated_at) once.
			const activity = await emittedIn(OTHER.conversationActivity.id);
			const states = activity.map((c) => `${c.id}@${c.updated_at}`);
			expect(new Set(states).size).toBe(states.length);
			const latest = new Map(activity.map((c) => [c.id, c.updated_at]));
			for (const id of [...touched, ...started.map((c) => c.id)]) {
				expect(latest.get(id)).toBe((await client.listAll('/conversations')).find((c) => c.id === id).updated_at);
			}
			for (const { id } of Object.values(OTHER)) await n8n.unpublishWorkflow(id);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'Fetch Test Event: the newest matching message, no state written; a clear message when there is none',
		async () => {
			const { client, n8n } = ctx;
			const newestCustomer = (await client.api('GET', '/messages?per_page=100')).data.find((m) => m.from_customer);
			const run = await fetchTestEvent(FETCH.customer);
			expect(run.status).toBe('success');
			expect(run.data.resultData.runData[TRIGGER][0].data.main[0].map((item) => item.json.id)).toEqual([newestCustomer.id]);
			expect(JSON.stringify((await n8n.api.getWorkflow(FETCH.customer)).staticData ?? {})).not.toContain('pollState');

			const none = await fetchTestEvent(FETCH.none);
			expect(none.status).toBe('error');
			expect(none.data.resultData.error.message).toMatch(/^No message to show yet in conversation conv_/);
		},
		TEST_TIMEOUT_MS,
	);
});
