/**
 * Report > Get, the figures a team acts on, in-process: the bot's own
 * share, Group By Person (with Person Names) and Group By Conversation on
 * the known day, by hand; against the reference written from the docs'
 * definitions (test/support/report-reference.js) on seeded random
 * workspaces; Include Text within the chat apps' limits, its worst case
 * too; Person Names checked before any request; the same requests with and
 * without the new groupings.
 */
import { isoInZone } from '../../nodes/Omnichannel/report/calendar';
import { reportText, TEXT_LIMIT } from '../../nodes/Omnichannel/report/text';
import { runNode } from '../support/host/action-node.cjs';
import { resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { reference, sandboxClient, world } from '../support/report.cjs';
import type { KnownDay } from '../support/report.cjs';
import { useSandbox } from '../support/suite.cjs';

const suite = useSandbox({ seed: 'empty' });
const counts: Json = {};

afterAll(() => {
	console.log(JSON.stringify({ suite: 'report, team figures (in-process)', ...counts }));
});

const report = async (key: string, parameters: Json, timezone: string, items?: Json[], typeVersion = 1) =>
	await runNode({
		credentials: { baseUrl: suite.sb.base_url, apiKey: key },
		timezone,
		settings: { typeVersion },
		items: items?.map((json) => ({ json })),
		parameters: { resource: 'report', operation: 'get', ...parameters },
	});

describe('the known day (America/Los_Angeles): people, conversations and the bot\'s share, by hand', () => {
	let day: KnownDay;
	let personId: string;
	let byPerson: Json[];
	let byConversation: Json[];
	const requests: Json = {};

	beforeAll(async () => {
		day = await world.knownDay(suite.sb);
		const custom = { period: 'custom', after: day.period.after, before: day.period.before };
		for (const groupBy of ['none', 'person', 'conversation']) {
			await resetStats(suite.sb);
			const result = await report(day.key, { ...custom, groupBy, includeHtml: true, includeText: true, options: { personNames: '={{ $json.names }}' } }, day.timeZone, [{ names: {} }]);
			expect(result.status).toBe('success');
			requests[groupBy] = (await stats(suite.sb)).requests;
			if (groupBy === 'person') byPerson = result.json;
			if (groupBy === 'conversation') byConversation = result.json;
		}
		personId = byPerson.find((item) => item.scope === 'person')?.personId;
		counts.knownDay = { requests };
	});

	test('the bot alone: 3 of the 7 conversations that got an answer (WhatsApp 2 of 4, Telegram 1 of 3); in the HTML\'s headline', () => {
		const total = byPerson.find((item) => item.scope === 'total') as Json;
		expect(total).toMatchObject({ conversationsAnswered: 7, botOnlyConversations: 3, botOnlyShare: 0.4286 });
		const channel = (name: string) => byPerson.find((item) => item.channelName === name) as Json;
		expect(channel('Acme WhatsApp')).toMatchObject({ conversationsAnswered: 4, botOnlyConversations: 2, botOnlyShare: 0.5 });
		expect(channel('Acme Telegram')).toMatchObject({ conversationsAnswered: 3, botOnlyConversations: 1, botOnlyShare: 0.3333 });
		expect(channel('Support Email')).toMatchObject({ conversationsAnswered: 0, botOnlyConversations: 0, botOnlyShare: null });
		expect(total.html).toContain('43%</div><div style="font-size:12px;color:#52606d">answered by the bot alone (3 of 7)');
	});

	test('Group By Person: Dana Agent\'s 4 replies, 3 waits answered (26, 30, 170 min), the hand-over taken after 30 min; a People table', () => {
		const people = byPerson.filter((item) => item.scope === 'person');
		expect(people).toHaveLength(1);
		expect(people[0]).toMatchObject({
			personId: expect.stringMatching(/^usr_/),
			personName: null,
			replies: 4,
			failedReplies: 0,
			waitsAnswered: 3,
			replyTimeMedianMinutes: 30,
			replyTimeP90Minutes: 170,
			targetMinutes: 15,
			withinTarget: 0,
			withinTargetShare: 0,
			handOversTaken: 1,
			handOverMedianMinutesToPerson: 30,
		});
		expect(Date.parse(people[0].periodStart)).toBe(day.startMs);
		const { html } = byPerson.find((item) => item.scope === 'total') as Json;
		expect(html).toContain('>People <');
		expect(html).toContain(personId);
		expect(byPerson.map((item) => item.scope)).toEqual(['channel', 'channel', 'channel', 'channel', 'total', 'person']);
	});

	test('Person Names: the name on the items and in the HTML, escaped', async () => {
		const result = await report(
			day.key,
			{ period: 'custom', after: day.period.after, before: day.period.before, groupBy: 'person', includeHtml: true, options: { personNames: JSON.stringify({ [personId]: 'Dana <b>A</b>', usr_nobody: 'Nobody' }) } },
			day.timeZone,
		);
		const person = result.json.find((item) => item.scope === 'person') as Json;
		expect(person.personName).toBe('Dana <b>A</b>');
		const { html } = result.json.find((item) => item.scope === 'total') as Json;
		expect(html).toContain('Dana &#60;b&#62;A&#60;/b&#62;');
		expect(html).not.toContain('Nobody');
	});

	test('Group By Conversation: one item per conversation with activity, each field as built', () => {
		const rows = byConversation.filter((item) => item.scope === 'conversation');
		expect(rows).toHaveLength(9);
		const at = (minutes: number) => rows.find((row) => Date.parse(row.firstMessageAt) === day.startMs + minutes * 60_000) as Json;
		const [c8, c2] = day.expected.waiting.map((entry) => rows.find((row) => row.conversationId === entry.conversationId) as Json);
		// c10: the customer at the start, the bot 4 minutes later.
		expect(at(0)).toMatchObject({ channelName: 'Acme WhatsApp', firstWaitReplyMinutes: 4, firstWaitReplyBy: 'bot', firstWaitReplyPersonId: null, waits: 1, waitsAnswered: 1, botOnly: true, handOverOutcome: null });
		// c2: Dana's message closes no wait of the period; the customer waits at the end.
		expect(c2).toMatchObject({ firstWaitReplyMinutes: null, firstWaitReplyBy: null, waits: 1, waitsAnswered: 0, waitingAtEnd: true, personMessages: 1, topPersonId: personId, topPersonReplies: 1, botOnly: false });
		expect(Date.parse(c2.firstMessageAt)).toBe(day.startMs + 5 * 60_000);
		expect(Date.parse(c2.firstCustomerMessageAt)).toBe(day.endMs - 10 * 60_000);
		expect(Date.parse(c2.waitingSince)).toBe(day.endMs - 10 * 60_000);
		// c1: two waits, the first answered by the bot after 3 minutes (from the first of two customer messages), the second by Dana.
		expect(at(60)).toMatchObject({ customerMessages: 3, botMessages: 1, personMessages: 1, waits: 2, waitsAnswered: 2, firstWaitReplyMinutes: 3, firstWaitReplyBy: 'bot', topPersonId: personId, botOnly: false });
		// c4: the hand-over answered; c5: expired by its own limit; c6: still open.
		expect(at(180)).toMatchObject({ handOvers: 1, handOverOutcome: 'answered', firstWaitReplyMinutes: 1, firstWaitReplyBy: 'bot' });
		expect(at(300)).toMatchObject({ handOvers: 1, handOverOutcome: 'expired', channelName: 'Acme Telegram' });
		expect(at((day.endMs - day.startMs) / 60_000 - 120)).toMatchObject({ handOvers: 1, handOverOutcome: 'open', waitingAtEnd: false });
		// c7: 4 ratings; the latest with a score is ★★★☆☆.
		expect(at(600)).toMatchObject({ ratings: 4, latestRatingScore: 3, firstWaitReplyMinutes: 0.5, botOnly: true });
		// c8: the bot's send failed; the customer waits.
		expect(c8).toMatchObject({ channelName: 'Old Facebook Page', failedMessages: 1, botMessages: 0, waitingAtEnd: true, botOnly: false, customerId: expect.stringMatching(/^ct_/) });
		// c3: the System answer across UTC's midnight, 21 minutes.
		expect(rows.find((row) => Date.parse(row.firstMessageAt) === day.utcMidnight - 20 * 60_000)).toMatchObject({ firstWaitReplyMinutes: 21, firstWaitReplyBy: 'bot', botOnly: true });
		// By their first message of the period.
		const firsts = rows.map((row) => Date.parse(row.firstMessageAt));
		expect([...firsts].sort((a, b) => a - b)).toEqual(firsts);
		expect(byConversation.slice(0, 5).map((item) => item.scope)).toEqual(['channel', 'channel', 'channel', 'channel', 'total']);
	});

	test('the new groupings cost no request more than the report without them', () => {
		expect(requests.person).toBe(requests.none);
		expect(requests.conversation).toBe(requests.none);
	});

	test('Include Text in version 1.1: the known day\'s first response per new conversation and reply time per wait, as the Reports section shows them; Dana\'s target figures under the reply time names', async () => {
		const custom = { period: 'custom', after: day.period.after, before: day.period.before };
		const result = await report(day.key, { ...custom, groupBy: 'person', includeText: true }, day.timeZone, undefined, 1.1);
		expect(result.status).toBe('success');
		const lines = String(result.json.find((item) => item.scope === 'total')?.text).split('\n');
		expect(lines).toContain('- First response (new conversations): median 2 min, p90 21 min; 75% within 15 min, 1 awaiting');
		expect(lines).toContain('- Reply time (every wait): median 3 min, p90 30 min; 55% within 15 min (6 waits)');
		expect(lines.filter((line) => /first response/i.test(line))).toHaveLength(1);
		expect(result.json.find((item) => item.scope === 'person')).toMatchObject({ clock: 'calendar', replyTargetMinutes: 15, repliedWithinTarget: 0, repliedWithinTargetShare: 0, waitsAnswered: 3 });
	});

	test('Include Text: the headline and the customers waiting longest, as Markdown', () => {
		const { text } = byPerson.find((item) => item.scope === 'total') as Json;
		const lines = text.split('\n');
		expect(lines[0]).toMatch(/^\*Support report\* \d{4}-\d\d-\d\d 00:00 to \d{4}-\d\d-\d\d 00:00 \(America\/Los Angeles\)$/);
		expect(lines).toContain('- Conversations with activity: 9 (8 new)');
		expect(lines).toContain('- First response: median 3 min, p90 30 min');
		expect(lines).toContain('- Answered within 15 min: 55% of waits (6)');
		expect(lines).toContain('- Answered by the bot alone: 43% (3 of 7 conversations)');
		expect(lines).toContain('- Hand-overs to a person: 3 (1 answered, 1 expired)');
		expect(lines).toContain('- Waiting at the end: 2');
		// Blocks between blank lines, so that standard Markdown keeps one line per list item as Slack and Telegram do.
		expect(lines.slice(0, 3)).toEqual([lines[0], '', '- Conversations with activity: 9 (8 new)']);
		const waiting = lines.slice(lines.indexOf('*Waiting longest*') + 1);
		expect(waiting).toEqual([
			'',
			expect.stringMatching(/^- 720 min · Old Facebook Page · customer `ct_\w+` · `conv_\w+`$/),
			expect.stringMatching(/^- 10 min · Acme WhatsApp · customer `ct_\w+` · `conv_\w+`$/),
		]);
	});
});

describe('Include Text: the worst case stays within the chat apps\' limits', () => {
	test('100 waiting customers with the longest names and ids: at most 3,000 characters, 5 listed, formatting characters of names replaced', () => {
		const long = 'X'.repeat(5_000);
		const channels = Array.from({ length: 50 }, (_, index) => ({ channelId: `ch_${index}`, channelName: `*_[${long}]_*` }));
		const waiting = Array.from({ length: 100 }, (_, index) => ({ conversationId: `conv_${long}${index}`, channelId: `ch_${index % 50}`, channelName: `*_[${long}]_*`, customerId: `ct_\`${long}`, minutesWaited: 100_000.55 }));
		const total: Json = {
			periodStart: '2026-06-01T00:00:00.000-07:00', periodEnd: '2026-07-01T00:00:00.000-07:00', timeZone: 'America/Argentina/ComodRivadavia',
			conversationsWithActivity: 123_456_789, newConversations: 123_456_789, firstResponseMedianMinutes: 10_079.99, firstResponseP90Minutes: 10_079.99, targetMinutes: 10_079.99,
			answeredWithinTargetShare: 0.9999, answeredWithinTarget: 123_456_789, botOnlyShare: 1, botOnlyConversations: 123_456_789, conversationsAnswered: 123_456_789,
			handOvers: 123_456_789, handOversAnswered: 123_456_789, handOversExpired: 123_456_789, ratingMean: 4.99, ratingsScored: 123_456_789, waitingAtEnd: 123_456_789, waiting,
		};
		const text = reportText(total, channels);
		counts.worstCaseText = { characters: text.length, utf16: text.length, bytes: Buffer.byteLength(text) };
		// Slack: 3,000 characters per text block (4,000 per message); Telegram: 4,096.
		expect(text.length).toBeLessThanOrEqual(TEXT_LIMIT);
		expect(TEXT_LIMIT).toBeLessThanOrEqual(3_000);
		const listed = text.split('\n').filter((line) => line.includes('customer `'));
		expect(listed).toHaveLength(5);
		expect(text).toContain(`and ${123_456_789 - 5} more`);
		// Names carry no formatting character; ids are whole code spans (2 backticks each).
		for (const line of listed) {
			expect(line.replace(/`[^`]*`/g, '')).not.toMatch(/[*_[\]`]/);
			expect(line.split('`')).toHaveLength(5);
		}
	});
});

