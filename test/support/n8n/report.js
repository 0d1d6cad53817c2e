'use strict';
// What the real-n8n report files share (regular mode in
// test/action-node/report.n8n.test.js, queue mode in
// test/queue-mode/report.n8n.test.js): the known day and a random workspace
// built in the file's sandbox, each with a credential of its own workspace,
// the workflows that report them (Manual Trigger -> Report > Get, in the
// workspaces' time zone), and the checks of the output against the known
// figures and against the reference.
const { omnichannelCredential, sandboxClient, workflows: w } = require('../../../harness');
const { knownDay, randomWorkspace, localMidnight } = require('../report-world');
const { referenceReport, referenceReportV11, referenceComparison, compareWithReference, compareTeamWithReference, withBotShare } = require('../report-reference');

const REPORT_NODE = 'Report';
const RANDOM = { seed: 4242, timeZone: 'Europe/Berlin', date: '2026-10-24', endDate: '2026-10-27', groupBy: 'hour', targetMinutes: 10 };
/** The random workspace again in node version 1.1, with Business Hours (split shifts, a closed date) and the previous period. */
const TRUSTED = { businessHours: 'Mon-Fri 09:00-12:30, 13:30-18:00; Sat-Sun 01:30-02:30, 10:00-14:00', closedDates: '2026-10-26', firstResponseTargetMinutes: 30, replyTargetMinutes: 10 };

function reportWorkflow(id, credential, timeZone, parameters, typeVersion = 1) {
	const built = w.workflow({
		id,
		name: `Report ${id}`,
		nodes: [w.manualTrigger(), w.omnichannelNode(REPORT_NODE, credential, { resource: 'report', operation: 'get', ...parameters }, { typeVersion })],
		connections: w.chain('Start', REPORT_NODE),
	});
	return { ...built, settings: { ...built.settings, timezone: timeZone } };
}

/**
 * Builds both workspaces in `sandbox` and returns the credentials and
 * workflows to import (ids prefixed with `prefix`, 4 characters), and what
 * the checks need.
 */
async function prepareReports(sandbox, prefix) {
	const day = await knownDay(sandbox);
	const startMs = localMidnight(RANDOM.date, RANDOM.timeZone);
	const endMs = localMidnight(RANDOM.endDate, RANDOM.timeZone);
	const random = await randomWorkspace(sandbox, { seed: RANDOM.seed, startMs, endMs, conversations: 80 });
	const credentials = {
		day: omnichannelCredential({ id: `${prefix}ReportDay00`.padEnd(16, '0'), name: `${prefix} report known day`, baseUrl: sandbox.base_url, apiKey: day.key }),
		random: omnichannelCredential({ id: `${prefix}ReportRnd00`.padEnd(16, '0'), name: `${prefix} report random`, baseUrl: sandbox.base_url, apiKey: random.key }),
	};
	const ids = { day: `${prefix}ReportDayWf`.padEnd(16, '0'), random: `${prefix}ReportRndWf`.padEnd(16, '0'), trusted: `${prefix}ReportTrsWf`.padEnd(16, '0'), ...teamWorkflowIds(prefix) };
	const workflows = [
		reportWorkflow(ids.day, credentials.day, day.timeZone, { period: 'custom', after: day.period.after, before: day.period.before, includeHtml: true }),
		reportWorkflow(ids.random, credentials.random, RANDOM.timeZone, {
			period: 'custom',
			after: `${RANDOM.date}T00:00:00`,
			before: `${RANDOM.endDate}T00:00:00`,
			groupBy: RANDOM.groupBy,
			options: { targetMinutes: RANDOM.targetMinutes },
		}),
		reportWorkflow(
			ids.trusted,
			credentials.random,
			RANDOM.timeZone,
			{
				period: 'custom',
				after: `${RANDOM.date}T00:00:00`,
				before: `${RANDOM.endDate}T00:00:00`,
				groupBy: RANDOM.groupBy,
				includeHtml: true,
				options: { businessHours: TRUSTED.businessHours, closedDates: TRUSTED.closedDates, compareWith: 'previousPeriod', targetMinutes: TRUSTED.firstResponseTargetMinutes, replyTargetMinutes: TRUSTED.replyTargetMinutes },
			},
			1.1,
		),
		...teamWorkflows(ids, credentials, day),
	];
	return { day, random: { ...random, startMs, endMs }, credentials: Object.values(credentials), workflows, ids };
}

const figures = (item) => {
	const { scope, channelId, channelName, channelType, channelActive, periodStart, periodEnd, timeZone, waiting, html, ...rest } = item;
	return rest;
};

