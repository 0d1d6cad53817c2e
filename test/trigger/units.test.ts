/** The trigger's pure parts: bounds of the de-duplication, event names, filters. */
import type { EventIdStore } from '../../nodes/OmnichannelTrigger/deduplication';
import {
	MEMORY_IDS_PER_TRIGGER,
	RETENTION_MS,
	STORED_IDS_PER_TRIGGER,
	acceptOnce,
	saveKnownIds,
} from '../../nodes/OmnichannelTrigger/deduplication';
import { normaliseEvents, sameEvents } from '../../nodes/OmnichannelTrigger/events';
import { messageDirection, passesFilters } from '../../nodes/OmnichannelTrigger/filters';
import { signingKey } from '../../nodes/OmnichannelTrigger/signature';

const T0 = Date.UTC(2026, 0, 1);

type Deduplication = typeof import('../../nodes/OmnichannelTrigger/deduplication');

/** Static data that keeps what was written, like one n8n run's copy. */
function keptStore(): EventIdStore & { saved: () => unknown } {
	let saved: unknown;
	return { read: () => saved, write: (list) => (saved = list), saved: () => saved };
}

/** Static data that keeps nothing: only the process memory counts. */
const noStore: EventIdStore = { read: () => undefined, write: () => undefined };

/** The module as a freshly started n8n process sees it: nothing in memory. */
function freshProcess(): Deduplication {
	let fresh: Deduplication | undefined;
	jest.isolateModules(() => {
		fresh = require('../../nodes/OmnichannelTrigger/deduplication') as Deduplication;
	});
	return fresh as Deduplication;
}

/** What a fresh process makes of `saved`: for each id, whether it would start an execution. */
function acceptedAfterRestart(saved: unknown, ids: string[], now: number): Record<string, boolean> {
	const fresh = freshProcess();
	const copy: EventIdStore = { read: () => saved, write: () => undefined };
	return Object.fromEntries(ids.map((id) => [id, fresh.acceptOnce('restart', copy, id, now)]));
}

describe('acceptOnce', () => {
	test('memory per trigger is bounded: the oldest ids are forgotten first', () => {
		const total = MEMORY_IDS_PER_TRIGGER + 100;
		for (let index = 0; index < total; index++) {
			expect(acceptOnce('memory-bound', noStore, `evt_${index}`, T0 + index)).toBe(true);
		}
		expect(acceptOnce('memory-bound', noStore, `evt_${total - 1}`, T0 + total)).toBe(false);
		expect(acceptOnce('memory-bound', noStore, `evt_${total - MEMORY_IDS_PER_TRIGGER}`, T0 + total)).toBe(false);
		expect(acceptOnce('memory-bound', noStore, 'evt_0', T0 + total)).toBe(true);
	});

	test('static data keeps the newest ids only, in under 40 characters per id', () => {
		const store = keptStore();
		const total = STORED_IDS_PER_TRIGGER + 50;
		for (let index = 0; index < total; index++) acceptOnce('stored-bound', store, `evt_${index}`, T0 + index * 10);
		expect(typeof store.saved()).toBe('string');
		expect((store.saved() as string).length).toBeLessThan(STORED_IDS_PER_TRIGGER * 40);
		const now = T0 + total * 10;
		expect(acceptedAfterRestart(store.saved(), ['evt_0', 'evt_49', 'evt_50', `evt_${total - 1}`], now)).toEqual({
			evt_0: true,
			evt_49: true,
			evt_50: false,
			[`evt_${total - 1}`]: false,
		});
	});

	test('ids are kept for the whole retry window, then forgotten in memory and in static data', () => {
		const store = keptStore();
		expect(acceptOnce('retention', store, 'evt_old', T0)).toBe(true);
		expect(acceptOnce('retention', store, 'evt_old', T0 + RETENTION_MS - 1_000)).toBe(false);
		expect(acceptOnce('retention', store, 'evt_new', T0 + RETENTION_MS + 1_000)).toBe(true);
		expect(acceptedAfterRestart(store.saved(), ['evt_old', 'evt_new'], T0 + RETENTION_MS + 2_000)).toEqual({ evt_old: true, evt_new: false });
		expect(acceptOnce('retention', store, 'evt_old', T0 + RETENTION_MS + 2_000)).toBe(true);
		// The retry window of contract.md §7 (5 s + 30 s + 2 min + 10 min + 30 min + 1 h) fits.
		expect(RETENTION_MS).toBeGreaterThan((5 + 30 + 120 + 600 + 1800 + 3600) * 1000);
	});

	test('a fresh process honours the ids in static data, except expired ones', () => {
		const store = keptStore();
		const before = freshProcess();
		before.acceptOnce('restart', store, 'evt_expired', T0 - RETENTION_MS - 60_000);
		before.acceptOnce('restart', store, 'evt_recent', T0 - 60_000);
		expect(acceptedAfterRestart(store.saved(), ['evt_recent', 'evt_expired'], T0)).toEqual({ evt_recent: false, evt_expired: true });
	});

	test('the [id, UNIX seconds] array of earlier builds is still read', () => {
		const saved = [
			['evt_expired', Math.floor((T0 - RETENTION_MS - 60_000) / 1000)],
			['evt_recent', Math.floor((T0 - 60_000) / 1000)],
		];
		expect(acceptedAfterRestart(saved, ['evt_recent', 'evt_expired'], T0)).toEqual({ evt_recent: false, evt_expired: true });
	});

	test('a run whose copy holds an older list of ours still saves every id', () => {
		const first = keptStore();
		acceptOnce('stale-copy', first, 'evt_a', T0);
		const olderList = first.saved();
		acceptOnce('stale-copy', keptStore(), 'evt_b', T0 + 1);
		const late: EventIdStore & { saved: () => unknown } = { ...keptStore(), read: () => olderList };
		let written: unknown;
		late.write = (list) => (written = list);
		expect(acceptOnce('stale-copy', late, 'evt_c', T0 + 2)).toBe(true);
		expect(acceptedAfterRestart(written, ['evt_a', 'evt_b', 'evt_c', 'evt_d'], T0 + 3)).toEqual({
			evt_a: false,
			evt_b: false,
			evt_c: false,
			evt_d: true,
		});
	});

	test('saveKnownIds writes every id this process holds into another copy (the execution’s)', () => {
		acceptOnce('execution-copy', keptStore(), 'evt_one', T0);
		acceptOnce('execution-copy', keptStore(), 'evt_two', T0 + 1);
		const executionCopy = keptStore();
		saveKnownIds('execution-copy', executionCopy, T0 + 2);
		expect(acceptedAfterRestart(executionCopy.saved(), ['evt_one', 'evt_two', 'evt_three'], T0 + 3)).toEqual({
			evt_one: false,
			evt_two: false,
			evt_three: true,
		});
		const untouched = keptStore();
		saveKnownIds('never-accepted', untouched, T0);
		expect(untouched.saved()).toBeUndefined();
	});

	test('executions that end out of order still save every id', () => {
		const first = keptStore();
		acceptOnce('executions', keptStore(), 'evt_a', T0);
		saveKnownIds('executions', first, T0 + 1);
		acceptOnce('executions', keptStore(), 'evt_b', T0 + 2);
		saveKnownIds('executions', keptStore(), T0 + 3);
		// The first execution saves last: its copy has the later id too.
		expect(acceptedAfterRestart(first.saved(), ['evt_a', 'evt_b'], T0 + 4)).toEqual({ evt_a: false, evt_b: false });
	});

	test('ids saved by another process are absorbed; unreadable static data is ignored', () => {
		const theirs = keptStore();
		freshProcess().acceptOnce('absorb', theirs, 'evt_theirs', T0);
		const mine = keptStore();
		expect(acceptOnce('absorb', mine, 'evt_mine', T0)).toBe(true);
		expect(acceptOnce('absorb', theirs, 'evt_theirs', T0 + 1)).toBe(false);
		expect(acceptOnce('absorb', mine, 'evt_mine', T0 + 2)).toBe(false);
		for (const junk of ['not a list', 'ids1:', 'ids1:x:zz', 'ids1:y:' + '!'.repeat(23), '{"a":1}', 42, null, [['evt', 'x'], 7]]) {
			expect(acceptOnce('absorb', { read: () => junk, write: () => undefined }, `evt_${JSON.stringify(junk)}`, T0 + 3)).toBe(true);
		}
	});

	test('each trigger (workflow, node, test or production) has its own ids; the number of triggers is bounded', () => {
		expect(acceptOnce('trigger-a', noStore, 'evt_same', T0)).toBe(true);
		expect(acceptOnce('trigger-b', noStore, 'evt_same', T0)).toBe(true);
		for (let index = 0; index < 64; index++) acceptOnce(`many-${index}`, noStore, 'evt_x', T0);
		expect(acceptOnce('trigger-a', noStore, 'evt_same', T0)).toBe(true);
		expect(acceptOnce('many-63', noStore, 'evt_x', T0)).toBe(false);
	});
});

