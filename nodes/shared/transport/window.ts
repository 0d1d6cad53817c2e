import type { IDataObject } from 'n8n-workflow';

import { parseListPage } from './pages';
import { PER_PAGE_MAX } from './pagination';
import type { ListPage } from './pagination';
import { apiRequest } from './request';
import type { OmnichannelContext } from './types';

/** The records of a list inside a time window, reading only the pages that reach into it: lists come newest first (docs/api-assumptions.md, "Lists and pagination"). */

/** Which records a window holds: `afterMs <= time < beforeMs`, on the field the list is ordered by. */
export interface TimeWindow {
	field: 'created_at' | 'updated_at';
	/** Records at or after this time (ms since the epoch); none: no lower bound. */
	afterMs?: number;
	/** Records before this time (ms since the epoch); none: no upper bound. */
	beforeMs?: number;
}

export interface WindowOptions {
	itemIndex?: number;
	maxRequestsPerSecond?: number;
	/** Most records to accept; none: all of the window. */
	limit?: number;
	/** Keeps only the records it accepts, for filters the API lacks. */
	keep?: (record: IDataObject) => boolean;
	/** Pages requested at once while reading the window (the transport's limiter and concurrency still apply). */
	pagesInFlight?: number;
}

/** What a read cost, for the callers that report it. */
export interface WindowStats {
	/** List requests made, the search's included. */
	requests: number;
	/** Requests the search for the window's first page made (page 1 not counted). */
	searchRequests: number;
	/** Records accepted (in the window, kept, each once). */
	records: number;
}

/** Called with each page's accepted records in the list's order, one page after the other; false stops the reading. */
export type WindowPageHandler<T> = (records: T[]) => boolean | void | Promise<boolean | void>;

const PAGES_IN_FLIGHT = 8;
/** Pages whose density estimates how many records are left before the window's start. */
const DENSITY_PAGES = 4;

interface Position {
	time: number;
	id: string;
}

/** Whether `a` comes before `b` in the list's order (newer, or as new with a greater id). */
const newerThan = (a: Position, b: Position): boolean => a.time > b.time || (a.time === b.time && a.id > b.id);

/** Reads the window page by page, each record once: a monotone cursor on the list's order drops the repeats that paging brings (docs/development/shared-internals.md). */
export async function readWindow<T extends IDataObject = IDataObject>(
	this: OmnichannelContext,
	endpoint: string,
	qs: IDataObject,
	window: TimeWindow,
	onPage: WindowPageHandler<T>,
	options: WindowOptions = {},
): Promise<WindowStats> {
	const { afterMs, beforeMs, field } = window;
	const { limit, keep, itemIndex, maxRequestsPerSecond } = options;
	const inFlightMax = Math.max(1, options.pagesInFlight ?? PAGES_IN_FLIGHT);
	const stats: WindowStats = { requests: 0, searchRequests: 0, records: 0 };
	const fetchPage = async (page: number): Promise<ListPage<T>> => {
		stats.requests++;
		const body = await apiRequest.call(this, 'GET', endpoint, { qs: { ...qs, page, per_page: PER_PAGE_MAX }, itemIndex, maxRequestsPerSecond, rawBody: true });
		return parseListPage<T>(body);
	};
	const timeOf = (record: IDataObject): number => Date.parse(String(record[field] ?? ''));
	const lastTime = (page: ListPage<T>): number => {
		const data = page.data ?? [];
		return data.length === 0 ? -Infinity : timeOf(data[data.length - 1]);
	};

	// 1. The first page that reaches into the window.
	const first = await fetchPage(1);
	let startNumber = 1;
	let startPage: ListPage<T> | undefined = first;
	if (beforeMs !== undefined && first.has_next && lastTime(first) >= beforeMs) {
		const found = await searchFirstPage(first, beforeMs, lastTime, timeOf, async (page) => {
			stats.searchRequests++;
			return await fetchPage(page);
		});
		if (!found) return stats;
		({ number: startNumber, page: startPage } = found);
	}

	// 2. Pages in order from there, a few in flight, until one reaches past the window's start.
	let cursor: Position = { time: Infinity, id: '' };
	let done = false;
	let processed = startNumber - 1;
	let lastKnownPage = startPage.last_page ?? startNumber;
	const recent: Array<{ records: number; newest: number; oldest: number }> = [];

	const accept = (page: ListPage<T>): T[] => {
		const accepted: T[] = [];
		const data = page.data ?? [];
		let counted = 0;
		let newest = NaN;
		let oldest = NaN;
		for (const record of data) {
			const time = timeOf(record);
			if (Number.isNaN(time)) continue;
			const position = { time, id: String(record.id ?? '') };
			if (!newerThan(cursor, position)) continue;
			cursor = position;
			if (beforeMs !== undefined && time >= beforeMs) continue;
			if (afterMs !== undefined && time < afterMs) {
				done = true;
				break;
			}
			counted++;
			if (Number.isNaN(newest)) newest = time;
			oldest = time;
			if (keep && !keep(record)) continue;
			accepted.push(record);
			if (limit !== undefined && stats.records + accepted.length >= limit) {
				done = true;
				break;
			}
		}
		if (counted > 0) recent.push({ records: counted, newest, oldest });
		if (recent.length > DENSITY_PAGES) recent.shift();
		if (!page.has_next || data.length === 0) done = true;
		lastKnownPage = Math.max(lastKnownPage, page.last_page ?? 0);
		return accepted;
	};

	/** The highest page number worth requesting now: never one past the window's end, as far as the estimate tells. */
	const allowedUpTo = (): number => {
		let allowed = Math.max(lastKnownPage, processed + 1);
		if (limit !== undefined) {
			// Pages inside the window are full of its records.
			allowed = Math.min(allowed, processed + Math.max(1, Math.ceil((limit - stats.records) / PER_PAGE_MAX)));
		}
		if (afterMs !== undefined) allowed = Math.min(allowed, processed + 1 + pagesSurelyLeft(recent, afterMs));
		return allowed;
	};

	const inFlight = new Map<number, Promise<ListPage<T>>>();
	let next = startNumber + 1;
	const issue = () => {
		const allowed = allowedUpTo();
		while (next <= allowed && inFlight.size < inFlightMax) {
			const request = fetchPage(next);
			// Settled by the loop, or by the wait at the end when the window ended first.
			request.catch(() => undefined);
			inFlight.set(next, request);
			next++;
		}
	};
	try {
		let page: ListPage<T> | undefined = startPage;
		while (page) {
			processed++;
			const accepted = accept(page);
			stats.records += accepted.length;
			if (accepted.length > 0 && (await onPage(accepted)) === false) done = true;
			if (done) break;
			issue();
			const pending = inFlight.get(processed + 1);
			if (!pending) {
				// Not allowed before: the estimate said the window ends sooner.
				next = Math.max(next, processed + 2);
				page = await fetchPage(processed + 1);
			} else {
				inFlight.delete(processed + 1);
				page = await pending;
			}
		}
	} finally {
		await Promise.allSettled(inFlight.values());
	}
	return stats;
}

