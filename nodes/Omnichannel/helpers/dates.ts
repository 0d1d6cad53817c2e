import type { ItemValidator } from './validation';

const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const DATE_FIX = 'Pick a date, or use an expression that returns a date and time such as 2026-06-01T09:30:00.';

export interface LocalTime {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
	let formatter = formatters.get(timeZone);
	if (!formatter) {
		const parts = { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' } as const;
		formatter = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', ...parts });
		formatters.set(timeZone, formatter);
	}
	return formatter;
}

/** The wall clock in `timeZone` at `epochMs`. */
export function localTime(epochMs: number, timeZone: string): LocalTime {
	const parts = formatterFor(timeZone).formatToParts(new Date(epochMs));
	const field = (type: string) => Number(parts.find((part) => part.type === type)?.value);
	return { year: field('year'), month: field('month'), day: field('day'), hour: field('hour'), minute: field('minute'), second: field('second') };
}

/** Milliseconds the wall clock `local` is ahead of UTC at `epochMs` (whole seconds). */
export function offsetOf(local: LocalTime, epochMs: number): number {
	const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
	return wall - Math.floor(epochMs / 1000) * 1000;
}

/** Milliseconds `timeZone` is ahead of UTC at `epochMs`. */
export const offsetAt = (epochMs: number, timeZone: string): number => offsetOf(localTime(epochMs, timeZone), epochMs);

/** A wall-clock date-time without zone, read in `timeZone`. */
export function wallClockToEpoch(text: string, timeZone: string): number {
	const asUtc = Date.parse(`${text.replace(' ', 'T')}Z`);
	if (Number.isNaN(asUtc)) return NaN;
	let epoch = asUtc - offsetAt(asUtc, timeZone);
	// Near a daylight-saving change the first guess can be an hour off.
	epoch = asUtc - offsetAt(epoch, timeZone);
	return epoch;
}

/**
 * A date-time parameter as milliseconds since the epoch. n8n's date picker
 * gives a wall-clock time without zone, meant in the workflow's time zone;
 * expressions may give an ISO string with zone, a Luxon DateTime, a Date or
 * UNIX seconds.
 */
export function toEpochMs(validator: ItemValidator, field: string, value: unknown, timeZone: string): number {
	let epochMs = NaN;
	if (typeof value === 'number') epochMs = value * 1000;
	else if (value instanceof Date) epochMs = value.getTime();
	else if (value && typeof value === 'object' && typeof (value as { toMillis?: unknown }).toMillis === 'function') {
		epochMs = (value as { toMillis: () => number }).toMillis();
	} else if (typeof value === 'string' && value.trim() !== '') {
		const text = value.trim();
		if (DATE_ONLY.test(text)) epochMs = wallClockToEpoch(`${text}T00:00:00`, timeZone);
		else if (WALL_CLOCK.test(text) && !HAS_ZONE.test(text)) epochMs = wallClockToEpoch(text, timeZone);
		else epochMs = Date.parse(text);
	}
	if (!Number.isFinite(epochMs)) validator.fail(field, 'expected a date and time', DATE_FIX);
	if (epochMs < 0) validator.fail(field, 'it is before 1970', 'Pick a date on or after 1 January 1970.');
	return epochMs;
}

/** A date-time parameter as UNIX seconds (see toEpochMs). */
export function toUnixSeconds(validator: ItemValidator, field: string, value: unknown, timeZone: string): number {
	return Math.floor(toEpochMs(validator, field, value, timeZone) / 1000);
}

/** Whether a date-time parameter was given (a Filters entry added but left empty counts as not given). */
export const isDateGiven = (value: unknown): boolean => value !== undefined && value !== null && value !== '';
