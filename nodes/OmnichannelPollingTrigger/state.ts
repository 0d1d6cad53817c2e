import type { IDataObject } from 'n8n-workflow';

import type { Cursor } from './cursor';

/** The poll's state, in the node's static data: n8n saves and loads it and the execution never touches it, so nothing depends on a queue-mode worker. */
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

/** Replaces the whole value: n8n notices a change of static data only through assignments to the objects it wrapped. */
export function writeState(staticData: IDataObject, state: PollState): void {
	const stored: IDataObject = { scope: state.scope, cursor: toStored(state.cursor) as unknown as IDataObject };
	if (state.created) stored.created = toStored(state.created) as unknown as IDataObject;
	staticData[STATE_KEY] = stored;
}

export function sameCursor(a: Cursor | undefined, b: Cursor | undefined): boolean {
	if (!a || !b) return a === b;
	return a.at === b.at && a.ids.length === b.ids.length && a.ids.every((id, index) => id === b.ids[index]);
}

/** Polls in flight, by workflow and node (not by static data, which durable cursors copy): a poll that finds one of its node running waits for it, then returns null. */
const running = new Map<string, Promise<void>>();

export type Exclusive<T> = { ran: true; value: T } | { ran: false };

/** The key of one poll trigger node: the workflow's id and the node's (its name when it has no id). */
export function pollKey(workflowId: string | undefined, node: { id?: string; name: string }): string {
	return JSON.stringify([workflowId ?? '', node.id ?? node.name]);
}

export async function exclusive<T>(key: string, run: () => Promise<T>): Promise<Exclusive<T>> {
	const current = running.get(key);
	if (current) {
		await current;
		return { ran: false };
	}
	let finish: () => void = () => undefined;
	// Set in the same synchronous step as the check above: no other poll can slip in between.
	running.set(key, new Promise<void>((resolve) => (finish = resolve)));
	try {
		return { ran: true, value: await run() };
	} finally {
		running.delete(key);
		finish();
	}
}

/** The state each node's last emitting poll started from: with durable poll cursors, a poll that reads it again before n8n saved the next state returns null, for at most PENDING_MS. */
const emittedFrom = new Map<string, { state: string; at: number }>();
/** n8n's default lease on a scheduled poll (N8N_SCHEDULER_LEASE_DURATION). */
const PENDING_MS = 60_000;

/** The saved state as read, to compare with what a later poll reads. */
export function stateFingerprint(staticData: IDataObject): string {
	return JSON.stringify(staticData[STATE_KEY] ?? null);
}

/** Whether `read` is the state this node's last emitting poll started from, moments ago. */
export function savePending(key: string, read: string, now = Date.now()): boolean {
	const last = emittedFrom.get(key);
	if (!last) return false;
	if (last.state === read && now - last.at < PENDING_MS) return true;
	emittedFrom.delete(key);
	return false;
}

export function rememberEmittedFrom(key: string, read: string, now = Date.now()): void {
	emittedFrom.set(key, { state: read, at: now });
}
