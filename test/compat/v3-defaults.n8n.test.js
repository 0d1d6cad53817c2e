'use strict';
// n8n 3.0's defaults on the n8n the harness runs (N8N_VERSION; the
// `2.41.1-v3-defaults` row of `npm run test:compat` runs it on 2.41.1), in
// regular mode: the package installed by hand loads with
// N8N_UNVERIFIED_PACKAGES_ENABLED=false; media sends from binary input in
// `filesystem` mode with SSRF protection on and the sandbox's address
// allowed; the polling trigger with n8n's durable scheduler and cursors,
// across a restart and under polls slower than their interval; then SSRF
// protection without the allowance, where the node must name the setting.
// Each test prints one line of counts. v3-defaults.js says where each
// setting comes from.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const { N8N_VERSION, NODE_TYPES, PACKAGE_NAME, waitFor, workflows: w } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { V3_ENV, SENT_MEDIA, mediaWorkflow, expectMediaStored } = require('./v3-defaults');

const IDS = { media: 'v3MediaSends0001', polling: 'v3PollingTrig001' };
const TRIGGER = 'Poll messages';
const POLL_EVERY_S = 5;
/** Polls that find nothing new, to see that nothing else shows up. */
const QUIET_POLLS_MS = 3 * POLL_EVERY_S * 1000;
/** Every API answer this late makes each poll outlast its interval. */
const SLOW_API_MS = 2 * POLL_EVERY_S * 1000;
const pollTimes = {
	item: Array.from({ length: 60 / POLL_EVERY_S }, (_, index) => ({ mode: 'custom', cronExpression: `${index * POLL_EVERY_S} * * * * *` })),
};

/** n8n's deprecation notice, printed at start while the variable is unset. */
const UNVERIFIED_WARNING = 'N8N_UNVERIFIED_PACKAGES_ENABLED -> The default for this variable will change to `false`';