/** The known day's output, compared field by field with what was built; returns counts to print. */
function checkKnownDay(items, day) {
	const channels = items.filter((item) => item.scope === 'channel');
	const total = items.find((item) => item.scope === 'total');
	expect(items.map((item) => item.scope)).toEqual(['channel', 'channel', 'channel', 'channel', 'total']);
	expect(Object.fromEntries(channels.map((item) => [item.channelName, figures(item)]))).toEqual(day.expected.channels);
	expect(figures(total)).toEqual(day.expected.total);
	expect(channels.find((item) => item.channelId === day.expected.inactive)).toMatchObject({ channelActive: false });
	expect([Date.parse(total.periodStart), Date.parse(total.periodEnd)]).toEqual([day.startMs, day.endMs]);
	expect(total.waiting.map((entry) => ({ conversationId: entry.conversationId, channelId: entry.channelId, minutesWaited: entry.minutesWaited, sinceMs: Date.parse(entry.since) }))).toEqual(day.expected.waiting);
	expect(total.html).toContain('Acme Telegram');
	return { channels: channels.length, customerMessages: total.customerMessages, firstResponses: total.firstResponses, waitingAtEnd: total.waitingAtEnd, handOvers: total.handOvers, ratings: total.ratings };
}

/** The random workspace's output against the reference; returns counts to print. */
async function checkRandom(items, sandbox, random) {
	const client = sandboxClient(sandbox, random.key);
	const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
	const expected = referenceReport(data, { start: random.startMs, end: random.endMs, timeZone: RANDOM.timeZone, targetMinutes: RANDOM.targetMinutes, groupBy: RANDOM.groupBy });
	const differences = compareWithReference(items, expected, RANDOM.groupBy);
	expect(differences).toEqual([]);
	return { messages: data.messages.length, buckets: items.filter((item) => item.scope === 'hour').length, differences: differences.length };
}

// Issue 52's groupings: the known day by person, with Person Names and the
// text; the random workspace by conversation.
const PERSON_NAME = 'Dana <Support>';

const teamWorkflowIds = (prefix) => ({ dayPeople: `${prefix}ReportPplWf`.padEnd(16, '0'), randomRows: `${prefix}ReportRowWf`.padEnd(16, '0'), trustedRows: `${prefix}ReportTRwWf`.padEnd(16, '0') });

const MARKDOWN_NODE = 'Text as HTML';

function teamWorkflows(ids, credentials, day) {
	const people = reportWorkflow(ids.dayPeople, credentials.day, day.timeZone, {
		period: 'custom',
		after: day.period.after,
		before: day.period.before,
		groupBy: 'person',
		includeHtml: true,
		includeText: true,
		options: { personNames: JSON.stringify({ [day.personId]: PERSON_NAME }) },
	});
	// n8n's Markdown node renders the total's text as standard Markdown would.
	const markdown = w.node(MARKDOWN_NODE, 'n8n-nodes-base.markdown', { mode: 'markdownToHtml', markdown: "={{ $input.all().find((item) => item.json.scope === 'total').json.text }}", destinationKey: 'textHtml', options: {} }, { executeOnce: true });
	const withMarkdown = w.workflow({ id: people.id, name: people.name, nodes: [...people.nodes, markdown], connections: w.chain('Start', REPORT_NODE, MARKDOWN_NODE) });
	return [
		{ ...withMarkdown, settings: people.settings },
		reportWorkflow(ids.randomRows, credentials.random, RANDOM.timeZone, {
			period: 'custom',
			after: `${RANDOM.date}T00:00:00`,
			before: `${RANDOM.endDate}T00:00:00`,
			groupBy: 'conversation',
			options: { targetMinutes: RANDOM.targetMinutes },
		}),
		// Issue 52's items with issue 51's options: version 1.1, Business Hours, the previous period, the text.
		reportWorkflow(
			ids.trustedRows,
			credentials.random,
			RANDOM.timeZone,
			{
				period: 'custom',
				after: `${RANDOM.date}T00:00:00`,
				before: `${RANDOM.endDate}T00:00:00`,
				groupBy: 'conversation',
				includeText: true,
				options: { businessHours: TRUSTED.businessHours, closedDates: TRUSTED.closedDates, compareWith: 'previousPeriod', targetMinutes: TRUSTED.firstResponseTargetMinutes, replyTargetMinutes: TRUSTED.replyTargetMinutes },
			},
			1.1,
		),
	];
}

