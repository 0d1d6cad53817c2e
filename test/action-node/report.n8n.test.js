'use strict';
// Report > Get in real n8n (regular mode, the run's shared n8n): the known
// day (test/support/report-world.js, America/Los_Angeles) gives exactly its
// figures, and a random workspace across a change of the clocks, grouped by
// hour, agrees with the reference written from the docs' definitions; the
// same by person (Person Names, the text) and by conversation, with the
// bot's share on every grouping; and in node version 1.1 with Business
// Hours and the previous period.
const { nodeOutput } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { REPORT_NODE, MARKDOWN_NODE, prepareReports, checkKnownDay, checkRandom, checkTrusted, checkKnownDayTeam, checkRandomTeam, checkTrustedTeam } = require('../support/n8n/report');

const counts = {};
let ctx;
let prepared;

beforeAll(async () => {
	ctx = await openContext({ sandbox: { seed: 'empty' } });
	prepared = await prepareReports(ctx.sandbox, 'e2e');
	await ctx.n8n.importCredentials(prepared.credentials);
	await ctx.n8n.importWorkflows(prepared.workflows);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	console.log(JSON.stringify({ suite: 'report (real n8n, regular mode)', ...counts }));
	await ctx?.close();
});

test(
	'the known day: every figure of every channel and the total, the waiting list, the HTML',
	async () => {
		const run = await ctx.n8n.executeWorkflow(prepared.ids.day);
		counts.knownDay = checkKnownDay(nodeOutput(run, REPORT_NODE), prepared.day);
	},
	TEST_TIMEOUT_MS,
);

test(
	'a random workspace over three days across the end of summer time in Berlin, by hour: the reference agrees',
	async () => {
		const run = await ctx.n8n.executeWorkflow(prepared.ids.random);
		counts.random = await checkRandom(nodeOutput(run, REPORT_NODE), ctx.sandbox, prepared.random);
		// 72 hours and the one the clock repeats.
		expect(counts.random.buckets).toBe(73);
		counts.randomBotShare = await checkRandomTeam(nodeOutput(run, REPORT_NODE), ctx.sandbox, prepared.random, 'hour');
	},
	TEST_TIMEOUT_MS,
);

test(
	'the known day by person: the bot\'s share, the person under the name Person Names gives, the People table, the text and how n8n\'s Markdown node renders it',
	async () => {
		const run = await ctx.n8n.executeWorkflow(prepared.ids.dayPeople);
		counts.knownDayPeople = checkKnownDayTeam(nodeOutput(run, REPORT_NODE), prepared.day, nodeOutput(run, MARKDOWN_NODE));
	},
	TEST_TIMEOUT_MS,
);

test(
	'the random workspace by conversation: one item per conversation, the reference agrees',
	async () => {
		const run = await ctx.n8n.executeWorkflow(prepared.ids.randomRows);
		counts.randomRows = await checkRandomTeam(nodeOutput(run, REPORT_NODE), ctx.sandbox, prepared.random, 'conversation');
		expect(counts.randomRows.conversationItems).toBeGreaterThan(40);
	},
	TEST_TIMEOUT_MS,
);

test(
	'version 1.1 with Business Hours (split shifts, a closed date) and the previous period, across the change of the clocks: the reference agrees',
	async () => {
		const run = await ctx.n8n.executeWorkflow(prepared.ids.trusted);
		counts.trusted = await checkTrusted(nodeOutput(run, REPORT_NODE), ctx.sandbox, prepared.random);
		expect(counts.trusted.previousCustomerMessages).toBeGreaterThan(0);
	},
	TEST_TIMEOUT_MS,
);

test(
	'version 1.1 by conversation with Business Hours and the previous period: items by the business clock, the bot\'s share compared, the text with its changes; the reference agrees',
	async () => {
		const run = await ctx.n8n.executeWorkflow(prepared.ids.trustedRows);
		counts.trustedRows = await checkTrustedTeam(nodeOutput(run, REPORT_NODE), ctx.sandbox, prepared.random);
		// Not vacuous: the business clock changed some conversation's time.
		expect(counts.trustedRows.businessClockRows).toBeGreaterThan(0);
	},
	TEST_TIMEOUT_MS,
);
