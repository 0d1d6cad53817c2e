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
 * Polls in flight, by workflow and node. n8n starts a poll on schedule even
 * while the previous one still runs. A poll that finds another one of the
 * same node running does no work: it waits until that one has finished and
 * then returns null (no execution); the next scheduled poll carries on from
 * the state the first one left.
 *
 * Why by workflow and node, not by the static data object: with n8n's
 * durable poll cursors (N8N_POLLER_DURABLE_CURSORS_ENABLED) every poll gets a
 * fresh copy of the node's static data, read from the cursor table. After an
 * n8n restart several polls of the node then ran on copies of the same
 * cursor, and each emitted the same records (docs/development/compatibility.md,
 * "n8n 3.0's defaults, on 2.41.1"). The workflow id and node id are the
 * same for every copy.
 *
 * Why wait instead of returning at once: n8n 2.40 takes the workflow's
 * expression isolate for every scheduled poll and releases it when the poll
 * ends, without counting, while overlapping polls share it. A second poll
 * that ended early would release the isolate of the first one, whose next
 * request then fails ("No bridge acquired for this context": the
 * credential's header is an expression). Waiting makes every overlapping poll
 * end after the one that works.
 *
 * Only this process's polls are seen (n8n runs polls on its leader main
 * process), and nothing of this is ever saved, so a restarted n8n waits for
 * nothing. No timer is involved: a poll ends by itself, its requests being
 * bounded by the transport's timeouts and attempts.
 */
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

/**
 * The state each node's last emitting poll started from, in this process.
 * With durable poll cursors n8n saves a poll's new state together with the
 * execution it starts, after the poll has returned, and a poll reads the
 * state n8n had when it was scheduled. A poll that reads the very state the
 * previous one emitted from, before n8n saved what that one wrote, would emit
 * the same records again (after an n8n restart, as the compatibility page
 * says). Such a poll returns null instead, for
 * at most PENDING_MS: if n8n refused to save (its lease on the poll was
 * lost, so no execution ran either), the records come again after that.
 * Without durable cursors the next poll reads the state the last one wrote,
 * which differs, and this never applies.
 */
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