/** The known day by person: the bot's share, Dana's figures under the name given, the People table and the text (also as n8n's Markdown node renders it). */
function checkKnownDayTeam(items, day, rendered) {
	const total = items.find((item) => item.scope === 'total');
	expect(total).toMatchObject({ conversationsAnswered: 7, botOnlyConversations: 3, botOnlyShare: 0.4286 });
	const people = items.filter((item) => item.scope === 'person');
	expect(people).toEqual([
		expect.objectContaining({ personId: day.personId, personName: PERSON_NAME, replies: 4, waitsAnswered: 3, replyTimeMedianMinutes: 30, replyTimeP90Minutes: 170, withinTarget: 0, handOversTaken: 1, handOverMedianMinutesToPerson: 30 }),
	]);
	expect(total.html).toContain('Dana &#60;Support&#62;');
	expect(total.html).toContain('answered by the bot alone (3 of 7)');
	expect(total.text.split('\n')).toContain('- Answered by the bot alone: 43% (3 of 7 conversations)');
	expect(total.text.length).toBeLessThanOrEqual(3000);
	// Standard Markdown keeps one line per figure: a list, not one paragraph.
	const [{ textHtml }] = rendered;
	expect(textHtml).toMatch(/^<p><em>Support report<\/em> /);
	expect(textHtml).toContain('<li>Answered by the bot alone: 43% (3 of 7 conversations)</li>');
	expect(textHtml.match(/<li>/g)).toHaveLength(7 + 2);
	expect(textHtml).toMatch(/<li>720 min · Old Facebook Page · customer <code>ct_\w+<\/code> · <code>conv_\w+<\/code><\/li>/);
	return { people: people.length, botOnlyShare: total.botOnlyShare, textCharacters: total.text.length };
}

/** A random workspace's output (any grouping) against the references of issue 52's figures, and the figures that were there. */
async function checkRandomTeam(items, sandbox, random, groupBy) {
	const client = sandboxClient(sandbox, random.key);
	const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
	const period = { start: random.startMs, end: random.endMs, timeZone: RANDOM.timeZone, targetMinutes: RANDOM.targetMinutes, groupBy };
	const differences = compareTeamWithReference(items, data, period);
	differences.push(...compareWithReference(items, referenceReport(data, period), groupBy === 'day' || groupBy === 'hour' ? groupBy : 'none'));
	expect(differences).toEqual([]);
	return { messages: data.messages.length, conversationItems: items.filter((item) => item.scope === 'conversation').length, differences: differences.length };
}

/** The version 1.1 report of the random workspace, with Business Hours and the previous period, against the reference; returns counts to print. */
async function checkTrusted(items, sandbox, random) {
	const client = sandboxClient(sandbox, random.key);
	const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
	const period = { start: random.startMs, end: random.endMs, timeZone: RANDOM.timeZone, groupBy: RANDOM.groupBy, ...TRUSTED };
	const previous = { kind: 'previousPeriod', start: random.startMs - (random.endMs - random.startMs), end: random.startMs };
	const expected = referenceComparison(withBotShare(data, (p) => referenceReportV11(data, p)), period, previous);
	const differences = compareWithReference(items, expected, RANDOM.groupBy);
	expect(differences).toEqual([]);
	const total = items.find((item) => item.scope === 'total');
	expect(total).toMatchObject({ clock: 'businessHours', comparedWith: 'previousPeriod' });
	expect(total.html).toContain('times in business hours');
	return { messages: data.messages.length, firstResponses: total.firstResponses, waitsAnswered: total.waitsAnswered, previousCustomerMessages: total.previousCustomerMessages, differences: differences.length };
}

/** The random workspace by conversation in version 1.1 with Business Hours and the previous period: the conversation items by the business clock, the compared figures with the bot's share, and the text with its changes. */
async function checkTrustedTeam(items, sandbox, random) {
	const client = sandboxClient(sandbox, random.key);
	const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
	const period = { start: random.startMs, end: random.endMs, timeZone: RANDOM.timeZone, ...TRUSTED, groupBy: 'conversation', version: 1.1 };
	const previous = { kind: 'previousPeriod', start: random.startMs - (random.endMs - random.startMs), end: random.startMs };
	const differences = compareTeamWithReference(items, data, period);
	differences.push(...compareWithReference(items, referenceComparison(withBotShare(data, (p) => referenceReportV11(data, p)), { ...period, groupBy: 'none' }, previous)));
	expect(differences).toEqual([]);
	const total = items.find((item) => item.scope === 'total');
	const lines = total.text.split('\n');
	expect(lines[0]).toMatch(/, times in business hours$/);
	expect(lines[2]).toMatch(/^Change against /);
	expect(lines.filter((line) => /first response/i.test(line))).toEqual([expect.stringMatching(/^- First response \(new conversations\): /)]);
	const rows = items.filter((item) => item.scope === 'conversation');
	return { conversationItems: rows.length, businessClockRows: rows.filter((row) => row.firstWaitReplyMinutes !== row.calendarFirstWaitReplyMinutes).length, changeBotOnlyShare: total.changeBotOnlyShare, differences: differences.length };
}

module.exports = { REPORT_NODE, MARKDOWN_NODE, prepareReports, checkKnownDay, checkRandom, checkTrusted, checkKnownDayTeam, checkRandomTeam, checkTrustedTeam };
