/**
 * Compare With (docs/operations.md, "Reports", "Compare with a previous
 * period"): the previous window (the period of the same length just before,
 * or the same days a week earlier) is reported by an aggregator of its own,
 * fed by the one read: the messages of both windows as one time window and
 * the conversations updated since the earlier start, each page split by
 * time, so every page is read once. Every item then carries each figure's
 * previous value and its change.
 */
import type { IDataObject } from 'n8n-workflow';

import { localTime } from '../helpers/dates';
import type { ItemValidator } from '../helpers/validation';
import type { ReportAggregator } from './aggregate';
import { addDays, addLocalDays, startOfDate } from './calendar';

export type CompareWith = 'none' | 'previousPeriod' | 'weekEarlier';
export const COMPARE_WITH: CompareWith[] = ['none', 'previousPeriod', 'weekEarlier'];
export const COMPARE_FIELD = 'Compare With';

export interface PreviousWindow {
	kind: Exclude<CompareWith, 'none'>;
	startMs: number;
	endMs: number;
}

const WEEK_DAYS = 7;

/** The previous window of [startMs, endMs); Previous Days' previous period is the same number of whole local days before. */
export function previousWindow(
	validator: ItemValidator,
	kind: CompareWith,
	period: { startMs: number; endMs: number; timeZone: string; days?: number; now: number },
): PreviousWindow | undefined {
	if (kind === 'none') return undefined;
	const { startMs, endMs, timeZone } = period;
	if (kind === 'weekEarlier') {
		if (endMs > addLocalDays(startMs, WEEK_DAYS, timeZone)) {
			validator.fail(COMPARE_FIELD, 'the period is longer than a week, so a week earlier overlaps it', "Pick 'Previous Period', or a period of at most 7 days.");
		}
		return { kind, startMs: addLocalDays(startMs, -WEEK_DAYS, timeZone), endMs: addLocalDays(endMs, -WEEK_DAYS, timeZone) };
	}
	if (period.days !== undefined) {
		const today = localTime(period.now, timeZone);
		return { kind, startMs: startOfDate(addDays(today, -2 * period.days), timeZone), endMs: startMs };
	}
	return { kind, startMs: startMs - (endMs - startMs), endMs: startMs };
}

/** What the reader feeds: one aggregator, or both windows' (see CompareReader). */
export interface ReportSink {
	addConversations(page: IDataObject[]): void;
	addMessages(page: IDataObject[]): void;
	unlisted(): string[];
	finish(): void;
}

/**
 * Hands each page's records to the window they belong to. Conversations go
 * to the previous window's aggregator, and to the current one only when
 * updated since the current window began (no other can have a message in
 * it), so a conversation active only before holds no state there.
 */
export class CompareReader implements ReportSink {
	constructor(
		readonly current: ReportAggregator,
		readonly previous: ReportAggregator,
		private readonly currentStartMs: number,
	) {}

	addConversations(page: IDataObject[]): void {
		this.previous.addConversations(page);
		// A conversation without a readable updated_at goes to both.
		const recent = page.filter((record) => !(Date.parse(String(record.updated_at ?? '')) < this.currentStartMs));
		if (recent.length > 0) this.current.addConversations(recent);
	}

	addMessages(page: IDataObject[]): void {
		// Newest first: the current window's records, then the previous window's.
		let split = 0;
		while (split < page.length && Date.parse(String(page[split].created_at ?? '')) >= this.currentStartMs) split++;
		if (split > 0) this.current.addMessages(split === page.length ? page : page.slice(0, split));
		if (split < page.length) this.previous.addMessages(split === 0 ? page : page.slice(split));
	}

	unlisted(): string[] {
		return [...this.current.unlisted(), ...this.previous.unlisted()];
	}

	finish(): void {
		this.current.finish();
		this.previous.finish();
	}
}

/** A time window of messages to read, and where its pages go. */
export interface MessageRead {
	afterMs: number;
	beforeMs: number;
	onPage: (page: IDataObject[]) => void;
}

/**
 * The reads of a compared report: adjacent windows (Previous Period) as one
 * time window split by time, so the page where they meet is read once and
 * the previous window needs no search of its own; a week earlier as a
 * window of its own.
 */
export function comparedReads(reader: CompareReader, current: { startMs: number; endMs: number }, previous: PreviousWindow): MessageRead[] {
	if (previous.endMs === current.startMs) return [{ afterMs: previous.startMs, beforeMs: current.endMs, onPage: (page) => reader.addMessages(page) }];
	return [
		{ afterMs: current.startMs, beforeMs: current.endMs, onPage: (page) => reader.current.addMessages(page) },
		{ afterMs: previous.startMs, beforeMs: previous.endMs, onPage: (page) => reader.previous.addMessages(page) },
	];
}

/** Fields never compared: the channel's (null on the total and buckets), the targets (settings), the clock (a word). */
const NOT_COMPARED = /^(channelId|channelName|channelType|channelActive|clock|targetMinutes|.*TargetMinutes)$/;

const capitalized = (field: string) => `${field[0].toUpperCase()}${field.slice(1)}`;
export const previousName = (field: string): string => `previous${capitalized(field)}`;
export const changeName = (field: string): string => `change${capitalized(field)}`;

/** Each numeric figure's previous value and change (current − previous, rounded to 4 decimals; null when either is null or there is no previous item). */
export function comparedFields(current: IDataObject, previous: IDataObject): IDataObject {
	const out: IDataObject = {};
	for (const [field, value] of Object.entries(current)) {
		if (NOT_COMPARED.test(field) || !(typeof value === 'number' || value === null)) continue;
		const before = previous[field] ?? null;
		if (!(typeof before === 'number' || before === null)) continue;
		out[previousName(field)] = before;
		out[changeName(field)] = typeof value === 'number' && typeof before === 'number' ? Math.round((value - before) * 10_000) / 10_000 : null;
	}
	return out;
}

/** Whether a rise of the figure is good (true), bad (false) or neither (undefined): for the HTML's colour. */
export function riseIsGood(field: string): boolean | undefined {
	if (/Share$|WithinTarget$|^ratingMean$|^handOversAnswered$/.test(field)) return true;
	if (/Minutes$|^waitingAtEnd$|^failedMessages$|^handOversExpired$|^awaitingFirstResponse$/.test(field)) return false;
	return undefined;
}

interface Items {
	channels: IDataObject[];
	total: IDataObject;
	buckets: IDataObject[];
}

/**
 * The current items with the previous window's figures: each channel item
 * with its channel's, the total with the previous total, each bucket with
 * the previous window's bucket at the same position (the k-th day or hour;
 * one the previous window lacks, across a change of the clocks, compares
 * with nothing: null); what the previous window is, on each.
 */
export function withComparison(current: Items, previous: Items, window: PreviousWindow, iso: (epochMs: number) => string): Items {
	const about = { comparedWith: window.kind, previousPeriodStart: iso(window.startMs), previousPeriodEnd: iso(window.endMs) };
	const before = new Map(previous.channels.map((item) => [item.channelId, item]));
	const compared = (item: IDataObject, earlier: IDataObject | undefined) => ({ ...item, ...about, ...comparedFields(item, earlier ?? {}) });
	return {
		channels: current.channels.map((item) => compared(item, before.get(item.channelId))),
		total: compared(current.total, previous.total),
		buckets: current.buckets.map((item, index) => {
			const earlier = previous.buckets[index];
			return { ...compared(item, earlier), ...(earlier ? { previousBucketStart: earlier.periodStart } : {}) };
		}),
	};
}