/** Pages certainly left before the window's start, from the density of the last pages read, with a margin: reading rarely goes past the window. */
function pagesSurelyLeft(recent: Array<{ records: number; newest: number; oldest: number }>, afterMs: number): number {
	if (recent.length === 0) return 0;
	const records = recent.reduce((sum, page) => sum + page.records, 0);
	const span = recent[0].newest - recent[recent.length - 1].oldest;
	const oldest = recent[recent.length - 1].oldest;
	if (records < 2 || span <= 0) return 0;
	const left = ((oldest - afterMs) * (records - 1)) / span;
	// Records thin out towards a quiet hour: a fifth of the estimate, and its noise, are kept in reserve.
	const margin = 0.2 * Math.max(left, 0) + 3 * Math.sqrt(Math.max(left, 0)) + 0.05 * PER_PAGE_MAX;
	return Math.max(0, Math.floor((left - margin) / PER_PAGE_MAX));
}

/** The first page whose last record is older than `beforeMs`, found by interpolation on the pages' times, bisecting when a probe did not halve the interval; undefined when every record is newer. */
async function searchFirstPage<T extends IDataObject>(
	first: ListPage<T>,
	beforeMs: number,
	lastTime: (page: ListPage<T>) => number,
	timeOf: (record: IDataObject) => number,
	fetchPage: (page: number) => Promise<ListPage<T>>,
): Promise<{ number: number; page: ListPage<T> } | undefined> {
	const data = first.data ?? [];
	const msPerPage = Math.max(1, timeOf(data[0]) - lastTime(first));
	let low = { number: 1, time: lastTime(first) };
	let high: { number: number; time: number; page?: ListPage<T> } = { number: Math.max(2, (first.last_page ?? 1) + 1), time: -Infinity };
	let bisectNext = false;
	while (high.number - low.number > 1) {
		let probe: number;
		if (bisectNext) probe = Math.floor((low.number + high.number) / 2);
		else if (Number.isFinite(high.time)) {
			probe = low.number + Math.ceil(((low.time - beforeMs) / Math.max(1, low.time - high.time)) * (high.number - low.number));
		} else probe = low.number + Math.ceil((low.time - beforeMs + 1) / msPerPage);
		probe = Math.min(high.number - 1, Math.max(low.number + 1, probe));
		const width = high.number - low.number;
		const page = await fetchPage(probe);
		const time = lastTime(page);
		const data = page.data ?? [];
		if (time < beforeMs || data.length === 0) {
			high = { number: probe, time, page };
			// Its first record is newer than the window too: the page before holds only newer ones.
			if (data.length > 0 && timeOf(data[0]) >= beforeMs) low = { number: probe - 1, time: timeOf(data[0]) };
		} else low = { number: probe, time };
		bisectNext = !bisectNext && (high.number - low.number) * 2 > width;
	}
	if (!high.page || (high.page.data ?? []).length === 0) return undefined;
	return { number: high.number, page: high.page };
}

/** The window's records as one list: Get Many with a time window (Return All or Limit). */
export async function apiRequestWindowItems<T extends IDataObject = IDataObject>(
	this: OmnichannelContext,
	endpoint: string,
	qs: IDataObject,
	window: TimeWindow,
	options: WindowOptions = {},
): Promise<T[]> {
	const records: T[] = [];
	const collect = (page: IDataObject[]) => {
		for (const record of page) records.push(record as T);
	};
	await readWindow.call(this, endpoint, qs, window, collect, options);
	return options.limit === undefined ? records : records.slice(0, options.limit);
}