describe('Include Text in node version 1.1 with Compare With: first response and reply time by their names, each change, within the limit', () => {
	/** A compared 1.1 total: every figure, its previous value and change at their widest. */
	function comparedTotal(value: number, change: number): Json {
		const fields: Json = {
			conversationsWithActivity: value, newConversations: value, firstResponseMedianMinutes: value, firstResponseP90Minutes: value, firstResponseTargetMinutes: 10_079.99,
			firstResponsesWithinTarget: value, firstResponsesWithinTargetShare: 0.9999, awaitingFirstResponse: value, replyTimeMedianMinutes: value, replyTimeP90Minutes: value,
			replyTargetMinutes: 10_079.99, repliedWithinTarget: value, repliedWithinTargetShare: 0.9999, waitsAnswered: value, botOnlyShare: 1, botOnlyConversations: value,
			conversationsAnswered: value, handOvers: value, handOversAnswered: value, handOversExpired: value, ratingMean: 4.99, ratingsScored: value, waitingAtEnd: value,
		};
		const compared: Json = {};
		for (const [field, figure] of Object.entries(fields)) {
			if (/TargetMinutes$/.test(field)) continue;
			const name = `${field[0].toUpperCase()}${field.slice(1)}`;
			compared[`previous${name}`] = figure;
			compared[`change${name}`] = /Share$/.test(field) ? -0.9999 : change;
		}
		return {
			periodStart: '2026-06-01T00:00:00.000-07:00', periodEnd: '2026-07-01T00:00:00.000-07:00', timeZone: 'America/Argentina/ComodRivadavia', clock: 'businessHours',
			comparedWith: 'previousPeriod', previousPeriodStart: '2026-05-01T00:00:00.000-07:00', previousPeriodEnd: '2026-06-01T00:00:00.000-07:00', ...fields, ...compared,
		};
	}

	test('the headline names per-wait figures reply time and per-conversation ones first response, with each change in brackets', () => {
		const total = comparedTotal(7, 0);
		Object.assign(total, { firstResponseMedianMinutes: 3, changeFirstResponseMedianMinutes: -1.5, replyTimeMedianMinutes: 2, changeReplyTimeMedianMinutes: 0.25, repliedWithinTargetShare: 0.55, changeRepliedWithinTargetShare: 0.05, botOnlyShare: 0.4286, changeBotOnlyShare: -0.1 });
		const lines = reportText({ ...total, waiting: [] }, []).split('\n');
		expect(lines.slice(0, 4)).toEqual(['*Support report* 2026-06-01 00:00 to 2026-07-01 00:00 (America/Argentina/ComodRivadavia), times in business hours', '', 'Change against 2026-05-01 00:00 to 2026-06-01 00:00 in brackets (▲ up, ▼ down)', '']);
		expect(lines).toContain('- First response (new conversations): median 3 min (▼ 1.5 min), p90 7 min (=); 100% within 10079.99 min (▼ 100 pts), 7 awaiting');
		expect(lines).toContain('- Reply time (every wait): median 2 min (▲ 0.25 min), p90 7 min (=); 55% within 10079.99 min (▲ 5 pts) (7 waits)');
		expect(lines).toContain('- Answered by the bot alone: 43% (▼ 10 pts) (7 of 7 conversations)');
		// Only the per-conversation figure is called first response.
		expect(lines.filter((line) => /first response/i.test(line))).toEqual([expect.stringContaining('median 3 min')]);
	});

	test('version 1\'s text is what it was when nothing is compared', () => {
		const total: Json = { periodStart: '2026-06-01T00:00:00.000-07:00', periodEnd: '2026-06-02T00:00:00.000-07:00', timeZone: 'UTC', conversationsWithActivity: 9, newConversations: 8, firstResponseMedianMinutes: 3, firstResponseP90Minutes: 30, targetMinutes: 15, answeredWithinTargetShare: 0.5455, answeredWithinTarget: 6, waiting: [] };
		expect(reportText(total, []).split('\n').slice(2, 5)).toEqual(['- Conversations with activity: 9 (8 new)', '- First response: median 3 min, p90 30 min', '- Answered within 15 min: 55% of waits (6)']);
	});

	test('the worst case, compared: 100 waiting customers with the longest names, 9-digit figures and changes: at most 3,000 characters, the headline whole', () => {
		const long = 'X'.repeat(5_000);
		const waiting = Array.from({ length: 100 }, (_, index) => ({ conversationId: `conv_${long}${index}`, channelId: `ch_${index % 50}`, channelName: `*_[${long}]_*`, customerId: `ct_\`${long}`, minutesWaited: 100_000.55 }));
		const total = { ...comparedTotal(123_456_789.99, -123_456_789.99), waitingAtEnd: 123_456_789, waiting };
		const text = reportText(total, []);
		counts.worstCaseComparedText = { characters: text.length, bytes: Buffer.byteLength(text) };
		expect(text.length).toBeLessThanOrEqual(TEXT_LIMIT);
		// Every headline figure with its change; the waiting list gives way first.
		// 8 figures (conversations, 4 times, hand-overs, the rating, waiting) and 3 shares.
		expect(text.match(/\(▼ 123456789\.99( min)?\)/g)).toHaveLength(8);
		expect(text.match(/\(▼ 100 pts\)/g)).toHaveLength(3);
		expect(text).toContain('- Waiting at the end: 123456789 (▼ 123456789.99)');
		expect(text.split('\n').filter((line) => line.includes('customer `')).length).toBeGreaterThan(0);
	});
});

