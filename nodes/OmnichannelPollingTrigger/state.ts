import type { IDataObject } from 'n8n-workflow';

import type { Cursor } from './cursor';

/**
 * The poll's state, in the node's static data: n8n saves it when a poll emits
 * items (before the execution runs) and after the activation poll, and loads
 * it at every activation (publish, n8n start, leadership change). The
 * execution never reads or writes it, so in queue mode, where a worker runs
 * the execution with static data of its own, nothing depends on the worker.
 */
export interface PollState {
	/** The list this state belongs to (see EventList.scope). */
	scope: string;
	/** Where the scan resumes (created_at of messages and contacts, updated_at of conversations). */
	cursor: Cursor;
	/** "New Only" conversations: the created_at up to which every new conversation was emitted. */
	created?: Cursor;
}

const STATE_KEY = 'pollState';

interface StoredCursor {
	at: string | null;
	ids: string[];
}

function toStored(cursor: Cursor): StoredCursor {
	return { at: cursor.at === null ? null : new Date(cursor.at).toISOString(), ids: [...cursor.ids] };
}

function fromStored(value: unknown): Cursor | undefined {
	if (!value || typeof value !== 'object') return undefined;
	const { at, ids } = value as { at?: unknown; ids?: unknown };
	if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) return undefined;
	if (at === null) return { at: null, ids: [...(ids as string[])] };
	const ms = typeof at === 'string' ? Date.parse(at) : NaN;
	return Number.isFinite(ms) ? { at: ms, ids: [...(ids as string[])] } : undefined;
}

/** The saved state for `scope`; undefined on a first poll, after a change of event or API filter, or when unreadable. */
export function readState(staticData: IDataObject, scope: string): PollState | undefined {
	const stored = staticData[STATE_KEY] as IDataObject | undefined;
	if (!stored || typeof stored !== 'object' || stored.scope !== scope) return undefined;
	const cursor = fromStored(stored.cursor);
	if (!cursor) return undefined;
	const created = stored.created === undefined ? undefined : fromStored(stored.created);
	return created ? { scope, cursor, created } : { scope, cursor };
}

/**
 * Replaces the whole value: n8n notices a change of static data only through
 * assignments to the objects it wrapped, not inside a newly added object.
 */
export function writeState(staticData: IDataObject, state: PollState): void {
	const stored: IDataObject = { scope: state.scope, cursor: toStored(state.cursor) as unknown as IDataObject };
	if (state.created) stored.created = toStored(state.created) as unknown as IDataObject;
	staticData[STATE_KEY] = stored;
}

export function sameCursor(a: Cursor | undefined, b: Cursor | undefined): boolean {
	if (!a || !b) return a === b;
	return a.at === b.at && a.ids.length === b.ids.length && a.ids.every((id, index) => id === b.ids[index]);
}

/**
 * Polls in flight, by the static data they work on. n8n starts a poll on
 * schedule even while the previous one still runs, on the same static data
 * object; the second one then returns at once (no execution) and the first
 * finishes alone. Keyed by the object itself: a republished workflow (new
 * static data) or a restarted n8n never waits for a lease of an old one, and
 * nothing of it is ever saved. A lease lapses after `ttlMs` in case a poll
 * hangs; the poll that lost its lease then commits nothing.
 */
const leases = new WeakMap<object, { token: number; until: number }>();
let lastToken = 0;

export interface Lease {
	/** Whether this poll still holds the lease (checked right before committing). */
	held(): boolean;
	release(): void;
}

export function acquireLease(staticData: object, ttlMs: number, now = Date.now()): Lease | undefined {
	const current = leases.get(staticData);
	if (current && current.until > now) return undefined;
	const token = ++lastToken;
	leases.set(staticData, { token, until: now + ttlMs });
	return {
		held: () => leases.get(staticData)?.token === token,
		release: () => {
			if (leases.get(staticData)?.token === token) leases.delete(staticData);
		},
	};
}
