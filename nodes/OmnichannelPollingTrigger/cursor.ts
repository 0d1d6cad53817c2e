import type { IDataObject } from 'n8n-workflow';

/** Where a poll resumes, on the API's own timestamps: records older than `at`, and the `ids` at `at` (records can share a timestamp), are handled. */
export interface Cursor {
	at: number | null;
	ids: string[];
}

/** A listed record with its id and its key (milliseconds of the key field). */
export interface Keyed {
	id: string;
	key: number;
	record: IDataObject;
}

/** Whether the cursor already covers a record (older than it, or in its boundary set). */
export function isCovered(cursor: Cursor, key: number, id: string): boolean {
	if (cursor.at === null) return false;
	return key < cursor.at || (key === cursor.at && cursor.ids.includes(id));
}

/** Oldest first; records of the same millisecond by id, so the order never depends on the page. */
export function oldestFirst(a: Keyed, b: Keyed): number {
	if (a.key !== b.key) return a.key - b.key;
	return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The cursor after handling `record` (records must come oldest first). */
export function moveCursor(cursor: Cursor, record: Pick<Keyed, 'id' | 'key'>): Cursor {
	if (cursor.at === null || record.key > cursor.at) return { at: record.key, ids: [record.id] };
	if (record.key === cursor.at && !cursor.ids.includes(record.id)) return { at: cursor.at, ids: [...cursor.ids, record.id] };
	return cursor;
}

export interface Taken {
	/** The records to emit, oldest first. */
	emit: Keyed[];
	/** Where the next poll resumes. */
	cursor: Cursor;
	/** Whether matching records were left for the next poll (Max Items reached). */
	more: boolean;
}

/** Takes up to `max` matching records not yet covered, oldest first; the cursor moves over every record walked and stops after the last one taken. */
export function takeOldest(records: Keyed[], cursor: Cursor, max: number, matches: (record: IDataObject) => boolean): Taken {
	const pending = records.filter((one) => !isCovered(cursor, one.key, one.id)).sort(oldestFirst);
	const emit: Keyed[] = [];
	let next = cursor;
	for (const one of pending) {
		const wanted = matches(one.record);
		if (wanted && emit.length >= max) return { emit, cursor: next, more: true };
		if (wanted) emit.push(one);
		next = moveCursor(next, one);
	}
	return { emit, cursor: next, more: false };
}

/** The newest key of a list and the ids that share it: where a first poll starts. */
export function newestPoint(records: Keyed[]): Cursor {
	let cursor: Cursor = { at: null, ids: [] };
	for (const one of [...records].sort(oldestFirst)) cursor = moveCursor(cursor, one);
	return cursor;
}

/** Milliseconds of an ISO 8601 timestamp; undefined when it is not one. */
export function timestampMs(value: unknown): number | undefined {
	if (typeof value !== 'string' || value === '') return undefined;
	const ms = Date.parse(value);
	return Number.isFinite(ms) ? ms : undefined;
}
