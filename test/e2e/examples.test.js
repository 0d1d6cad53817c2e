'use strict';
// The shipped examples/ workflows, run in the demo environment (what
// `npm run demo` starts), each checked against the sandbox's state.
const fs = require('fs');
const os = require('os');
const path = require('path');

const { freePort, nodeOutput, sandboxClient, sleep, waitFor } = require('./harness');
const { SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('./support/context');
const { startDemo, EXAMPLE_IDS } = require('../../scripts/demo-env');

const QUIET_PERIOD_MS = 3000;
const AUTO_REPLY_TEXT = /^Thanks for your message!/;

describe('examples/ in the demo environment', () => {
	let demo;
	let client;
	let userFolder;

	beforeAll(async () => {
		userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-examples-'));
		demo = await startDemo({ n8nPort: await freePort(), userFolder });
		client = sandboxClient(demo.sandbox);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await demo?.close();
		fs.rmSync(userFolder, { recursive: true, force: true });
	});

	/** Runs the daily report and checks its numbers against the sandbox for the same window. */
	async function checkDailyReport() {
		const run = await demo.n8n.executeWorkflow(EXAMPLE_IDS.dailyReport);
		expect(run.status).toBe('success');
		const [report] = nodeOutput(run, 'Compose report');
		const since = Math.floor(Date.parse(report.since) / 1000);
		const inWindow = await client.listAll('/conversations', { last_updated_at: String(since) });
		const counts = {};
		for (const { channel, status } of inWindow) counts[`${channel}/${status}`] = (counts[`${channel}/${status}`] ?? 0) + 1;

		expect(report.total).toBe(inWindow.length);
		const rows = Object.fromEntries(report.by_channel_and_status.map((r) => [`${r.channel}/${r.status}`, r.conversations]));
		expect(rows).toEqual(counts);
		expect(report.report).toContain(`: ${inWindow.length}`);
		return report;
	}

	test(
		'daily report: reports the seeded workspace, also when the window is empty',
		async () => {
			await checkDailyReport();
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'auto-reply: each customer message gets exactly one reply, as System, in its conversation',
		async () => {
			const active = new Set((await client.listAll('/channels')).filter((c) => c.is_active).map((c) => c.id));
			const conversations = (await client.listAll('/conversations')).filter((c) => active.has(c.channel_id)).slice(0, 2);
			const messages = [];
			for (const [i, conversation] of conversations.entries()) {
				messages.push(await client.control('POST', '/inbound', { conversation_id: conversation.id, text: `Where is order ${i}?` }));
			}

			const repliesTo = async (message) => {
				const all = await client.listAll('/messages', { conversation_id: message.conversation_id });
				const outbound = all.filter((m) => !m.from_customer && AUTO_REPLY_TEXT.test(m.content));
				const stored = await Promise.all(outbound.map((m) => client.control('GET', `/messages/${m.id}`)));
				return stored.filter((m) => m.reply_to_message_id === message.id);
			};
			await waitFor(async () => (await Promise.all(messages.map(repliesTo))).every((r) => r.length > 0), {
				what: 'an auto-reply to every customer message',
				timeoutMs: 30_000,
			});
			await sleep(QUIET_PERIOD_MS);
			for (const message of messages) {
				const replies = await repliesTo(message);
				expect(replies).toHaveLength(1);
				expect(replies[0]).toMatchObject({ as_system: true, from_user_id: null, client_request_id: `auto-reply-${message.id}` });
			}
			// The replies' own events are filtered out by the trigger: one execution per customer message.
			const executions = await demo.n8n.listExecutions({ workflowId: EXAMPLE_IDS.autoReply });
			expect(executions.map((e) => e.status)).toEqual(messages.map(() => 'success'));
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'daily report: counts the conversations that just had activity',
		async () => {
			const report = await checkDailyReport();
			expect(report.total).toBeGreaterThanOrEqual(2);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'CRM sync: every new lead reaches the CRM step once and is then marked contacted',
		async () => {
			const newLeads = await client.listAll('/contacts', { lead_status: 'new' });
			expect(newLeads.length).toBeGreaterThan(0);
			const run = await demo.n8n.executeWorkflow(EXAMPLE_IDS.crmSync);
			expect(run.status).toBe('success');

			const toCrm = nodeOutput(run, 'Send to your CRM');
			expect(toCrm.map((lead) => lead.omnichannel_contact_id)).toEqual(newLeads.map((c) => c.id));
			expect(toCrm[0]).toEqual({
				full_name: newLeads[0].name,
				email: newLeads[0].email,
				phone: newLeads[0].phone,
				company: newLeads[0].company,
				lead_source: newLeads[0].lead_source || 'Omnichannel',
				omnichannel_contact_id: newLeads[0].id,
			});
			expect(await client.listAll('/contacts', { lead_status: 'new' })).toEqual([]);
			for (const lead of newLeads) {
				expect(await client.api('GET', `/contacts/${lead.id}`)).toMatchObject({ lead_status: 'contacted', name: lead.name });
			}
		},
		TEST_TIMEOUT_MS,
	);
});