describe('Person Names is checked before any request, naming the field and the item', () => {
	const cases: Array<[string, unknown, string]> = [
		['not JSON', '{usr_a: Dana}', "Invalid 'Person Names': it is not JSON [item 1]"],
		['a list', '["Dana"]', "Invalid 'Person Names': expected an object of ids to names, got a list [item 1]"],
		['an id that is not one', '{"usr a": "Dana"}', 'Invalid \'Person Names\': "usr a" is not a person id [item 1]'],
		['a name that is not text', '{"usr_a": 7}', 'Invalid \'Person Names\': the name of "usr_a" is number, not text of 1 to 200 characters [item 1]'],
		['an empty name', '{"usr_a": " "}', 'Invalid \'Person Names\': the name of "usr_a" is " ", not text of 1 to 200 characters [item 1]'],
	];

	test.each(cases)('%s', async (_label, bad, message) => {
		await resetStats(suite.sb);
		const names = `={{ $json.index === 1 ? ${JSON.stringify(bad)} : '{}' }}`;
		const result = await report(suite.sb.key, { groupBy: 'person', options: { personNames: names } }, 'UTC', [{ index: 0 }, { index: 1 }]);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(message);
		expect((await stats(suite.sb)).requests).toBe(0);
	});
});

describe('the reference written from the definitions agrees on random workspaces: the bot\'s share, people, conversations', () => {
	const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Adelaide', 'UTC', 'America/Sao_Paulo'];
	const GROUPS = ['person', 'conversation', 'day', 'hour', 'none'];
	const FIXED = ['2026-10-24', '2026-10-31', '2026-04-04'];
	const SEEDS = Array.from({ length: 15 }, (_, i) => 5203 + i * 11);
	const tally = { workspaces: 0, messages: 0, personItems: 0, conversationItems: 0, differences: 0 };

	afterAll(() => {
		counts.property = tally;
	});

	test.each(SEEDS)('seed %d', async (seed) => {
		const random = world.prng(seed);
		const { timeZone, date, startMs, endMs, endDate } = world.randomDays(random, { zones: ZONES, fixed: FIXED, fixedChance: 0.4 });
		const groupBy = GROUPS[SEEDS.indexOf(seed) % GROUPS.length];
		const targetMinutes = random.pick([15, 5, 0.5, 60, 7.5]);
		const workspace = await world.randomWorkspace(suite.sb, { seed, startMs, endMs, conversations: random.int(20, 60) });
		const channelTypes = random.chance(0.3) ? [workspace.channels[0].type] : [];
		const client = sandboxClient(suite.sb, workspace.key);
		const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
		// Names for some of the people who wrote, and one for nobody.
		const writers = [...new Set(data.messages.map((message) => message.from_user_id).filter((id) => typeof id === 'string'))] as string[];
		const personNames = Object.fromEntries([...writers.filter(() => random.chance(0.6)).map((id, index) => [id, `Agent ${index}`]), ['usr_nobody', 'Nobody']]);
		const result = await report(workspace.key, { period: 'custom', after: `${date}T00:00:00`, before: `${endDate}T00:00:00`, groupBy, options: { targetMinutes, channelTypes, personNames: JSON.stringify(personNames) } }, timeZone);
		expect(result.status).toBe('success');
		const period = { start: startMs, end: endMs, timeZone, targetMinutes, channelTypes, groupBy, personNames };
		const found = reference.compareTeamWithReference(result.json, data, period);
		// The figures that were there keep their values with the new groupings.
		const bucketsCompared = groupBy === 'day' || groupBy === 'hour' ? groupBy : 'none';
		found.push(...reference.compareWithReference(result.json, reference.referenceReport(data, period), bucketsCompared));
		tally.workspaces++;
		tally.messages += data.messages.length;
		tally.personItems += result.json.filter((item) => item.scope === 'person').length;
		tally.conversationItems += result.json.filter((item) => item.scope === 'conversation').length;
		// Every time of a conversation item is written as the other items write theirs, in the zone, with the offset of that instant.
		for (const row of result.json.filter((item) => item.scope === 'conversation')) {
			for (const field of ['periodStart', 'periodEnd', 'firstMessageAt', 'lastMessageAt', 'firstCustomerMessageAt', 'waitingSince']) {
				if (row[field] !== null && row[field] !== isoInZone(Date.parse(String(row[field])), timeZone)) found.push({ what: `${field} of ${row.conversationId}`, actual: row[field] });
			}
		}
		tally.differences += found.length;
		expect(found).toEqual([]);
	});
});

