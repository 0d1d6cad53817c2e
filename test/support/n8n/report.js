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
const { referenceReport, referenceReportV11, referenceComparison, compareWithReference } = require('../report-reference');

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
	const ids = { day: `${prefix}ReportDayWf`.padEnd(16, '0'), random: `${prefix}ReportRndWf`.padEnd(16, '0'), trusted: `${prefix}ReportTrsWf`.padEnd(16, '0') };
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

/** The version 1.1 report of the random workspace, with Business Hours and the previous period, against the reference; returns counts to print. */
async function checkTrusted(items, sandbox, random) {
	const client = sandboxClient(sandbox, random.key);
	const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
	const period = { start: random.startMs, end: random.endMs, timeZone: RANDOM.timeZone, groupBy: RANDOM.groupBy, ...TRUSTED };
	const previous = { kind: 'previousPeriod', start: random.startMs - (random.endMs - random.startMs), end: random.startMs };
	const expected = referenceComparison((p) => referenceReportV11(data, p), period, previous);
	const differences = compareWithReference(items, expected, RANDOM.groupBy);
	expect(differences).toEqual([]);
	const total = items.find((item) => item.scope === 'total');
	expect(total).toMatchObject({ clock: 'businessHours', comparedWith: 'previousPeriod' });
	expect(total.html).toContain('times in business hours');
	return { messages: data.messages.length, firstResponses: total.firstResponses, waitsAnswered: total.waitsAnswered, previousCustomerMessages: total.previousCustomerMessages, differences: differences.length };
}

module.exports = { REPORT_NODE, prepareReports, checkKnownDay, checkRandom, checkTrusted };
