/**
 * Business Hours for the report (docs/operations.md, "Reports", "Business
 * hours"): a weekly schedule in the workflow's time zone and closed dates.
 * An instant is open when its wall clock (date and time of day, in the
 * zone) falls in an interval of that date's weekday and the date is not
 * closed; so a clock that skips an hour drops the skipped times and a
 * repeated hour counts twice. The clock measures the open time between two
 * instants from a list of open spans computed once for the report.
 */
import { localTime, offsetOf } from '../helpers/dates';
import type { ItemValidator } from '../helpers/validation';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const QUARTER_HOUR = 15 * MINUTE;

/** Weekday names as written in the schedule; index 0 is Sunday, as Date.getUTCDay counts. */
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FULL_WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const TIME = /^([01][0-9]|2[0-4]):([0-5][0-9])$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export const BUSINESS_HOURS_FIELD = 'Business Hours';
export const CLOSED_DATES_FIELD = 'Closed Dates';
const SCHEDULE_FIX = 'Write days and their intervals, e.g. "Mon-Fri 09:00-12:30, 13:30-18:00; Sat 10:00-14:00" (24-hour times; an interval ends after it starts).';

export interface BusinessHours {
	/** Per weekday (0 Sunday), the open intervals in minutes of the day, [start, end), ascending and apart. */
	week: Array<Array<[number, number]>>;
	/** Closed dates, as YYYY-MM-DD. */
	closed: Set<string>;
}

function weekday(validator: ItemValidator, name: string): number {
	const lower = name.toLowerCase();
	const index = WEEKDAYS.indexOf(lower) >= 0 ? WEEKDAYS.indexOf(lower) : FULL_WEEKDAYS.indexOf(lower);
	if (index < 0) validator.fail(BUSINESS_HOURS_FIELD, `"${name}" is not a weekday`, SCHEDULE_FIX, 'weekdays (Mon to Sun) with intervals such as 09:00-17:00');
	return index;
}

function minuteOfDay(validator: ItemValidator, text: string): number {
	const match = TIME.exec(text);
	if (!match || (match[1] === '24' && match[2] !== '00')) {
		validator.fail(BUSINESS_HOURS_FIELD, `"${text}" is not a time`, SCHEDULE_FIX, 'times from 00:00 to 24:00');
	}
	return Number(match[1]) * 60 + Number(match[2]);
}

/** The weekdays a part names: "Mon", "Mon-Fri", "Fri-Mon" (across the weekend), "Mon,Wed". */
function weekdaysOf(validator: ItemValidator, text: string): number[] {
	const days: number[] = [];
	for (const piece of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
		const [from, to, extra] = piece.split('-').map((part) => part.trim());
		if (extra !== undefined) weekday(validator, piece);
		const first = weekday(validator, from);
		const last = to === undefined ? first : weekday(validator, to);
		for (let day = first; ; day = (day + 1) % 7) {
			days.push(day);
			if (day === last) break;
		}
	}
	return days;
}

/**
 * Reads the schedule ("Mon-Fri 09:00-12:30, 13:30-18:00; Sat 10:00-14:00")
 * and the closed dates ("2026-12-25, 2026-12-26"); a bad one fails the item
 * naming its field.
 */
export function parseBusinessHours(validator: ItemValidator, schedule: unknown, closedDates: unknown): BusinessHours {
	if (typeof schedule !== 'string' || schedule.trim() === '') validator.fail(BUSINESS_HOURS_FIELD, 'it is empty', SCHEDULE_FIX);
	const week: Array<Array<[number, number]>> = WEEKDAYS.map(() => []);
	for (const part of schedule.split(/[;\n]/).map((text) => text.trim()).filter((text) => text !== '')) {
		// The days end where the first time begins.
		const at = part.search(/\d/);
		if (at <= 0) validator.fail(BUSINESS_HOURS_FIELD, `"${part}" names no weekday or no interval`, SCHEDULE_FIX);
		const days = weekdaysOf(validator, part.slice(0, at).trim().replace(/,$/, ''));
		for (const text of part.slice(at).split(',').map((piece) => piece.trim()).filter((piece) => piece !== '')) {
			const times = text.split('-').map((piece) => piece.trim());
			if (times.length !== 2) validator.fail(BUSINESS_HOURS_FIELD, `"${text}" is not an interval`, SCHEDULE_FIX, 'intervals such as 09:00-17:00');
			const start = minuteOfDay(validator, times[0]);
			const end = minuteOfDay(validator, times[1]);
			if (end <= start) validator.fail(BUSINESS_HOURS_FIELD, `the interval ${text} ends before it starts`, SCHEDULE_FIX);
			for (const day of days) week[day].push([start, end]);
		}
	}
	week.forEach((intervals, day) => {
		intervals.sort((a, b) => a[0] - b[0]);
		for (let i = 1; i < intervals.length; i++) {
			if (intervals[i][0] < intervals[i - 1][1]) {
				const show = ([start, end]: [number, number]) => `${clockText(start)}-${clockText(end)}`;
				validator.fail(BUSINESS_HOURS_FIELD, `the intervals ${show(intervals[i - 1])} and ${show(intervals[i])} overlap on ${FULL_WEEKDAYS[day][0].toUpperCase()}${FULL_WEEKDAYS[day].slice(1)}`, SCHEDULE_FIX);
			}
		}
	});
	const closed = new Set<string>();
	const list = Array.isArray(closedDates) ? closedDates : typeof closedDates === 'string' ? closedDates.split(/[,;\s]+/) : closedDates === undefined || closedDates === null ? [] : [closedDates];
	for (const entry of list) {
		const text = typeof entry === 'string' ? entry.trim() : entry;
		if (text === '') continue;
		const match = typeof text === 'string' ? DATE.exec(text) : null;
		const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
		const real = match && new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day && month >= 1 && month <= 12;
		if (!real) validator.fail(CLOSED_DATES_FIELD, `${JSON.stringify(text)} is not a date`, 'Write dates as YYYY-MM-DD, separated by commas, e.g. 2026-12-25, 2026-12-26.', 'dates such as 2026-12-25');
		closed.add(text as string);
	}
	return { week, closed };
}

