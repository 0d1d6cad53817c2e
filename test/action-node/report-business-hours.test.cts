/**
 * Report > Get with Business Hours, in-process: the open-time clock against
 * times worked out by hand (split shifts, a weekend, closed dates, both
 * changes of the clocks, interval edges to the millisecond), for the node's
 * clock and the reference's alike; the operation against the reference
 * (test/support/report-reference.js) on seeded random workspaces with
 * random schedules across changes of the clocks; bad schedules fail before
 * any request, naming the field and the item.
 */
import type { INode } from 'n8n-workflow';

import { BusinessClock, parseBusinessHours } from '../../nodes/Omnichannel/report/businessHours';
import { ItemValidator } from '../../nodes/Omnichannel/helpers/validation';
import { runNode } from '../support/host/action-node.cjs';
import { resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { reference, sandboxClient, world } from '../support/report.cjs';
import { useSandbox } from '../support/suite.cjs';

const suite = useSandbox({ seed: 'empty' });
const counts: Json = {};

afterAll(() => {
	console.log(JSON.stringify({ suite: 'report business hours (in-process)', ...counts }));
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NODE = { name: 'Omnichannel', type: 'omnichannel', typeVersion: 1, position: [0, 0], parameters: {}, id: 'n' } as unknown as INode;
const BERLIN = 'Europe/Berlin';
const SHIFTS = 'Mon-Fri 09:00-12:30, 13:30-18:00; Sat 10:00-14:00';
/** A wall-clock time in Berlin (UTC+1 in winter, +2 in summer), as given. */
const berlin = (text: string) => Date.parse(text);

/** [what, schedule, closed dates, from, to, open minutes by hand] */
const HAND: Array<[string, string, string, number, number, number]> = [
	['Friday 17:50 to Monday 09:05: 10 on Friday, 240 on Saturday, 5 on Monday', SHIFTS, '', berlin('2026-11-27T17:50:00+01:00'), berlin('2026-11-30T09:05:00+01:00'), 255],
	['the same with Saturday closed', SHIFTS, '2026-11-28', berlin('2026-11-27T17:50:00+01:00'), berlin('2026-11-30T09:05:00+01:00'), 15],
	['across the lunch break: 12:20 to 13:40', SHIFTS, '', berlin('2026-11-27T12:20:00+01:00'), berlin('2026-11-27T13:40:00+01:00'), 20],
	['a night: 19:00 to 08:59', SHIFTS, '', berlin('2026-11-26T19:00:00+01:00'), berlin('2026-11-27T08:59:00+01:00'), 0],
	['Christmas closed: Thursday 17:00 to Monday 10:00', SHIFTS, '2026-12-25', berlin('2026-12-24T17:00:00+01:00'), berlin('2026-12-28T10:00:00+01:00'), 60 + 240 + 60],
	['spring forward (29 March): 01:00-04:00 is two hours', 'Sun 01:00-04:00', '', berlin('2026-03-29T00:00:00+01:00'), berlin('2026-03-29T06:00:00+02:00'), 120],
	['spring forward: 02:00-02:30 does not exist', 'Sun 02:00-02:30', '', berlin('2026-03-28T00:00:00+01:00'), berlin('2026-03-30T00:00:00+02:00'), 0],
	['fall back (25 October): 01:00-04:00 is four hours', 'Sun 01:00-04:00', '', berlin('2026-10-25T00:00:00+02:00'), berlin('2026-10-25T06:00:00+01:00'), 240],
	['fall back: 02:00-02:30 happens twice', 'Sun 02:00-02:30', '', berlin('2026-10-24T00:00:00+02:00'), berlin('2026-10-26T00:00:00+01:00'), 60],
	['a whole day that has 23 hours', 'Sun 00:00-24:00', '', berlin('2026-03-29T00:00:00+01:00'), berlin('2026-03-30T00:00:00+02:00'), 23 * 60],
	['a whole day that has 25 hours', 'Sun 00:00-24:00', '', berlin('2026-10-25T00:00:00+02:00'), berlin('2026-10-26T00:00:00+01:00'), 25 * 60],
	['a week across the weekend, "Fri-Mon" wraps', 'Fri-Mon 10:00-11:00', '', berlin('2026-11-23T00:00:00+01:00'), berlin('2026-11-30T00:00:00+01:00'), 4 * 60],
];

describe('the business-hours clock against times worked out by hand (Europe/Berlin)', () => {
	const validator = new ItemValidator(NODE, 0);

	test.each(HAND)('%s', (_what, schedule, closed, from, to, minutes) => {
		const clock = new BusinessClock(parseBusinessHours(validator, schedule, closed), BERLIN, from, to);
		expect(clock.between(from, to)).toBe(minutes * MINUTE);
		expect(reference.referenceBusinessClock(schedule, closed, BERLIN)(from, to)).toBe(minutes * MINUTE);
	});

	test('interval edges to the millisecond: 09:00 opens, 18:00 closes', () => {
		const clock = new BusinessClock(parseBusinessHours(validator, SHIFTS, ''), BERLIN, berlin('2026-11-27T00:00:00+01:00'), berlin('2026-11-28T00:00:00+01:00'));
		const nine = berlin('2026-11-27T09:00:00+01:00');
		const six = berlin('2026-11-27T18:00:00+01:00');
		expect([clock.between(nine - 1, nine), clock.between(nine - 1, nine + 1), clock.between(six - 1, six + 1), clock.between(six, six + HOUR)]).toEqual([0, 1, 1, 0]);
		// A wait opened at night starts counting when the hours open.
		expect(clock.between(berlin('2026-11-27T03:00:00+01:00'), nine + 7 * MINUTE)).toBe(7 * MINUTE);
	});
});

describe('bad Business Hours fail the item before any request, naming the field and the item', () => {
	const CUSTOM = { period: 'custom', after: '2026-05-29T00:00:00', before: '2026-05-30T00:00:00' };
	/** [what, the option item 1 gets wrong, its bad value, the error]; item 0 has 'Mon-Fri 09:00-17:00' and no closed dates. */
	const cases: Array<[string, string, unknown, string]> = [
		['an interval that ends before it starts', 'businessHours', 'Mon-Fri 17:00-09:00', "Invalid 'Business Hours': the interval 17:00-09:00 ends before it starts [item 1]"],
		['overlapping intervals', 'businessHours', 'Mon-Fri 09:00-12:00, 11:30-18:00', "Invalid 'Business Hours': the intervals 09:00-12:00 and 11:30-18:00 overlap on Monday [item 1]"],
		['overlapping parts', 'businessHours', 'Mon-Fri 09:00-17:00; Fri 16:00-20:00', "Invalid 'Business Hours': the intervals 09:00-17:00 and 16:00-20:00 overlap on Friday [item 1]"],
		['a time that is not one', 'businessHours', 'Mon-Fri 9am-5pm', 'Invalid \'Business Hours\': "9am" is not a time [item 1]'],
		['an hour past 24', 'businessHours', 'Mon-Fri 09:00-24:30', 'Invalid \'Business Hours\': "24:30" is not a time [item 1]'],
		['a day that is not one', 'businessHours', 'Funday 09:00-17:00', 'Invalid \'Business Hours\': "Funday" is not a weekday [item 1]'],
		['a closed date that is not a date', 'closedDates', '2026-12-25, 2026-02-30', 'Invalid \'Closed Dates\': "2026-02-30" is not a date [item 1]'],
		['no open minute in the whole period', 'businessHours', 'Sat-Sun 10:00-14:00', "Invalid 'Business Hours': the schedule and the closed dates leave no open minute in the period [item 1]"],
		['no open minute: the period\'s only day closed', 'closedDates', '2026-05-29', "Invalid 'Business Hours': the schedule and the closed dates leave no open minute in the period [item 1]"],
	];

	test.each(cases)('%s', async (_label, option, bad, message) => {
		await resetStats(suite.sb);
		const good: Json = { businessHours: 'Mon-Fri 09:00-17:00', closedDates: '' };
		const options = { ...good, [option]: `={{ $json.index === 1 ? ${JSON.stringify(bad)} : ${JSON.stringify(good[option])} }}` };
		const result = await runNode({
			credentials: { baseUrl: suite.sb.base_url, apiKey: suite.sb.key },
			timezone: BERLIN,
			items: [{ json: { index: 0 } }, { json: { index: 1 } }],
			parameters: { resource: 'report', operation: 'get', ...CUSTOM, options },
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(message);
		expect((await stats(suite.sb)).requests).toBe(0);
	});

	test('Closed Dates without Business Hours', async () => {
		await resetStats(suite.sb);
		const result = await runNode({
			credentials: { baseUrl: suite.sb.base_url, apiKey: suite.sb.key },
			timezone: BERLIN,
			parameters: { resource: 'report', operation: 'get', ...CUSTOM, options: { closedDates: '2026-12-25' } },
		});
		expect(result.error?.message).toBe("Invalid 'Closed Dates': it needs Business Hours [item 0]");
		expect((await stats(suite.sb)).requests).toBe(0);
	});
});

/** A random weekly schedule: the week in consecutive groups of days, each with 1 to 3 intervals apart (split shifts), some across 02:00-03:00. */
function randomSchedule(random: ReturnType<typeof world.prng>): string {
	const names = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
	const parts: string[] = [];
	const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
	for (let day = 0; day < 7; ) {
		const last = Math.min(6, day + random.int(0, 4));
		const days = day === last ? names[day] : `${names[day]}-${names[last]}`;
		let intervals: string[];
		if (random.chance(0.15)) intervals = ['00:00-24:00'];
		else if (random.chance(0.2)) intervals = [`01:${random.pick(['00', '30', '45'])}-0${random.int(2, 3)}:${random.pick(['00', '15', '30'])}`, '08:00-17:00'];
		else {
			const edges = new Set<number>();
			const count = random.int(1, 3) * 2;
			while (edges.size < count) edges.add(random.int(0, 24 * 60));
			const sorted = [...edges].sort((a, b) => a - b);
			intervals = [];
			for (let i = 0; i < sorted.length; i += 2) intervals.push(`${hhmm(sorted[i])}-${hhmm(sorted[i + 1])}`);
		}
		parts.push(`${days} ${intervals.join(', ')}`);
		day = last + 1;
	}
	return parts.join('; ');
}

describe('the reference agrees with the operation on random workspaces with random business hours', () => {
	/** Zones with a change of the clocks the day after the date (Lord Howe's is half an hour), and two without. */
	const PERIODS: Array<[string, string]> = [
		['Europe/Berlin', '2026-10-24'],
		['Europe/Berlin', '2026-03-28'],
		['America/New_York', '2026-10-31'],
		['America/New_York', '2026-03-07'],
		['Australia/Adelaide', '2026-04-04'],
		['Australia/Lord_Howe', '2026-04-04'],
		['Asia/Kolkata', '2026-06-10'],
		['UTC', '2026-09-01'],
	];
	const SEEDS = Array.from({ length: 16 }, (_, i) => 5003 + i * 11);
	let compared = 0;
	let messagesCompared = 0;
	let differences = 0;

	afterAll(() => {
		counts.property = { workspaces: compared, messages: messagesCompared, differences };
	});

	test.each(SEEDS)('seed %d', async (seed) => {
		const random = world.prng(seed);
		// Every period twice.
		const [timeZone, date] = PERIODS[SEEDS.indexOf(seed) % PERIODS.length];
		// Each period starts the day before its zone's change of the clocks: two or three days hold it.
		const days = random.int(2, 3);
		const { startMs, endMs, endDate } = world.localDays(date, days, timeZone);
		const groupBy = random.pick(['none', 'day', 'hour']);
		const targetMinutes = random.pick([15, 5, 60, 240]);
		const businessHours = randomSchedule(random);
		// Some of the period's dates closed, never all of them.
		const dates = Array.from({ length: days + 1 }, (_, i) => new Date(Date.parse(`${date}T00:00:00Z`) + (i - 1) * 86_400_000).toISOString().slice(0, 10));
		const closedDates = dates.filter((_, i) => i !== 1 && random.chance(0.3)).join(', ');
		const workspace = await world.randomWorkspace(suite.sb, { seed, startMs, endMs, conversations: random.int(20, 50) });
		const client = sandboxClient(suite.sb, workspace.key);
		const data = { messages: await client.listAll('/messages'), conversations: await client.listAll('/conversations'), channels: await client.listAll('/channels') };
		const result = await runNode({
			credentials: { baseUrl: suite.sb.base_url, apiKey: workspace.key },
			timezone: timeZone,
			parameters: {
				resource: 'report',
				operation: 'get',
				period: 'custom',
				after: `${date}T00:00:00`,
				before: `${endDate}T00:00:00`,
				groupBy,
				options: { targetMinutes, businessHours, closedDates },
			},
		});
		if (result.status !== 'success') {
			// A random schedule may leave a short period no open minute: then the error says so, and the reference agrees.
			expect(result.error?.message).toMatch(/no open minute in the period/);
			expect(reference.referenceBusinessClock(businessHours, closedDates, timeZone)(startMs, endMs)).toBe(0);
			return;
		}
		const expected = reference.referenceReportWithClock(data, { start: startMs, end: endMs, timeZone, targetMinutes, groupBy, businessHours, closedDates });
		const found = reference.compareWithReference(result.json, expected, groupBy);
		compared++;
		messagesCompared += data.messages.length;
		differences += found.length;
		expect(found).toEqual([]);
		const total = result.json.find((item) => item.scope === 'total') as Json;
		expect(total.clock).toBe('businessHours');
		// Open time is never more than the calendar's.
		if (total.longestWaitMinutes !== null) expect(total.longestWaitMinutes).toBeLessThanOrEqual(total.calendarLongestWaitMinutes);
	});
});
