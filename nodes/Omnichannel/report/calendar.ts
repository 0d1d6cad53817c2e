/**
 * Calendar arithmetic in a time zone, for the report's period and its
 * buckets: days and hours as the workflow's time zone counts them, so a day
 * is 23 or 25 hours across a daylight-saving change, and an hour that the
 * clock repeats is two buckets. Built on Intl (no dependency): every
 * time zone offset in use is a multiple of 15 minutes, so the wall clock
 * changes its hour or date only on a 15-minute grid of UTC.
 */
import { localTime, offsetAt, offsetOf, wallClockToEpoch } from '../helpers/dates';
import type { LocalTime } from '../helpers/dates';

const QUARTER_HOUR = 15 * 60_000;

const pad = (value: number, length = 2) => String(value).padStart(length, '0');

/** ISO 8601 with the zone's offset, e.g. 2026-06-01T00:00:00.000+02:00. */
export function isoInZone(epochMs: number, timeZone: string): string {
	const offset = offsetAt(epochMs, timeZone);
	const shifted = new Date(epochMs + offset);
	const sign = offset < 0 ? '-' : '+';
	const minutes = Math.round(Math.abs(offset) / 60_000);
	return `${shifted.toISOString().slice(0, 23)}${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

const dayKey = (local: LocalTime) => local.year * 10_000 + local.month * 100 + local.day;
const hourKey = (local: LocalTime) => dayKey(local) * 100 + local.hour;

/** A calendar date `days` after the given one (days may be negative). */
export function addDays(date: { year: number; month: number; day: number }, days: number): { year: number; month: number; day: number } {
	const moved = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
	return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

/**
 * The first instant of a calendar date in `timeZone`: its midnight, or the
 * first time the clock shows that date where a change skips midnight.
 */
export function startOfDate(date: { year: number; month: number; day: number }, timeZone: string): number {
	const key = date.year * 10_000 + date.month * 100 + date.day;
	const text = `${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)}T00:00:00`;
	let at = Math.floor(wallClockToEpoch(text, timeZone) / QUARTER_HOUR) * QUARTER_HOUR;
	while (dayKey(localTime(at, timeZone)) >= key) at -= QUARTER_HOUR;
	while (dayKey(localTime(at, timeZone)) < key) at += QUARTER_HOUR;
	return at;
}

/**
 * The same wall-clock time `days` later, in `timeZone` (where that time does
 * not exist on the day, the instant the clock passes it).
 */
export function addLocalDays(epochMs: number, days: number, timeZone: string): number {
	const local = localTime(epochMs, timeZone);
	const date = addDays(local, days);
	const text = `${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)}T${pad(local.hour)}:${pad(local.minute)}:${pad(local.second)}`;
	return wallClockToEpoch(text, timeZone) + (epochMs % 1000);
}

export type BucketUnit = 'day' | 'hour';

/**
 * Where buckets start in [startMs, endMs): startMs, then every instant where
 * the zone's calendar date (day) or hour (hour) changes. Ascending.
 */
export function bucketStarts(startMs: number, endMs: number, unit: BucketUnit, timeZone: string): number[] {
	const keyOf = unit === 'day' ? dayKey : hourKey;
	const starts = [startMs];
	let at = Math.floor(startMs / QUARTER_HOUR) * QUARTER_HOUR + QUARTER_HOUR;
	const first = localTime(startMs, timeZone);
	let previous = keyOf(first);
	let previousOffset = offsetOf(first, startMs);
	for (; at < endMs; at += QUARTER_HOUR) {
		const local = localTime(at, timeZone);
		const key = keyOf(local);
		const offset = offsetOf(local, at);
		// An hour the clock repeats (the offset fell back) is a bucket of its own.
		if (key !== previous || (unit === 'hour' && offset !== previousOffset && local.minute === 0)) starts.push(at);
		previous = key;
		previousOffset = offset;
	}
	return starts;
}

/** The index of the bucket holding `epochMs` (the last start at or before it). */
export function bucketIndex(starts: Float64Array | number[], epochMs: number): number {
	let low = 0;
	let high = starts.length - 1;
	while (low < high) {
		const middle = (low + high + 1) >>> 1;
		if (starts[middle] <= epochMs) low = middle;
		else high = middle - 1;
	}
	return low;
}