const clockText = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

const dateText = (wallDayMs: number) => new Date(wallDayMs).toISOString().slice(0, 10);

/** [from, to) of UTC with one offset of the zone. */
interface Segment {
	from: number;
	to: number;
	offset: number;
}

const offsetAtMs = (epochMs: number, timeZone: string) => offsetOf(localTime(epochMs, timeZone), epochMs);

/** The zone's spans of constant offset over [from, to); offsets change on the quarter-hour grid of UTC. */
function segments(from: number, to: number, timeZone: string): Segment[] {
	const result: Segment[] = [];
	let start = Math.floor(from / QUARTER_HOUR) * QUARTER_HOUR;
	let offset = offsetAtMs(start, timeZone);
	while (start < to) {
		const next = start + DAY;
		if (offsetAtMs(next, timeZone) === offset) {
			// No change within a day unless the offset differs at its end (the zone never changes twice in a day).
			result.push({ from: start, to: next, offset });
			start = next;
			continue;
		}
		// The first quarter-hour with another offset.
		let low = start;
		let high = next;
		while (high - low > QUARTER_HOUR) {
			const middle = low + Math.floor((high - low) / 2 / QUARTER_HOUR) * QUARTER_HOUR;
			if (offsetAtMs(middle, timeZone) === offset) low = middle;
			else high = middle;
		}
		result.push({ from: start, to: high, offset });
		start = high;
		offset = offsetAtMs(high, timeZone);
	}
	return result;
}

/** Open time between instants, for the instants of [fromMs, toMs] (with a day's margin). */
export class BusinessClock {
	private readonly starts: Float64Array;

	private readonly ends: Float64Array;

	/** Open ms before each span. */
	private readonly before: Float64Array;

	constructor(hours: BusinessHours, timeZone: string, fromMs: number, toMs: number) {
		const spans: Array<[number, number]> = [];
		for (const { from, to, offset } of segments(fromMs - DAY, toMs + DAY, timeZone)) {
			for (let day = Math.floor((from + offset) / DAY) * DAY; day < to + offset; day += DAY) {
				if (hours.closed.has(dateText(day))) continue;
				for (const [start, end] of hours.week[new Date(day).getUTCDay()]) {
					const open = Math.max(from, day + start * MINUTE - offset);
					const close = Math.min(to, day + end * MINUTE - offset);
					if (open < close) spans.push([open, close]);
				}
			}
		}
		spans.sort((a, b) => a[0] - b[0]);
		const merged: Array<[number, number]> = [];
		for (const span of spans) {
			const last = merged[merged.length - 1];
			if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
			else merged.push([span[0], span[1]]);
		}
		this.starts = Float64Array.from(merged, (span) => span[0]);
		this.ends = Float64Array.from(merged, (span) => span[1]);
		this.before = new Float64Array(merged.length);
		for (let i = 1; i < merged.length; i++) this.before[i] = this.before[i - 1] + this.ends[i - 1] - this.starts[i - 1];
	}

	/** Open ms before `epochMs` (from the first span). */
	private openBefore(epochMs: number): number {
		let low = 0;
		let high = this.starts.length - 1;
		if (high < 0 || epochMs <= this.starts[0]) return 0;
		while (low < high) {
			const middle = (low + high + 1) >>> 1;
			if (this.starts[middle] <= epochMs) low = middle;
			else high = middle - 1;
		}
		return this.before[low] + Math.min(epochMs, this.ends[low]) - this.starts[low];
	}

	/** Open ms in [fromMs, toMs). */
	between(fromMs: number, toMs: number): number {
		return toMs <= fromMs ? 0 : this.openBefore(toMs) - this.openBefore(fromMs);
	}
}

/**
 * The options' Business Hours and Closed Dates as a clock for [fromMs,
 * toMs), or undefined when Business Hours is not set; fails the item when
 * the schedule leaves no open minute in [checkFromMs, checkToMs).
 */
export function businessClockOf(
	validator: ItemValidator,
	options: { businessHours?: unknown; closedDates?: unknown },
	timeZone: string,
	fromMs: number,
	toMs: number,
	period: [checkFromMs: number, checkToMs: number],
): BusinessClock | undefined {
	const given = (value: unknown) => value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
	if (!given(options.businessHours)) {
		if (given(options.closedDates)) validator.fail(CLOSED_DATES_FIELD, 'it needs Business Hours', `Add the option '${BUSINESS_HOURS_FIELD}' too, or remove '${CLOSED_DATES_FIELD}'.`);
		return undefined;
	}
	const clock = new BusinessClock(parseBusinessHours(validator, options.businessHours, options.closedDates), timeZone, fromMs, toMs);
	if (period[1] > period[0] && clock.between(period[0], period[1]) === 0) {
		validator.fail(BUSINESS_HOURS_FIELD, 'the schedule and the closed dates leave no open minute in the period', 'Check the weekdays and the closed dates, or pick another period.');
	}
	return clock;
}
