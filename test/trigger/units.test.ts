/** The trigger's pure parts: bounds of the de-duplication, event names, filters. */
import type { EventIdStore, StoredEventIds } from '../../nodes/OmnichannelTrigger/deduplication';
import {
	MEMORY_IDS_PER_TRIGGER,
	RETENTION_MS,
	STORED_IDS_PER_TRIGGER,
	acceptOnce,
} from '../../nodes/OmnichannelTrigger/deduplication';
import { normaliseEvents, sameEvents } from '../../nodes/OmnichannelTrigger/events';
import { messageDirection, passesFilters } from '../../nodes/OmnichannelTrigger/filters';
import { signingKey } from '../../nodes/OmnichannelTrigger/signature';

const T0 = Date.UTC(2026, 0, 1);

/** Static data that keeps what was written, like one n8n run's copy. */
function keptStore(): EventIdStore & { ids: () => StoredEventIds } {
	let saved: unknown;
	return { read: () => saved, write: (json) => (saved = json), ids: () => JSON.parse(saved as string) as StoredEventIds };
}

/** Static data that keeps nothing: only the process memory counts. */
const noStore: EventIdStore = { read: () => undefined, write: () => undefined };

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

	test('static data keeps the newest ids only, as [id, UNIX seconds]', () => {
		const store = keptStore();
		const total = STORED_IDS_PER_TRIGGER + 50;
		for (let index = 0; index < total; index++) acceptOnce('stored-bound', store, `evt_${index}`, T0 + index * 10);
		const ids = store.ids();
		expect(ids).toHaveLength(STORED_IDS_PER_TRIGGER);
		expect(ids[0]).toEqual([`evt_50`, Math.floor((T0 + 500) / 1000)]);
		expect(ids.at(-1)?.[0]).toBe(`evt_${total - 1}`);
	});

	test('ids are kept for the whole retry window, then forgotten in memory and in static data', () => {
		const store = keptStore();
		expect(acceptOnce('retention', store, 'evt_old', T0)).toBe(true);
		expect(acceptOnce('retention', store, 'evt_old', T0 + RETENTION_MS - 1_000)).toBe(false);
		expect(acceptOnce('retention', store, 'evt_new', T0 + RETENTION_MS + 1_000)).toBe(true);
		expect(store.ids().map(([id]) => id)).toEqual(['evt_new']);
		expect(acceptOnce('retention', store, 'evt_old', T0 + RETENTION_MS + 2_000)).toBe(true);
		// The retry window of contract.md §7 (5 s + 30 s + 2 min + 10 min + 30 min + 1 h) fits.
		expect(RETENTION_MS).toBeGreaterThan((5 + 30 + 120 + 600 + 1800 + 3600) * 1000);
	});

	const savedBeforeRestart: StoredEventIds = [
		['evt_expired', Math.floor((T0 - RETENTION_MS - 60_000) / 1000)],
		['evt_recent', Math.floor((T0 - 60_000) / 1000)],
	];

	test.each([
		['a JSON string', JSON.stringify(savedBeforeRestart)],
		// What version 0.1.0 of the node saved.
		['an array', savedBeforeRestart],
	])('a fresh process honours the ids in static data (%s), except expired ones', (_form, saved) => {
		jest.isolateModules(() => {
			const fresh = require('../../nodes/OmnichannelTrigger/deduplication') as typeof import('../../nodes/OmnichannelTrigger/deduplication');
			const store: EventIdStore = { read: () => JSON.parse(JSON.stringify(saved)), write: () => undefined };
			expect(fresh.acceptOnce('restart', store, 'evt_recent', T0)).toBe(false);
			expect(fresh.acceptOnce('restart', store, 'evt_expired', T0)).toBe(true);
		});
	});

	test('ids saved by another process are absorbed; unreadable static data is ignored', () => {
		const shared = keptStore();
		expect(acceptOnce('absorb', shared, 'evt_mine', T0)).toBe(true);
		const other: StoredEventIds = [...shared.ids(), ['evt_theirs', Math.floor(T0 / 1000)]];
		const copy: EventIdStore = { read: () => JSON.stringify(other), write: () => undefined };
		expect(acceptOnce('absorb', copy, 'evt_theirs', T0 + 1)).toBe(false);
		expect(acceptOnce('absorb', copy, 'evt_mine', T0 + 2)).toBe(false);
		for (const junk of ['not json', '{"a":1}', 42, null]) {
			expect(acceptOnce('absorb', { read: () => junk, write: () => undefined }, `evt_${String(junk)}`, T0 + 3)).toBe(true);
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
