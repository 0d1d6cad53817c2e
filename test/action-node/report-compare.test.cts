/**
 * Report > Get with Compare With, in-process: each channel and the total
 * carry every figure's previous value and change; the reference
 * (test/support/report-reference.js) agrees on seeded random workspaces for
 * the previous period and a week earlier, with Business Hours and both node
 * versions; the previous window's pages are read once (the adjacent windows
 * as one time window); the HTML shows the change with an arrow in the
 * colour of better or worse; day and hour items are compared by position;
 * a week earlier for a longer period fails
 * before any request.
 */
import { runNode } from '../support/host/action-node.cjs';
import { control, resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { reference, sandboxClient, world } from '../support/report.cjs';
import { useSandbox } from '../support/suite.cjs';

const suite = useSandbox({ seed: 'empty' });
const counts: Json = {};

afterAll(() => {
	console.log(JSON.stringify({ suite: 'report compare (in-process)', ...counts }));
});

const DAY = 86_400_000;
const shiftDate = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const report = async (key: string, parameters: Json, timezone: string, typeVersion = 1.1) =>
	await runNode({ credentials: { baseUrl: suite.sb.base_url, apiKey: key }, timezone, settings: { typeVersion }, parameters: { resource: 'report', operation: 'get', ...parameters } });

describe('the reference agrees with the compared report on random workspaces', () => {
	const ZONES = ['Europe/Berlin', 'America/New_York', 'UTC', 'Australia/Adelaide'];
	/** The day after each is a change of the clocks in one of the zones. */
	const FIXED = ['2026-10-24', '2026-10-31', '2026-04-04', '2026-03-28', '2026-11-05'];
	const SEEDS = Array.from({ length: 12 }, (_, i) => 9001 + i * 17);
	let compared = 0;
	let messagesCompared = 0;
	let differences = 0;

	afterAll(() => {
		counts.property = { workspaces: compared, messages: messagesCompared, differences };
	});

	test.each(SEEDS)('seed %d', async (seed) => {
		const random = world.prng(seed);
		const timeZone = random.pick(ZONES);
		const kind = SEEDS.indexOf(seed) % 2 === 0 ? 'previousPeriod' : 'weekEarlier';
		const days = random.int(1, 3);
		const date = random.pick(FIXED);
		const endDate = shiftDate(date, days);
		const [startMs, endMs] = [world.localMidnight(date, timeZone), world.localMidnight(endDate, timeZone)];
		// For a Custom period, the previous period is as many milliseconds before; a week earlier is the same local times 7 days before.
		const previous = kind === 'previousPeriod' ? { kind, start: startMs - (endMs - startMs), end: startMs } : { kind, start: world.localMidnight(shiftDate(date, -7), timeZone), end: world.localMidnight(shiftDate(endDate, -7), timeZone) };
		const version = random.pick([1, 1.1]);
		const businessHours = random.chance(0.5) ? 'Mon-Fri 09:00-12:30, 13:30-18:00; Sat-Sun 10:00-14:00' : undefined;
		const groupBy = random.pick(['none', 'day', 'hour']);
		// Activity in both windows and around them.
		const workspace = await world.randomWorkspace(suite.sb, { seed, startMs: previous.start, endMs, conversations: random.int(40, 80) });
		const client = sandboxClient(suite.sb, workspace.key);
		const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
		await resetStats(suite.sb);
		const result = await report(
			workspace.key,
			{ period: 'custom', after: `${date}T00:00:00`, before: `${endDate}T00:00:00`, groupBy, options: { compareWith: kind, ...(businessHours ? { businessHours } : {}) } },
			timeZone,
			version,
		);
		expect(result.status).toBe('success');
		const period = { start: startMs, end: endMs, timeZone, groupBy, businessHours, closedDates: '' };
		const reportOf = reference.withBotShare(data, (p: Json) => (version === 1 ? reference.referenceReportWithClock(data, p) : reference.referenceReportV11(data, p)));
		const expected = reference.referenceComparison(reportOf, period, previous);
		const found = reference.compareWithReference(result.json, expected, groupBy);
		compared++;
		messagesCompared += data.messages.length;
		differences += found.length;
		expect(found).toEqual([]);
		const total = result.json.find((item) => item.scope === 'total') as Json;
		expect([Date.parse(total.previousPeriodStart), Date.parse(total.previousPeriodEnd), total.comparedWith]).toEqual([previous.start, previous.end, kind]);
		// Not vacuous: the previous window had messages of its own.
		expect(total.previousCustomerMessages).toBeGreaterThan(0);
		// Every previous… and change… field is one the reference has: a figure's, never the channel's or a target's.
		const comparedKeys = (item: Json) => Object.keys(item).filter((field) => /^(previous|change)[A-Z]/.test(field) && !/^previous(Period|Bucket)(Start|End)$/.test(field)).sort();
		expect(comparedKeys(total)).toEqual(comparedKeys(expected.total));
		// Buckets by position: a week earlier, the k-th day against the same weekday a week before.
		const buckets = result.json.filter((item) => item.scope === groupBy);
		if (groupBy === 'day' && kind === 'weekEarlier') for (const [index, bucket] of buckets.entries()) expect(Date.parse(String(bucket.previousBucketStart))).toBe(world.localMidnight(shiftDate(date, index - 7), timeZone));
	});
});

describe('what a compared report reads', () => {
	let key: string;
	let messages: Json[];
	let conversations: Json[];
	const first = Math.floor(Date.now() / DAY) * DAY - 20 * DAY;

	beforeAll(async () => {
		const { app_id: appId } = await control(suite.sb, 'POST', '/workspaces', {});
		({ key } = await control(suite.sb, 'POST', '/keys', { app_id: appId }));
		await control(suite.sb, 'POST', '/channels', { app_id: appId, type: 'livechat', name: 'Chat' });
		for (let d = 0; d < 12; d++) {
			await control(suite.sb, 'POST', '/bulk-history', { app_id: appId, from: new Date(first + d * DAY).toISOString(), to: new Date(first + (d + 1) * DAY).toISOString(), conversations: 200, messages: 1_200, seed: 40 + d });
		}
		const own = sandboxClient(suite.sb, key);
		messages = await own.listAll('/messages');
		conversations = await own.listAll('/conversations');
	});

	/** The pages of the newest-first list that hold a message of [start, end). */
	const pagesOf = (start: number, end: number) => new Set(messages.map((m, i) => (Date.parse(m.created_at) >= start && Date.parse(m.created_at) < end ? Math.floor(i / 500) : -1)).filter((p) => p >= 0));
	const conversationPagesSince = (start: number) => Math.ceil(conversations.filter((c) => Date.parse(c.updated_at) >= Math.floor(start / 1000) * 1000).length / 500);

	test('the previous period: both windows\' pages once, with one search, the conversations since the earlier start, the channels', async () => {
		const [start, end] = [first + 8 * DAY, first + 9 * DAY];
		const both = new Set([...pagesOf(start - DAY, start), ...pagesOf(start, end)]).size;
		await resetStats(suite.sb);
		const result = await report(key, { period: 'custom', after: new Date(start).toISOString(), before: new Date(end).toISOString(), options: { compareWith: 'previousPeriod' } }, 'UTC');
		expect(result.status).toBe('success');
		const { by_route: byRoute, requests } = await stats(suite.sb);
		const search = Math.ceil(Math.log2(messages.length / 500)) + 1;
		const conversationPages = conversationPagesSince(start - DAY);
		counts.previousPeriod = { windowPages: both, conversationPages, byRoute, requests };
		expect(byRoute['GET /messages']).toBeLessThanOrEqual(both + 1 + search);
		expect(byRoute['GET /conversations']).toBeLessThanOrEqual(conversationPages + 1);
		expect(byRoute['GET /channels']).toBe(1);
	});

	test('a week earlier: each window\'s pages, each with its search', async () => {
		const [start, end] = [first + 9 * DAY, first + 10 * DAY];
		const pages = pagesOf(start, end).size + pagesOf(start - 7 * DAY, end - 7 * DAY).size;
		await resetStats(suite.sb);
		const result = await report(key, { period: 'custom', after: new Date(start).toISOString(), before: new Date(end).toISOString(), options: { compareWith: 'weekEarlier' } }, 'UTC');
		expect(result.status).toBe('success');
		const { by_route: byRoute, requests } = await stats(suite.sb);
		const search = Math.ceil(Math.log2(messages.length / 500)) + 1;
		counts.weekEarlier = { windowPages: pages, byRoute, requests };
		expect(byRoute['GET /messages']).toBeLessThanOrEqual(pages + 2 * (1 + search));
		// Never the six days between the windows.
		expect(byRoute['GET /messages']).toBeLessThan(pagesOf(end - 7 * DAY, start).size);
	});
});

describe('the HTML and the items', () => {
	test('each compared figure under its value: an arrow, better in green and worse in orange, the previous value; every item compared', async () => {
		const timeZone = 'Europe/Berlin';
		const [date, endDate] = ['2026-11-10', '2026-11-11'];
		const workspace = await world.randomWorkspace(suite.sb, { seed: 77, startMs: world.localMidnight('2026-11-09', timeZone), endMs: world.localMidnight(endDate, timeZone), conversations: 60 });
		const result = await report(workspace.key, { period: 'custom', after: `${date}T00:00:00`, before: `${endDate}T00:00:00`, groupBy: 'hour', includeHtml: true, options: { compareWith: 'previousPeriod' } }, timeZone);
		const total = result.json.find((item) => item.scope === 'total') as Json;
		expect(total.html).toContain('compared with 2026-11-09 00:00 to 2026-11-10 00:00');
		expect(total.html).toMatch(/[▲▼=]/);
		// A rise of the reply time's median is worse (orange), a fall better (green).
		const change = total.changeReplyTimeMedianMinutes;
		if (typeof change === 'number' && change !== 0) expect(total.html).toContain(`color:${change > 0 ? '#e8590c' : '#2f9e66'}">${change > 0 ? '▲' : '▼'} ${Math.round(Math.abs(change) * 100) / 100} min`);
		expect(result.json.filter((item) => item.scope === 'hour').every((item) => item.comparedWith === 'previousPeriod' && 'changeCustomerMessages' in item)).toBe(true);
		expect(result.json.filter((item) => item.scope === 'channel').every((item) => item.comparedWith === 'previousPeriod' && 'previousCustomerMessages' in item && 'changeCustomerMessages' in item)).toBe(true);
	});

	test('Previous Days: the previous period is as many whole local days just before', async () => {
		const timeZone = 'America/New_York';
		const result = await report(suite.sb.key, { period: 'previousDays', days: 3, options: { compareWith: 'previousPeriod' } }, timeZone);
		const total = result.json.find((item) => item.scope === 'total') as Json;
		expect(total.previousPeriodEnd).toBe(total.periodStart);
		expect(total.previousPeriodStart.slice(11, 19)).toBe('00:00:00');
		expect(Date.parse(`${total.periodStart.slice(0, 10)}T00:00:00Z`) - Date.parse(`${total.previousPeriodStart.slice(0, 10)}T00:00:00Z`)).toBe(3 * DAY);
	});

	test('a week earlier for a period longer than a week fails before any request, naming the field', async () => {
		await resetStats(suite.sb);
		const result = await report(suite.sb.key, { period: 'previousDays', days: 8, options: { compareWith: 'weekEarlier' } }, 'UTC');
		expect(result.error?.message).toBe("Invalid 'Compare With': the period is longer than a week, so a week earlier overlaps it [item 0]");
		expect((await stats(suite.sb)).requests).toBe(0);
	});
});