describe('event names', () => {
	test('chosen and typed names are trimmed, de-duplicated and sorted; "*" wins', () => {
		expect(normaliseEvents(['message.created'], ' contact.created ,message.created ,, ')).toEqual([
			'contact.created',
			'message.created',
		]);
		expect(normaliseEvents(['contact.created', '*'], 'conversation.updated')).toEqual(['*']);
		expect(normaliseEvents([], '')).toEqual([]);
		expect(sameEvents(['message.created', 'contact.created'], ['contact.created', 'message.created'])).toBe(true);
		expect(sameEvents(['message.created'], ['contact.created', 'message.created'])).toBe(false);
		expect(sameEvents(undefined, ['*'])).toBe(false);
	});
});

describe('filters', () => {
	const message = (fields: object) => ({ channel: 'telegram', from_customer: false, from_user_id: null, ...fields });

	test('direction follows from_customer and from_user_id (contract.md §4)', () => {
		expect(messageDirection(message({ from_customer: true }))).toBe('customer');
		expect(messageDirection(message({ from_user_id: 'usr_1' }))).toBe('agent');
		expect(messageDirection(message({}))).toBe('system');
	});

	test('only messages are filtered; contacts and unknown kinds pass', () => {
		const filters = { directions: ['customer' as const], channelTypes: ['whatsapp'] };
		expect(passesFilters('message.created', message({ from_customer: true }), filters)).toBe(false);
		expect(passesFilters('message.created', message({ from_customer: true, channel: 'whatsapp' }), filters)).toBe(true);
		expect(passesFilters('contact.created', { name: 'Ada' }, filters)).toBe(true);
		expect(passesFilters('conversation.closed', null, filters)).toBe(true);
		expect(passesFilters('message.created', message({}), { directions: [], channelTypes: [] })).toBe(true);
	});
});

describe('signing secrets', () => {
	test('only whsec_ followed by base64 is a key', () => {
		expect(signingKey(`whsec_${Buffer.alloc(32, 1).toString('base64')}`)).toHaveLength(32);
		expect(signingKey('whsec_')).toBeUndefined();
		expect(signingKey('whsec_not base64!')).toBeUndefined();
		expect(signingKey(Buffer.alloc(32).toString('base64'))).toBeUndefined();
	});
});