describe('with issue 51\'s options (version 1.1, Business Hours, the previous period): people, conversations and the bot\'s share by the report\'s clock, the reference agrees', () => {
	const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Adelaide', 'UTC'];
	/** The day after each is a change of the clocks in one of the zones. */
	const FIXED = ['2026-10-24', '2026-10-31', '2026-04-04', '2026-03-28'];
	const GROUPS = ['person', 'conversation', 'hour'];
	const SCHEDULES = ['Mon-Fri 09:00-12:30, 13:30-18:00; Sat-Sun 10:00-14:00', 'Mon-Sun 01:30-02:30, 08:00-20:00'];
	const SEEDS = Array.from({ length: 9 }, (_, i) => 7301 + i * 13);
	const tally = { workspaces: 0, messages: 0, personItems: 0, conversationItems: 0, differences: 0 };

	afterAll(() => {
		counts.combined = tally;
	});

	test.each(SEEDS)('seed %d', async (seed) => {
		const random = world.prng(seed);
		const timeZone = random.pick(ZONES);
		const days = random.int(1, 2);
		const date = random.pick(FIXED);
		const { startMs, endMs, endDate } = world.localDays(date, days, timeZone);
		const previous = { kind: 'previousPeriod', start: startMs - (endMs - startMs), end: startMs };
		const groupBy = GROUPS[SEEDS.indexOf(seed) % GROUPS.length];
		const businessHours = random.pick(SCHEDULES);
		// A closed first day, when a second day keeps open minutes in the period.
		const closedDates = days === 2 && random.chance(0.7) ? date : '';
		const [firstResponseTargetMinutes, replyTargetMinutes] = [random.pick([30, 5, 60]), random.pick([15, 2.5, 45])];
		const workspace = await world.randomWorkspace(suite.sb, { seed, startMs: previous.start, endMs, conversations: random.int(30, 60) });
		const client = sandboxClient(suite.sb, workspace.key);
		const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
		const writers = [...new Set(data.messages.map((message) => message.from_user_id).filter((id) => typeof id === 'string'))] as string[];
		const personNames = Object.fromEntries(writers.filter(() => random.chance(0.5)).map((id, index) => [id, `Agent ${index}`]));
		const options = { businessHours, closedDates, compareWith: 'previousPeriod', targetMinutes: firstResponseTargetMinutes, replyTargetMinutes, personNames: JSON.stringify(personNames) };
		const result = await report(workspace.key, { period: 'custom', after: `${date}T00:00:00`, before: `${endDate}T00:00:00`, groupBy, includeText: true, options }, timeZone, undefined, 1.1);
		expect([result.status, result.error?.message]).toEqual(['success', undefined]);
		const period = { start: startMs, end: endMs, timeZone, groupBy, businessHours, closedDates, firstResponseTargetMinutes, replyTargetMinutes, personNames, version: 1.1 };
		const found = reference.compareTeamWithReference(result.json, data, period);
		const bucketsCompared = groupBy === 'hour' ? 'hour' : 'none';
		const expected = reference.referenceComparison(reference.withBotShare(data, (p: Json) => reference.referenceReportV11(data, p)), { ...period, groupBy: bucketsCompared }, previous);
		found.push(...reference.compareWithReference(result.json, expected, bucketsCompared));
		const total = result.json.find((item) => item.scope === 'total') as Json;
		// Not vacuous: both windows had answers.
		expect([total.clock, total.conversationsAnswered > 0, total.previousConversationsAnswered > 0]).toEqual(['businessHours', true, true]);
		// The text: reply time and first response from their own fields, with their changes.
		const lines = String(total.text).split('\n');
		expect(lines[0]).toMatch(/, times in business hours$/);
		expect(lines.find((line) => line.startsWith('- Reply time (every wait): '))).toContain(`median ${total.replyTimeMedianMinutes ?? '–'}${total.replyTimeMedianMinutes === null ? '' : ' min'}`);
		expect(lines.find((line) => line.startsWith('- First response (new conversations): '))).toContain(`, ${total.awaitingFirstResponse} awaiting`);
		expect(lines.find((line) => line.startsWith('- Conversations with activity: '))).toMatch(/ \((▲|▼) \d+|=\) \(/);
		tally.workspaces++;
		tally.messages += data.messages.length;
		tally.personItems += result.json.filter((item) => item.scope === 'person').length;
		tally.conversationItems += result.json.filter((item) => item.scope === 'conversation').length;
		tally.differences += found.length;
		expect(found).toEqual([]);
	});
});
