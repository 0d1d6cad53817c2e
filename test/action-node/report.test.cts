/**
 * Report > Get in-process (n8n-core's WorkflowExecute, the sandbox over
 * HTTP): a day built so that every figure is known by construction gives
 * exactly those figures; a reference written from the docs' definitions
 * (test/support/report-reference.js) agrees with the operation on seeded
 * random workspaces, with buckets and channel filters; bad input fails
 * before any request; the reads cost what the docs say.
 */
import { runAsTool, runNode } from '../support/host/action-node.cjs';
import { control, resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { reference, sandboxClient, world } from '../support/report.cjs';
import type { KnownDay } from '../support/report.cjs';
import { useSandbox } from '../support/suite.cjs';

const suite = useSandbox({ seed: 'empty' });
const counts: Json = {};

afterAll(() => {
	console.log(JSON.stringify({ suite: 'report (in-process)', ...counts }));
});

const credentialsFor = (key: string) => ({ baseUrl: suite.sb.base_url, apiKey: key });
const report = async (key: string, parameters: Json, timezone: string, items?: Json[], settings?: Json) =>
	await runNode({
		credentials: credentialsFor(key),
		timezone,
		items: items?.map((json) => ({ json })),
		settings,
		parameters: { resource: 'report', operation: 'get', ...parameters },
	});

const figureFields = (item: Json) => {
	const { scope, channelId, channelName, channelType, channelActive, periodStart, periodEnd, timeZone, waiting, html, ...figures } = item;
	return figures;
};

describe('a day whose every figure is known (America/Los_Angeles: its midnight is not UTC\'s)', () => {
	let day: KnownDay;
	let items: Json[];

	beforeAll(async () => {
		day = await world.knownDay(suite.sb);
		await resetStats(suite.sb);
		const result = await report(day.key, { period: 'custom', after: day.period.after, before: day.period.before, includeHtml: true }, day.timeZone);
		expect(result.status).toBe('success');
		items = result.json;
		counts.knownDay = { items: items.length, requests: (await stats(suite.sb)).requests };
	});

	test('one item per channel (the inactive one and the one without activity too), then the total', () => {
		expect(items.map((item) => item.scope)).toEqual(['channel', 'channel', 'channel', 'channel', 'total']);
		const byName = Object.fromEntries(items.filter((item) => item.scope === 'channel').map((item) => [item.channelName, item]));
		expect(Object.keys(byName).sort()).toEqual(Object.keys(day.expected.channels).sort());
		expect(byName['Old Facebook Page']).toMatchObject({ channelId: day.expected.inactive, channelActive: false, channelType: 'facebook' });
		expect(byName['Support Email']).toMatchObject({ channelActive: true, channelType: 'email' });
		// The period in the workflow's time zone: local midnight to local midnight, with its offset.
		for (const item of items) {
			expect(Date.parse(item.periodStart)).toBe(day.startMs);
			expect(Date.parse(item.periodEnd)).toBe(day.endMs);
			expect(item.periodStart).toMatch(/T00:00:00\.000-0[78]:00$/);
			expect(item.timeZone).toBe('America/Los_Angeles');
		}
		expect(day.utcMidnight).toBeGreaterThan(day.startMs);
		expect(day.utcMidnight).toBeLessThan(day.endMs);
	});

	test('every figure of every channel and of the total is the one built', () => {
		const byName = Object.fromEntries(items.filter((item) => item.scope === 'channel').map((item) => [item.channelName, figureFields(item)]));
		expect(byName).toEqual(day.expected.channels);
		const total = items.find((item) => item.scope === 'total') as Json;
		expect(figureFields(total)).toEqual(day.expected.total);
	});

	test('the customers waiting at the end: longest first, with channel, customer and since', () => {
		const total = items.find((item) => item.scope === 'total') as Json;
		expect(total.waiting.map((entry: Json) => ({ conversationId: entry.conversationId, channelId: entry.channelId, minutesWaited: entry.minutesWaited, sinceMs: Date.parse(entry.since) }))).toEqual(day.expected.waiting);
		expect(total.waiting.map((entry: Json) => entry.customerId)).toEqual([expect.stringMatching(/^ct_/), expect.stringMatching(/^ct_/)]);
		expect(total.waiting[1].channelName).toBe('Acme WhatsApp');
	});

	test('Include HTML: the total carries the report as HTML an e-mail client renders (tables, inline styles, no script)', () => {
		const { html } = items.find((item) => item.scope === 'total') as Json;
		expect(typeof html).toBe('string');
		for (const name of Object.keys(day.expected.channels)) expect(html).toContain(name);
		expect(html).toContain('<table');
		expect(html).not.toMatch(/<script|<style|<link|class=/i);
		expect(html).toContain('inactive');
		expect(html).toContain('No activity in the period.');
		expect(items.filter((item) => item.scope !== 'total').every((item) => item.html === undefined)).toBe(true);
	});

	test('Group By Day: one bucket, the total\'s figures; Group By Hour: the day\'s hours add up to the total', async () => {
		const byDay = await report(day.key, { period: 'custom', after: day.period.after, before: day.period.before, groupBy: 'day' }, day.timeZone);
		const days = byDay.json.filter((item) => item.scope === 'day');
		expect(days).toHaveLength(1);
		expect(figureFields(days[0])).toEqual(day.expected.total);
		const byHour = await report(day.key, { period: 'custom', after: day.period.after, before: day.period.before, groupBy: 'hour' }, day.timeZone);
		const hours = byHour.json.filter((item) => item.scope === 'hour') as Json[];
		expect(hours).toHaveLength((day.endMs - day.startMs) / 3_600_000);
		for (const field of ['customerMessages', 'botMessages', 'personMessages', 'firstResponses', 'waitingAtEnd', 'handOvers', 'ratings', 'newConversations']) {
			expect([field, hours.reduce((sum, item) => sum + item[field], 0)]).toEqual([field, day.expected.total[field]]);
		}
		// The bot's System answer across UTC's midnight is counted in the hour its wait began (20 minutes before).
		const utcHour = hours.find((item) => Date.parse(item.periodStart) === day.utcMidnight - 3_600_000) as Json;
		expect(utcHour).toMatchObject({ firstResponses: 1, botFirstResponses: 1, firstResponseMedianMinutes: 21 });
	});

	test('Channel Types: only the channels of those types, and a total of them alone', async () => {
		const result = await report(day.key, { period: 'custom', after: day.period.after, before: day.period.before, options: { channelTypes: ['telegram', 'facebook'] } }, day.timeZone);
		expect(result.json.filter((item) => item.scope === 'channel').map((item) => item.channelName).sort()).toEqual(['Acme Telegram', 'Old Facebook Page']);
		const total = result.json.find((item) => item.scope === 'total') as Json;
		expect(total).toMatchObject({ customerMessages: 5, botMessages: 3, firstResponses: 4, waitingAtEnd: 1, handOvers: 2, ratings: 4 });
	});

	test('the same day read in UTC is another day: the figures differ', async () => {
		const result = await report(day.key, { period: 'custom', after: day.period.after, before: day.period.before }, 'UTC');
		const total = result.json.find((item) => item.scope === 'total') as Json;
		expect(Date.parse(total.periodStart)).toBe(Date.parse(`${day.period.after}Z`));
		expect(figureFields(total)).not.toEqual(day.expected.total);
	});
});

describe('Previous Days: 1 is yesterday in the workflow time zone', () => {
	test('yesterday built as the known day gives the known figures', async () => {
		const timeZone = 'Pacific/Auckland';
		const yesterday = await world.knownDay(suite.sb, { timeZone, daysAgo: 1 });
		const before = Date.now();
		const result = await report(yesterday.key, { period: 'previousDays', days: 1 }, timeZone);
		const after = Date.now();
		const total = result.json.find((item) => item.scope === 'total') as Json;
		// Yesterday as it was when the run began or ended (a run across midnight may see either).
		const yesterdayAt = (now: number) => [world.localMidnight(world.localDate(1, timeZone, now), timeZone), world.localMidnight(world.localDate(0, timeZone, now), timeZone)];
		expect([yesterdayAt(before), yesterdayAt(after)]).toContainEqual([Date.parse(total.periodStart), Date.parse(total.periodEnd)]);
		if (Date.parse(total.periodStart) === yesterday.startMs) {
			// Messages the clock had not reached when the day was built are left out of it: only when built just after midnight.
			if (Date.now() - yesterday.endMs > 10 * 60_000) expect(figureFields(total)).toEqual(yesterday.expected.total);
		}
	});
});

describe('a reference written from the definitions agrees with the operation on random workspaces', () => {
	const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Adelaide', 'UTC', 'America/Sao_Paulo'];
	const GROUPS = ['none', 'day', 'hour'];
	/** Periods in the past, some across a change of the clocks (Berlin 25 October 2026, New York 1 November 2026, Adelaide 5 April 2026). */
	const FIXED = ['2026-10-24', '2026-10-31', '2026-04-04'];
	const SEEDS = Array.from({ length: 14 }, (_, i) => 1001 + i * 7);
	let compared = 0;
	let messagesCompared = 0;
	let differences = 0;

	afterAll(() => {
		counts.property = { workspaces: compared, messages: messagesCompared, differences };
	});

	test.each(SEEDS)('seed %d', async (seed) => {
		const random = world.prng(seed);
		const { timeZone, days, date, startMs, endMs, endDate } = world.randomDays(random, { zones: ZONES, fixed: FIXED, fixedChance: 0.4 });
		const groupBy = random.pick(GROUPS);
		const targetMinutes = random.pick([15, 5, 0.5, 60, 7.5]);
		const workspace = await world.randomWorkspace(suite.sb, { seed, startMs, endMs, conversations: random.int(20, 60) });
		const channelTypes = random.chance(0.3) ? [(workspace as Json).channels[0].type] : [];
		const client = sandboxClient(suite.sb, workspace.key);
		const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
		const result = await report(
			workspace.key,
			{ period: 'custom', after: `${date}T00:00:00`, before: `${endDate}T00:00:00`, groupBy, options: { targetMinutes, channelTypes } },
			timeZone,
		);
		expect(result.status).toBe('success');
		const expected = reference.referenceReportWithClock(data, { start: startMs, end: endMs, timeZone, targetMinutes, channelTypes, groupBy });
		const found = reference.compareWithReference(result.json, expected, groupBy);
		compared++;
		messagesCompared += data.messages.length;
		differences += found.length;
		expect(found).toEqual([]);
		// The period and buckets the operation used are the ones the reference assumed.
		const total = result.json.find((item) => item.scope === 'total') as Json;
		expect([Date.parse(total.periodStart), Date.parse(total.periodEnd)]).toEqual([startMs, endMs]);
		if (groupBy === 'day') expect(result.json.filter((item) => item.scope === 'day')).toHaveLength(days);
	});
});

describe('bad input fails the item before any request, naming the field and the item', () => {
	const CUSTOM = { period: 'custom', after: '2026-05-31T00:00:00', before: '2026-06-01T00:00:00' };
	/** [what, fixed parameters, the parameter (path) item 1 gets wrong, its bad value, item 0's good value, the error] */
	const cases: Array<[string, Json, string, unknown, unknown, string]> = [
		['After later than Before', CUSTOM, 'after', '2026-06-02T00:00:00', '2026-05-31T00:00:00', "Invalid 'After': it is later than 'Before' [item 1]"],
		['a custom period longer than 31 days', CUSTOM, 'after', '2026-04-30T00:00:00', '2026-05-31T00:00:00', "Invalid 'Before': the period from 'After' is longer than 31 days [item 1]"],
		['an empty After', CUSTOM, 'after', '', '2026-05-31T00:00:00', "Invalid 'After': it is empty [item 1]"],
		['Days above 31', { period: 'previousDays' }, 'days', 32, 1, "Invalid 'Days': 32 is out of range [item 1]"],
		['Days not whole', { period: 'previousDays' }, 'days', 1.5, 1, "Invalid 'Days': 1.5 is not a whole number [item 1]"],
		['Hours above 744', { period: 'lastHours' }, 'hours', 745, 24, "Invalid 'Hours': expected a positive number up to 744, got 745 [item 1]"],
		['an unknown channel type', {}, 'options.channelTypes', ['telegram', 'sms'], [], 'Invalid \'Channel Types\': "sms" is not one of "email", "facebook", "instagram", "livechat", "telegram", "whatsapp", "whatsapp_business" [item 1]'],
		['a target of 0', {}, 'options.targetMinutes', 0, 15, "Invalid 'First Response Target (Minutes)': expected a positive number up to 10080, got 0 [item 1]"],
		['a negative target', {}, 'options.targetMinutes', -5, 15, "Invalid 'First Response Target (Minutes)': expected a positive number up to 10080, got -5 [item 1]"],
		['a target that is not a number', {}, 'options.targetMinutes', 'soon', 15, 'Invalid \'First Response Target (Minutes)\': expected a positive number up to 10080, got "soon" [item 1]'],
	];

	test.each(cases)('%s', async (_label, fixed, path, bad, good, message) => {
		await resetStats(suite.sb);
		// Item 0 is fine; item 1 carries the bad value (by expression, as a workflow would): both are checked before any request.
		const expression = `={{ $json.index === 1 ? ${JSON.stringify(bad)} : ${JSON.stringify(good)} }}`;
		const parameters: Json = { ...fixed };
		const [head, tail] = path.split('.');
		if (tail) parameters[head] = { [tail]: expression };
		else parameters[head] = expression;
		const result = await report(suite.sb.key, parameters, 'UTC', [{ index: 0 }, { index: 1 }]);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(message);
		expect((await stats(suite.sb)).requests).toBe(0);
	});

	test('with Continue On Fail the bad item outputs its error and the good one its report', async () => {
		const result = await report(
			suite.sb.key,
			{ period: 'custom', after: '={{ $json.after }}', before: '2026-06-01T00:00:00' },
			'UTC',
			[{ after: '2026-05-31T00:00:00' }, { after: '2026-06-03T00:00:00' }],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.status).toBe('success');
		const errors = result.items.filter((item) => item.json.error !== undefined);
		expect(errors).toHaveLength(1);
		expect(errors[0]).toMatchObject({ json: { error: "Invalid 'After': it is later than 'Before' [item 1]" }, pairedItem: { item: 1 } });
		expect(result.items.filter((item) => item.json.scope === 'total')).toEqual([expect.objectContaining({ pairedItem: { item: 0 } })]);
	});
});

describe('what the reads cost', () => {
	test('a day inside ten: the window\'s message pages and one more, the search, the conversations\' pages, the channels', async () => {
		const client = sandboxClient(suite.sb);
		const { app_id: appId } = await control(suite.sb, 'POST', '/workspaces', {});
		const { key } = await control(suite.sb, 'POST', '/keys', { app_id: appId });
		await control(suite.sb, 'POST', '/channels', { app_id: appId, type: 'livechat', name: 'Chat' });
		const DAY = 86_400_000;
		const first = Math.floor(Date.now() / DAY) * DAY - 11 * DAY;
		for (let d = 0; d < 10; d++) {
			await control(suite.sb, 'POST', '/bulk-history', { app_id: appId, from: new Date(first + d * DAY).toISOString(), to: new Date(first + (d + 1) * DAY).toISOString(), conversations: 300, messages: 1_500, seed: d + 1 });
		}
		void client;
		const own = sandboxClient(suite.sb, key);
		const messages = await own.listAll('/messages');
		const conversations = await own.listAll('/conversations');
		const [start, end] = [first + 4 * DAY, first + 5 * DAY];
		const windowPages = new Set(messages.map((m, i) => (Date.parse(m.created_at) >= start && Date.parse(m.created_at) < end ? Math.floor(i / 500) : -1)).filter((p) => p >= 0)).size;
		const conversationPages = Math.ceil(conversations.filter((c) => Date.parse(c.updated_at) >= Math.floor(start / 1000) * 1000).length / 500);
		await resetStats(suite.sb);
		const result = await report(key, { period: 'custom', after: new Date(start).toISOString(), before: new Date(end).toISOString() }, 'UTC');
		expect(result.status).toBe('success');
		const { by_route: byRoute, requests } = await stats(suite.sb);
		const search = Math.ceil(Math.log2(messages.length / 500)) + 1;
		counts.cost = { windowPages, conversationPages, byRoute, requests, pagesOfAll: Math.ceil(messages.length / 500) };
		expect(byRoute['GET /channels']).toBe(1);
		expect(byRoute['GET /conversations']).toBeLessThanOrEqual(conversationPages + 1);
		expect(byRoute['GET /messages']).toBeLessThanOrEqual(windowPages + 1 + search);
		const total = result.json.find((item) => item.scope === 'total') as Json;
		const expected = reference.referenceReport({ messages, conversations, channels: await own.listAll('/channels') }, { start, end, timeZone: 'UTC' });
		expect(reference.compareWithReference(result.json, expected)).toEqual([]);
		expect(total.customerMessages).toBeGreaterThan(0);
	});
});

describe('as an AI tool', () => {
	test('a model asks for the last hours: the tool returns the channels and the total; a bad target is an error worded for it', async () => {
		const day = await world.knownDay(suite.sb, { daysAgo: 2 });
		const run = await runAsTool({
			credentials: credentialsFor(day.key),
			parameters: {
				resource: 'report',
				operation: 'get',
				period: 'lastHours',
				hours: "={{ $fromAI('hours', 'How many hours back to report', 'number') }}",
				options: { targetMinutes: "={{ $fromAI('targetMinutes', 'First response target in minutes', 'number') }}" },
			},
			calls: [{ hours: 100, targetMinutes: 15 }, { hours: 24, targetMinutes: -1 }],
		});
		expect(run.schemaKeys.sort()).toEqual(['hours', 'targetMinutes']);
		const [answered, refused] = run.outcomes;
		const items = answered.result as Json[];
		expect(items.map((item) => item.scope)).toEqual(['channel', 'channel', 'channel', 'channel', 'total']);
		// The known day lies inside the last 100 hours, with nothing after it but its own late messages.
		expect(items.find((item) => item.scope === 'total')).toMatchObject({ handOvers: 3, ratings: 4 });
		expect(refused.error).toMatch(/targetMinutes/);
		expect(refused.error).not.toMatch(/\[item \d+\]/);
		counts.tool = { outcomes: run.outcomes.length, items: items.length };
	});
});
