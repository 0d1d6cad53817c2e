import { sleep } from 'n8n-workflow';
import type { DeduplicationHelperFunctions, ICheckProcessedOptions } from 'n8n-workflow';

import { acquireLock, LOCK_TIMING } from '../../shared/databaseLock';
import type { HeldLock, LockTiming } from '../../shared/databaseLock';

/** The event ledger in n8n's database, checked under a lock one batch at a time per trigger node (docs/development/trigger-internals.md, "The event ledger and its lock"). */

/** The window: the newest ids, in the node's own row (scope "node"). */
export const LEDGER_ENTRIES = 40_000;
const WINDOW: ICheckProcessedOptions = { mode: 'entries', maxEntries: LEDGER_ENTRIES };
/** A busy process that gives its lock back waits this long before it tries for it again. */
const GIVE_BACK_PAUSE_MS = 50;
/** How long a process keeps an idle lock for the next execution's check. */
const LINGER_MS = 100;
const LINGER_SLICE_MS = 5;
/** A batch whose lock was taken over before its window write is checked again, at most this often. */
const MAX_LOCK_LOSSES = 3;

export type LedgerHelpers = Pick<DeduplicationHelperFunctions, 'checkProcessedAndRecord' | 'clearAllProcessedItems'>;

/** The lock's timing: LOCK_TIMING, shorter in tests. */
let lockTiming: LockTiming = LOCK_TIMING;
export function setLockTiming(timing: LockTiming): void {
	lockTiming = timing;
}

/** How long a drain keeps the lock: longer on a slow database, so that taking and giving it back stays a small part of the time held. */
const HOLD_PER_TAKE = 5;
const MAX_HOLD_MS = 10_000;
const holdMsFor = (lock: HeldLock): number =>
	Math.min(Math.max(lockTiming.holdMs ?? LOCK_TIMING.holdMs ?? 0, HOLD_PER_TAKE * lock.takeMs), MAX_HOLD_MS);

export interface LedgerLog {
	warn(message: string): void;
}

export type Verdict = 'first' | 'duplicate';

/** The trigger node whose ledger this is: two trigger nodes of one workflow never share a batch. */
export interface LedgerOwner {
	workflowId: string;
	nodeId: string;
}

/** This process's checks, per trigger node: one at a time, the ids waiting meanwhile checked together. */
const queues = new Map<string, Queue>();

/** The lock of one drain, kept across its batches and given back after LockTiming.holdMs, so a busy process neither pays it per batch nor starves another. */
class DrainLock {
	private lock: HeldLock | undefined;

	private takenAt = 0;

	constructor(
		private readonly helpers: LedgerHelpers,
		private readonly log: LedgerLog,
	) {}

	/** The lock for the next batch; undefined when the check must run without it (logged). */
	async forBatch(): Promise<HeldLock | undefined> {
		// A check that ran without the lock tries for it again with the next batch.
		if (this.lock?.held && Date.now() - this.takenAt < holdMsFor(this.lock)) return this.lock;
		const givingBack = this.lock?.held === true;
		await this.release();
		// Long enough for a waiting process's next try (databaseLock.ts polls every 5 to 25 ms) to find the lock free.
		if (givingBack) await sleep(GIVE_BACK_PAUSE_MS);
		this.lock = await acquireLock(this.helpers, this.log, lockTiming);
		this.takenAt = Date.now();
		return this.lock;
	}

	/** Whether more checks came soon after the queue ran empty, while the lock is still ours to keep. */
	async moreWithin(hasMore: () => boolean): Promise<boolean> {
		if (!this.lock) return false;
		const until = Math.min(Date.now() + Math.max(LINGER_MS, this.lock.takeMs), this.takenAt + holdMsFor(this.lock));
		while (this.lock?.held && Date.now() < until) {
			await sleep(LINGER_SLICE_MS);
			if (hasMore()) return true;
		}
		return false;
	}

	/** Taken over while this process was slow: the next batch takes the lock anew. */
	async lost(): Promise<void> {
		await this.release();
	}

	async release(): Promise<void> {
		const lock = this.lock;
		this.lock = undefined;
		await lock?.release();
	}
}

/** Checks a batch of ids (in arrival order) in one read and write of the window. */
async function checkUnderLock(drainLock: DrainLock, helpers: LedgerHelpers, eventIds: string[]): Promise<Verdict[]> {
	for (let losses = 0; ; losses++) {
		const lock = await drainLock.forBatch();
		// Taken over while this process was slow: writing now could drop or pass an id twice.
		if (lock && !lock.held && losses < MAX_LOCK_LOSSES) {
			await drainLock.lost();
			continue;
		}
		const distinct = [...new Set(eventIds)];
		const { new: fresh } = await helpers.checkProcessedAndRecord(distinct, 'node', WINDOW);
		const firsts = new Set(fresh.map(String));
		// A second copy within the batch is a duplicate of the first.
		return eventIds.map((id) => (firsts.delete(id) ? 'first' : 'duplicate'));
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
	/** Ends once the queue is empty and its lock given back. */
	drained?: Promise<void>;
}

/** Checks what is waiting, batch after batch, until nothing is: ids that arrive during a check share the next one (a group commit). */
async function drain(ownerKey: string, queue: Queue): Promise<void> {
	for (;;) {
		const drainLock = new DrainLock(queue.helpers, queue.log);
		try {
			do {
				while (queue.waiting.length > 0) {
					const batch = queue.waiting.splice(0);
					try {
						const verdicts = await checkUnderLock(drainLock, queue.helpers, batch.flatMap((waiting) => waiting.ids));
						let from = 0;
						for (const waiting of batch) {
							waiting.settle(verdicts.slice(from, from + waiting.ids.length));
							from += waiting.ids.length;
						}
					} catch (error) {
						for (const waiting of batch) waiting.settle(error as Error);
						// A failed check may have left the lock in doubt: the next batch takes it anew.
						await drainLock.release();
					}
				}
			} while (await drainLock.moreWithin(() => queue.waiting.length > 0));
		} finally {
			await drainLock.release();
		}
		// Executions that arrived while the lock was being released are this drain's too.
		if (queue.waiting.length === 0) break;
	}
	queues.delete(ownerKey);
}

/** Records `eventId` in the workflow's ledger: "first" when no execution recorded it before (its downstream nodes run), "duplicate" otherwise. */
export async function recordEvent(
	helpers: LedgerHelpers,
	owner: LedgerOwner,
	eventId: string,
	log: LedgerLog,
): Promise<Verdict> {
	const [verdict] = await recordIds(helpers, owner, [eventId], log);
	return verdict;
}

/** Records several ids in one step of the same ledger, under the same lock: one verdict per id, in order; an id repeated in `ids`, or claimed by a check that ran before, is "duplicate". */
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
		queue.drained = drain(ownerKey, queue);
	});
	if (verdicts instanceof Error) throw verdicts;
	return verdicts;
}

/** Resolves once every check of this process has finished and its lock is given back. */
export async function whenIdle(): Promise<void> {
	await Promise.all([...queues.values()].map(async (queue) => await queue.drained));
}
