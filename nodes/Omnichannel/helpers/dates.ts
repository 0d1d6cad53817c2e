import type { ItemValidator } from './validation';

const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const DATE_FIX = 'Pick a date, or use an expression that returns a date and time such as 2026-06-01T09:30:00.';

/** Milliseconds that `timeZone` is ahead of UTC at the instant `epochMs`. */
export function zoneOffset(epochMs: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: 'numeric',
		day: 'numeric',
		hour: 'numeric',
		minute: 'numeric',
		second: 'numeric',
	}).formatToParts(new Date(epochMs));
	const field = (type: string) => Number(parts.find((part) => part.type === type)?.value);
	const wallClock = Date.UTC(
		field('year'),
		field('month') - 1,
		field('day'),
		field('hour'),
		field('minute'),
		field('second'),
	);
	return wallClock - Math.floor(epochMs / 1000) * 1000;
}

/** A wall-clock date-time without zone, read in `timeZone`. */
export function wallClockToEpoch(text: string, timeZone: string): number {
	const asUtc = Date.parse(`${text.replace(' ', 'T')}Z`);
	if (Number.isNaN(asUtc)) return NaN;
	let epoch = asUtc - zoneOffset(asUtc, timeZone);
	// Near a daylight-saving change the first guess can be an hour off.
	epoch = asUtc - zoneOffset(epoch, timeZone);
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
