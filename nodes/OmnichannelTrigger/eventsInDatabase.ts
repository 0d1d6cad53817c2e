import type { DeduplicationHelperFunctions, ICheckProcessedOptions } from 'n8n-workflow';

import { acquireLock, LOCK_TIMING } from './databaseLock';
import type { LockTiming } from './databaseLock';

/**
 * The event ledger, in n8n's database: the ids of the events that started a
 * downstream run, kept with n8n's own de-duplication helpers and checked as
 * the first step of every execution the trigger starts. It is what survives a
 * restart and what every n8n process shares: in queue mode a worker starts an
 * execution with empty static data, and what a webhook run writes to static
 * data is dropped when it starts an execution (see docs/trigger.md, Queue
 * mode).
 *
 * n8n's helpers read a row, compute in JavaScript and write the row back,
 * with no transaction: two executions checking at once could both pass, and
 * one could drop the other's id. So every check runs under a lock:
 * - between the executions of this process, one check at a time per trigger
 *   node, with the ids that arrive meanwhile checked together next;
 * - between processes, the lock of databaseLock.ts.
 */

/** The window: the newest ids, in the node's own row (scope "node"). */
export const LEDGER_ENTRIES = 40_000;
const WINDOW: ICheckProcessedOptions = { mode: 'entries', maxEntries: LEDGER_ENTRIES };
/** A batch whose lock was taken over before its window write is checked again, at most this often. */
const MAX_LOCK_LOSSES = 3;

export type LedgerHelpers = Pick<DeduplicationHelperFunctions, 'checkProcessedAndRecord' | 'clearAllProcessedItems'>;

/** The lock's timing: LOCK_TIMING, shorter in tests. */
let lockTiming: LockTiming = LOCK_TIMING;
export function setLockTiming(timing: LockTiming): void {
	lockTiming = timing;
}

export interface LedgerLog {
	warn(message: string): void;
}

export type Verdict = 'first' | 'duplicate';

/**
 * The trigger node whose ledger this is. Its window is the node's row, so
 * the checks of two trigger nodes of one workflow never share a batch (the
 * same event reaching both must run in both).
 */
export interface LedgerOwner {
	workflowId: string;
	nodeId: string;
}

/** This process's checks, per trigger node: one at a time, the ids waiting meanwhile checked together. */
const queues = new Map<string, Queue>();

/** Checks a batch of ids (in arrival order) in one read and write of the window. */
async function checkUnderLock(helpers: LedgerHelpers, eventIds: string[], log: LedgerLog): Promise<Verdict[]> {
	for (let losses = 0; ; losses++) {
		const lock = await acquireLock(helpers, log, lockTiming);
		try {
			// Taken over while this process was slow: writing now could drop or pass an id twice.
			if (lock && !lock.held && losses < MAX_LOCK_LOSSES) continue;
			const distinct = [...new Set(eventIds)];
			const { new: fresh } = await helpers.checkProcessedAndRecord(distinct, 'node', WINDOW);
			const firsts = new Set(fresh.map(String));
			// A second copy within the batch is a duplicate of the first.
			return eventIds.map((id) => (firsts.delete(id) ? 'first' : 'duplicate'));
		} finally {
			await lock?.release();
		}
	}
}

interface Waiting {
	/** One or more ids, checked together in one batch. */
	ids: string[];
	settle: (verdicts: Verdict[] | Error) => void;
}

interface Queue {
	helpers: LedgerHelpers;
	log: LedgerLog;
	waiting: Waiting[];
}

/**
 * Checks what is waiting, batch after batch, until nothing is. n8n reads and
 * writes the whole window on every check, so the executions that arrive
 * while one check runs share the next one (a group commit): under load the
 * cost per event falls instead of growing with the queue.
 */
async function drain(ownerKey: string, queue: Queue): Promise<void> {
	while (queue.waiting.length > 0) {
		const batch = queue.waiting.splice(0);
		try {
			const verdicts = await checkUnderLock(queue.helpers, batch.flatMap((waiting) => waiting.ids), queue.log);
			let from = 0;
			for (const waiting of batch) {
				waiting.settle(verdicts.slice(from, from + waiting.ids.length));
				from += waiting.ids.length;
			}
		} catch (error) {
			for (const waiting of batch) waiting.settle(error as Error);
		}
	}
	queues.delete(ownerKey);
}

/**
 * Records `eventId` in the workflow's ledger: "first" when no execution
 * recorded it before (its downstream nodes run), "duplicate" otherwise.
 */
export async function recordEvent(
	helpers: LedgerHelpers,
	owner: LedgerOwner,
	eventId: string,
	log: LedgerLog,
): Promise<Verdict> {
	const [verdict] = await recordIds(helpers, owner, [eventId], log);
	return verdict;
}

/**
 * Records several ids in one step of the same ledger, under the same lock:
 * one verdict per id, in order; an id repeated in `ids`, or claimed by a
 * check that ran before, is "duplicate".
 */
export async function recordIds(helpers: LedgerHelpers, owner: LedgerOwner, ids: string[], log: LedgerLog): Promise<Verdict[]> {
	if (ids.length === 0) return [];
	const ownerKey = `${owner.workflowId}|${owner.nodeId}`;
	const verdicts = await new Promise<Verdict[] | Error>((settle) => {
		const running = queues.get(ownerKey);
		if (running) {
			running.waiting.push({ ids, settle });
			return;
		}
		const queue: Queue = { helpers, log, waiting: [{ ids, settle }] };
		queues.set(ownerKey, queue);
		void drain(ownerKey, queue);
	});
	if (verdicts instanceof Error) throw verdicts;
	return verdicts;
}