const report = (line) => process.stdout.write(`v3 defaults (n8n ${N8N_VERSION}): ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe("n8n 3.0's defaults, regular mode", () => {
	let ctx;
	let conversations;
	/** Message ids that existed before the polling workflow was published. */
	let before;
	/** Execution id -> the message ids it emitted. */
	const emittedBy = new Map();

	async function pollExecutions() {
		return (await ctx.n8n.listExecutions({ workflowId: IDS.polling })).sort((a, b) => Number(a.id) - Number(b.id));
	}

	async function emitted() {
		for (const execution of await pollExecutions()) {
			if (emittedBy.has(execution.id) || execution.status !== 'success') continue;
			const full = await ctx.n8n.api.getExecution(execution.id);
			emittedBy.set(execution.id, full.data.resultData.runData[TRIGGER][0].data.main[0].map((item) => item.json.id));
		}
		return [...emittedBy.keys()].sort((a, b) => Number(a) - Number(b)).flatMap((id) => emittedBy.get(id));
	}

	async function expectedSoFar() {
		const all = await ctx.client.listAll('/messages');
		return all.filter((message) => !before.has(message.id)).reverse().map((message) => message.id);
	}

	async function waitForEmitted(count, what) {
		try {
			await waitFor(async () => ((await emitted()).length >= count ? true : undefined), { what, timeoutMs: 150_000, intervalMs: 1000 });
		} catch (error) {
			// What n8n did instead, for the failure message.
			const runs = (await pollExecutions()).map((e) => `${e.id}:${e.status}`).join(', ') || 'none';
			const polls = (await ctx.client.control('GET', '/stats')).by_route['GET /messages'] ?? 0;
			const cursor = JSON.stringify(pollerStateRows(IDS.polling).map((row) => row.cursor));
			throw new Error(`${error.message}; executions: ${runs}; GET /messages: ${polls}; durable cursor: ${cursor}\n${ctx.n8n.serverLogTail(30)}`);
		}
	}

	/** Every message created since publishing came out once, oldest first; returns [emitted, distinct]. */
	async function expectExactlyOnceInOrder() {
		const expected = await expectedSoFar();
		const got = await emitted();
		expect(got).toEqual(expected);
		expect(new Set(got).size).toBe(got.length);
		return [got.length, new Set(got).size];
	}

	async function inbound(count, label) {
		return await Promise.all(
			Array.from({ length: count }, (_, n) =>
				ctx.client.control('POST', '/inbound', { conversation_id: conversations[n % conversations.length], text: `${label} ${n}` }),
			),
		);
	}

	/** Rows of n8n's poller_state table (the durable cursors), read from its sqlite database. */
	function pollerStateRows(workflowId) {
		const { install, userFolder } = ctx.n8n;
		const script = `
			const sqlite3 = require('sqlite3');
			const db = new sqlite3.Database(process.argv[1], sqlite3.OPEN_READONLY);
			db.all('SELECT * FROM poller_state WHERE "workflowId" = ?', [process.argv[2]], (error, rows) => {
				if (error) { console.error(error.message); process.exit(1); }
				console.log(JSON.stringify(rows));
			});`;
		const result = spawnSync(install.nodeBin, ['-e', script, path.join(userFolder, '.n8n', 'database.sqlite'), workflowId], {
			cwd: path.join(install.cacheDir, `n8n-${install.version}`),
			encoding: 'utf8',
			timeout: 30_000,
		});
		if (result.status !== 0) throw new Error(`reading poller_state failed: ${result.stderr}`);
		return JSON.parse(result.stdout);
	}

	beforeAll(async () => {
		ctx = await openContext({ n8nEnv: { ...V3_ENV } });
		const { n8n, credential, client } = ctx;
		conversations = (await client.listAll('/conversations')).slice(0, 10).map((c) => c.id);
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows([
			mediaWorkflow(w, { id: IDS.media, credential, conversationId: conversations[0] }),
			w.workflow({
				id: IDS.polling,
				name: 'v3 defaults: polling trigger',
				nodes: [
					w.node(TRIGGER, `${PACKAGE_NAME}.omnichannelPollingTrigger`, { event: 'newMessage', maxItems: 500, pollTimes }, {
						credentials: { omnichannelApi: { id: credential.id, name: credential.name } },
					}),
				],
				connections: [],
			}),
		]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await ctx?.client.control('DELETE', '/faults').catch(() => undefined);
		await ctx?.close();
	});

	test(
		'N8N_UNVERIFIED_PACKAGES_ENABLED=false: the package installed by hand in ~/.n8n/nodes still loads on 2.x',
		async () => {
			const types = (await ctx.n8n.api.nodeTypes()).map((type) => type.name);
			const ours = [NODE_TYPES.action, NODE_TYPES.trigger, `${PACKAGE_NAME}.omnichannelPollingTrigger`];
			const loaded = ours.filter((name) => types.includes(name));
			// The editor reads this setting to offer, or not, the install of unverified packages.
			const settings = await ctx.n8n.api.rest('GET', '/settings');
			report(
				`unverified packages disabled: ${loaded.length}/${ours.length} of our node types loaded; the editor's unverifiedCommunityNodesEnabled is ${settings.unverifiedCommunityNodesEnabled}`,
			);
			expect(loaded).toEqual(ours);
			expect(settings.unverifiedCommunityNodesEnabled).toBe(false);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'media sends from binary input in filesystem mode, SSRF protection on with 127.0.0.1/32 allowed',
		async () => {
			const { n8n, client } = ctx;
			const runs = 2;
			let intact = 0;
			for (let run = 0; run < runs; run++) intact += await expectMediaStored(client, await n8n.api.runManually(IDS.media, { trigger: 'Start' }));
			// Filesystem mode writes each execution's binary data under the storage path.
			const stored = spawnSync('find', [path.join(n8n.userFolder, '.n8n', 'storage'), '-type', 'f'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
			report(`binary data filesystem, SSRF allowed: ${intact}/${runs * SENT_MEDIA.length} media messages stored with the sent bytes' sha256; ${stored.length} files in the storage folder`);
			expect(stored.length).toBeGreaterThan(0);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'polling trigger with durable cursors: nothing lost or doubled across an n8n restart and under polls slower than their interval',
		async () => {
			const { n8n, client } = ctx;
			before = new Set((await client.listAll('/messages')).map((m) => m.id));
			await n8n.publishWorkflow(IDS.polling);
			// The first poll records where to start, in n8n's durable cursor table
			// (the row itself appears when that poll begins, before it reads the API).
			await waitFor(async () => (pollerStateRows(IDS.polling).some((row) => String(row.cursor).includes('pollState')) ? true : undefined), {
				what: 'the first poll to store its durable cursor',
				timeoutMs: 90_000,
				intervalMs: 1000,
			});
			await inbound(30, 'Before the restart');
			await waitForEmitted(30, 'the 30 messages before the restart');

			await n8n.stop();
			await inbound(20, 'While n8n was down');
			await n8n.start();
			await waitForEmitted(50, 'the 20 messages created while n8n was down');
			await sleep(QUIET_POLLS_MS);
			const [afterRestart] = await expectExactlyOnceInOrder();

			// Polls that outlast their interval: the API answers late.
			const failedBefore = (await pollExecutions()).filter((e) => e.status === 'error').length;
			await client.control('PUT', '/faults', { latency_ms: SLOW_API_MS });
			try {
				await inbound(15, 'Slow API');
				await waitForEmitted(65, 'the 15 messages while the API is slow');
				await sleep(QUIET_POLLS_MS);
			} finally {
				await client.control('DELETE', '/faults');
			}
			await sleep(QUIET_POLLS_MS);
			const [total, distinct] = await expectExactlyOnceInOrder();
			const failedPolls = (await pollExecutions()).filter((e) => e.status === 'error').length - failedBefore;
			const cursors = pollerStateRows(IDS.polling).length;
			report(
				`polling, durable cursors: ${afterRestart}/50 messages once across the restart, ${total - afterRestart}/15 with the API ${SLOW_API_MS} ms slow; ${total} emitted, ${distinct} distinct, ${failedPolls} failed polls, ${cursors} durable cursor row(s)`,
			);
			expect(failedPolls).toBe(0);
			await n8n.unpublishWorkflow(IDS.polling);
		},
		2 * TEST_TIMEOUT_MS,
	);

	test(
		'SSRF protection on without the API allowed: the node names the setting to change, and nothing is sent (N8N_UNVERIFIED_PACKAGES_ENABLED unset: n8n warns at start)',
		async () => {
			const { n8n, client } = ctx;
			await n8n.stop();
			// Also N8N_UNVERIFIED_PACKAGES_ENABLED unset, as on a 2.x left at its defaults: what does n8n say at start?
			const { N8N_SSRF_ALLOWED_IP_RANGES: _allowed, N8N_UNVERIFIED_PACKAGES_ENABLED: _unverified, ...blocked } = n8n.extraEnv;
			n8n.extraEnv = blocked;
			const logFrom = fs.statSync(n8n.logFile).size;
			await n8n.start();
			const startLog = fs.readFileSync(n8n.logFile, 'utf8').slice(logFrom);
			const warned = startLog.includes(UNVERIFIED_WARNING);
			report(`N8N_UNVERIFIED_PACKAGES_ENABLED unset: the start log warns that its default will change to false: ${warned}`);
			expect(warned).toBe(true);
			await client.control('DELETE', '/stats');
			const execution = await n8n.api.runManually(IDS.media, { trigger: 'Start' });
			const { error } = execution.data.resultData;
			const requests = (await client.control('GET', '/stats')).requests;
			report(`SSRF not allowed: execution ${execution.status}, "${error?.message}", ${requests} requests reached the API`);
			expect(execution.status).toBe('error');
			expect(error.message).toBe("n8n's SSRF protection blocked the request to the Omnichannel API at 127.0.0.1");
			expect(error.description).toContain('N8N_SSRF_ALLOWED_IP_RANGES');
			expect(requests).toBe(0);
		},
		TEST_TIMEOUT_MS,
	);
});
