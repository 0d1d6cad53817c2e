/** The cursor on the API's timestamps, with several records in one millisecond. */
import type { Cursor, Keyed } from '../../nodes/OmnichannelPollingTrigger/cursor';
import { newestPoint, takeOldest } from '../../nodes/OmnichannelPollingTrigger/cursor';

const T = Date.UTC(2026, 10, 22, 12, 0, 0);
const keyed = (id: string, key: number, fields: Record<string, unknown> = {}): Keyed => ({ id, key, record: { id, ...fields } });
const all = () => true;

/** Polls `max` at a time until nothing is left; the ids emitted per poll. */
function drain(records: () => Keyed[], start: Cursor, max: number, matches: (r: Record<string, unknown>) => boolean = all): string[][] {
	const polls: string[][] = [];
	let cursor = start;
	for (let poll = 0; poll < 50; poll++) {
		const taken = takeOldest(records(), cursor, max, matches);
		cursor = taken.cursor;
		if (taken.emit.length === 0) return polls;
		polls.push(taken.emit.map((one) => one.id));
	}
	throw new Error('did not settle');
}

describe('takeOldest', () => {
	test('records of the same millisecond are split over polls without loss or repeat', () => {
		const same = ['e', 'a', 'd', 'b', 'c'].map((id) => keyed(id, T));
		const list = [keyed('old', T - 1), ...same, keyed('later', T + 1)];
		const polls = drain(() => list, { at: T - 1, ids: ['old'] }, 2);
		expect(polls).toEqual([['a', 'b'], ['c', 'd'], ['e', 'later']]);
	});

	test('the cursor keeps the ids of its millisecond, so a record created later in that millisecond still comes', () => {
		const list = [keyed('a', T), keyed('b', T)];
		const first = takeOldest(list, { at: null, ids: [] }, 10, all);
		expect(first.emit.map((one) => one.id)).toEqual(['a', 'b']);
		expect(first.cursor).toEqual({ at: T, ids: ['a', 'b'] });
		// The service stored a third record with the same timestamp after that poll read the list.
		list.push(keyed('0-late', T));
		const second = takeOldest(list, first.cursor, 10, all);
		expect(second.emit.map((one) => one.id)).toEqual(['0-late']);
		expect(takeOldest(list, second.cursor, 10, all).emit).toEqual([]);
	});

	test('records the filters drop move the cursor too, and Max Items counts only emitted ones', () => {
		const list = [keyed('a', T, { keep: true }), keyed('b', T + 1), keyed('c', T + 2), keyed('d', T + 3, { keep: true }), keyed('e', T + 4)];
		const taken = takeOldest(list, { at: T - 1, ids: [] }, 1, (record) => record.keep === true);
		expect(taken.emit.map((one) => one.id)).toEqual(['a']);
		// Walked past the dropped b and c, stopped before d (the next to emit).
		expect(taken.cursor).toEqual({ at: T + 2, ids: ['c'] });
		expect(taken.more).toBe(true);
		const next = takeOldest(list, taken.cursor, 1, (record) => record.keep === true);
		expect(next.emit.map((one) => one.id)).toEqual(['d']);
		expect(next.cursor).toEqual({ at: T + 4, ids: ['e'] });
	});

	test('a large burst in one millisecond, 1,000 records 300 at a time: each exactly once, in id order', () => {
		const ids = Array.from({ length: 1000 }, (_, index) => `msg_${String(index).padStart(4, '0')}`);
		const list = [...ids].reverse().map((id) => keyed(id, T));
		const polls = drain(() => list, { at: null, ids: [] }, 300);
		expect(polls.map((poll) => poll.length)).toEqual([300, 300, 300, 100]);
		expect(polls.flat()).toEqual(ids);
	});
});

describe('newestPoint', () => {
	test('is the newest millisecond with every id in it; an empty list starts before everything', () => {
		expect(newestPoint([keyed('a', T), keyed('c', T + 5), keyed('b', T + 5)])).toEqual({ at: T + 5, ids: ['b', 'c'] });
		expect(newestPoint([])).toEqual({ at: null, ids: [] });
	});
});
