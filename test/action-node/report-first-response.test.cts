/**
 * Report > Get from node version 1.1, in-process: first response as the
 * field defines it (per conversation created in the period) beside the
 * reply time (every wait, version 1's per-wait figures under their own
 * names), each with its own target; version 1 keeps its fields. The known
 * day (test/support/report-world.js) gives the first responses worked out
 * by hand; the reference (test/support/report-reference.js) agrees on
 * seeded random workspaces, with and without Business Hours.
 */
import { runNode } from '../support/host/action-node.cjs';
import { resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { reference, sandboxClient, world } from '../support/report.cjs';
import type { KnownDay } from '../support/report.cjs';
import { useSandbox } from '../support/suite.cjs';

const suite = useSandbox({ seed: 'empty' });
const counts: Json = {};

afterAll(() => {
	console.log(JSON.stringify({ suite: 'report first response (in-process)', ...counts }));
});

const report = async (key: string, parameters: Json, timezone: string, typeVersion = 1.1) =>
	await runNode({ credentials: { baseUrl: suite.sb.base_url, apiKey: key }, timezone, settings: { typeVersion }, parameters: { resource: 'report', operation: 'get', ...parameters } });

/** Version 1's per-wait fields renamed as version 1.1 gives them. */
const RENAMED: Record<string, string> = {
	firstResponses: 'waitsAnswered', botFirstResponses: 'botWaitsAnswered', personFirstResponses: 'personWaitsAnswered',
	firstResponseMedianMinutes: 'replyTimeMedianMinutes', firstResponseP90Minutes: 'replyTimeP90Minutes',
	botFirstResponseMedianMinutes: 'botReplyTimeMedianMinutes', botFirstResponseP90Minutes: 'botReplyTimeP90Minutes',
	personFirstResponseMedianMinutes: 'personReplyTimeMedianMinutes', personFirstResponseP90Minutes: 'personReplyTimeP90Minutes',
	targetMinutes: 'replyTargetMinutes', answeredWithinTarget: 'repliedWithinTarget', answeredWithinTargetShare: 'repliedWithinTargetShare',
};
const asReplies = (v1: Json) => Object.fromEntries(Object.entries(v1).map(([field, value]) => [RENAMED[field] ?? field, value]));

const NONE = {
	firstResponses: 0, botFirstResponses: 0, personFirstResponses: 0, firstResponseMedianMinutes: null, firstResponseP90Minutes: null,
	botFirstResponseMedianMinutes: null, botFirstResponseP90Minutes: null, personFirstResponseMedianMinutes: null, personFirstResponseP90Minutes: null,
	firstResponseTargetMinutes: 15, firstResponsesWithinTarget: 0, firstResponsesWithinTargetShare: null, awaitingFirstResponse: 0,
};
/** The known day's first responses, by hand: each conversation created in the day, its first customer message to the first answer. */
const FIRST: Record<string, Json> = {
	// c1 3 min, c3 21 (System, across UTC's midnight), c4 1 (the hand-over's message), c10 4; c2 was created two days before: none.
	'Acme WhatsApp': { ...NONE, firstResponses: 4, botFirstResponses: 4, firstResponseMedianMinutes: 3, firstResponseP90Minutes: 21, botFirstResponseMedianMinutes: 3, botFirstResponseP90Minutes: 21, firstResponsesWithinTarget: 3, firstResponsesWithinTargetShare: 0.75 },
	// c5 2, c6 1, c7 0.5: all by the bot.
	'Acme Telegram': { ...NONE, firstResponses: 3, botFirstResponses: 3, firstResponseMedianMinutes: 1, firstResponseP90Minutes: 2, botFirstResponseMedianMinutes: 1, botFirstResponseP90Minutes: 2, firstResponsesWithinTarget: 3, firstResponsesWithinTargetShare: 1 },
	// c8: the bot's send failed; awaiting for 720 minutes at the end.
	'Old Facebook Page': { ...NONE, firstResponsesWithinTargetShare: 0, awaitingFirstResponse: 1 },
	'Support Email': { ...NONE },
};
const FIRST_TOTAL = { ...NONE, firstResponses: 7, botFirstResponses: 7, firstResponseMedianMinutes: 2, firstResponseP90Minutes: 21, botFirstResponseMedianMinutes: 2, botFirstResponseP90Minutes: 21, firstResponsesWithinTarget: 6, firstResponsesWithinTargetShare: 0.75, awaitingFirstResponse: 1 };

const figureFields = (item: Json) => {
	const { scope, channelId, channelName, channelType, channelActive, periodStart, periodEnd, timeZone, waiting, html, ...figures } = item;
	return figures;
};

describe('the known day in version 1.1: first responses per conversation, reply times per wait', () => {
	let day: KnownDay;
	let items: Json[];

	beforeAll(async () => {
		day = await world.knownDay(suite.sb);
		const result = await report(day.key, { period: 'custom', after: day.period.after, before: day.period.before, includeHtml: true }, day.timeZone);
		expect(result.status).toBe('success');
		items = result.json;
	});

	test('every channel and the total: the first responses built, and version 1\'s per-wait figures as reply times', () => {
		const byName = Object.fromEntries(items.filter((item) => item.scope === 'channel').map((item) => [item.channelName, figureFields(item)]));
		for (const [name, first] of Object.entries(FIRST)) expect(byName[name]).toEqual({ ...asReplies(day.expected.channels[name]), ...first });
		expect(figureFields(items.find((item) => item.scope === 'total') as Json)).toEqual({ ...asReplies(day.expected.total), ...FIRST_TOTAL });
	});

	test('the fields come in the order a sheet reads them: first response, then reply time', () => {
		const fields = Object.keys(items.find((item) => item.scope === 'total') as Json);
		expect(fields.indexOf('firstResponses')).toBeLessThan(fields.indexOf('waitsAnswered'));
		expect(fields).not.toContain('targetMinutes');
		expect(fields).not.toContain('answeredWithinTarget');
	});

	test('the HTML shows first response and reply time apart, each against its own target', () => {
		const { html } = items.find((item) => item.scope === 'total') as Json;
		for (const label of ['First response, median', 'First responses within target', 'Reply time, median', 'Replies within target', 'median reply time']) expect(html).toContain(label);
		expect(html).toContain('0 within 15 min · 1 awaiting'); // the Facebook page: its one first customer message awaits
		expect(html).not.toContain('times in business hours');
	});

	test('each has a target of its own: First Response Target and Reply Time Target', async () => {
		const result = await report(day.key, { period: 'custom', after: day.period.after, before: day.period.before, options: { targetMinutes: 2, replyTargetMinutes: 30 } }, day.timeZone);
		const total = result.json.find((item) => item.scope === 'total') as Json;
		// First responses within 2 minutes: 0.5, 1, 1, 2 of 8 decided; waits within 30: 9 of 11 (0.5 to 30, and the 720 still open).
		expect(total).toMatchObject({ firstResponseTargetMinutes: 2, firstResponsesWithinTarget: 4, firstResponsesWithinTargetShare: 0.5, replyTargetMinutes: 30, repliedWithinTarget: 9, repliedWithinTargetShare: 0.8182 });
	});

	test('version 1 keeps its fields and their meaning (a published workflow receives what it did)', async () => {
		const result = await report(day.key, { period: 'custom', after: day.period.after, before: day.period.before }, day.timeZone, 1);
		expect(figureFields(result.json.find((item) => item.scope === 'total') as Json)).toEqual(day.expected.total);
	});

	test('a bad Reply Time Target fails before any request, naming the field', async () => {
		await resetStats(suite.sb);
		const result = await report(suite.sb.key, { period: 'lastHours', hours: 24, options: { replyTargetMinutes: 0 } }, 'UTC');
		expect(result.error?.message).toBe("Invalid 'Reply Time Target (Minutes)': expected a positive number up to 10080, got 0 [item 0]");
		expect((await stats(suite.sb)).requests).toBe(0);
	});
});

describe('the reference agrees with version 1.1 on random workspaces', () => {
	const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'UTC', 'Australia/Adelaide'];
	const FIXED = ['2026-10-24', '2026-10-31', '2026-04-04', '2026-03-28'];
	const SEEDS = Array.from({ length: 12 }, (_, i) => 7001 + i * 13);
	let compared = 0;
	let messagesCompared = 0;
	let differences = 0;

	afterAll(() => {
		counts.property = { workspaces: compared, messages: messagesCompared, differences };
	});

	test.each(SEEDS)('seed %d', async (seed) => {
		const random = world.prng(seed);
		const { timeZone, date, startMs, endMs, endDate } = world.randomDays(random, { zones: ZONES, fixed: FIXED, fixedChance: 0.5 });
		const groupBy = random.pick(['none', 'day', 'hour']);
		const firstResponseTargetMinutes = random.pick([15, 5, 60, 0.5]);
		const replyTargetMinutes = random.pick([15, 10, 120]);
		// Every other workspace with Business Hours (split shifts, every day, so no period is without an open minute).
		const businessHours = seed % 2 === 0 ? 'Mon-Fri 08:30-12:00, 13:00-17:30; Sat-Sun 01:30-02:30, 10:00-14:00' : undefined;
		const workspace = await world.randomWorkspace(suite.sb, { seed, startMs, endMs, conversations: random.int(20, 60) });
		const channelTypes = random.chance(0.3) ? [workspace.channels[0].type] : [];
		const client = sandboxClient(suite.sb, workspace.key);
		const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
		const result = await report(
			workspace.key,
			{ period: 'custom', after: `${date}T00:00:00`, before: `${endDate}T00:00:00`, groupBy, options: { targetMinutes: firstResponseTargetMinutes, replyTargetMinutes, channelTypes, ...(businessHours ? { businessHours } : {}) } },
			timeZone,
		);
		expect(result.status).toBe('success');
		const expected = reference.referenceReportV11(data, { start: startMs, end: endMs, timeZone, firstResponseTargetMinutes, replyTargetMinutes, channelTypes, groupBy, businessHours, closedDates: '' });
		const found = reference.compareWithReference(result.json, expected, groupBy);
		compared++;
		messagesCompared += data.messages.length;
		differences += found.length;
		expect(found).toEqual([]);
		// Not vacuous: the workspace has first responses to compare.
		expect((result.json.find((item) => item.scope === 'total') as Json).firstResponses + (result.json.find((item) => item.scope === 'total') as Json).awaitingFirstResponse).toBeGreaterThan(0);
	});
});
