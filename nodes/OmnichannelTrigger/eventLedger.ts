import { sleep } from 'n8n-workflow';
import type { DeduplicationHelperFunctions, ICheckProcessedOptions } from 'n8n-workflow';

/**
 * Second line of exactly-once: the event ids that started a downstream run,
 * kept in n8n's own database with its de-duplication helpers, checked as the
 * first step of every execution the trigger starts. It is what survives a
 * restart and what every n8n process shares: in queue mode a worker starts an
 * execution with empty static data, and what a webhook run writes to static
 * data is dropped when it starts an execution (see the README, Queue mode).
 *
 * n8n's helpers read a row, compute in JavaScript and write the row back,
 * with no transaction: two executions checking at once could both pass, and
 * one could drop the other's id. So every check runs under a lock:
 * - between the executions of this process, one check at a time per
 *   workflow, with the ids that arrive meanwhile checked together next;
 * - between processes, a row that only one can create. The helpers insert a
 *   row when there is none (the database refuses a second insert) and report
 *   the value as new only then; deleting the row releases it.
 */

/** The window: the newest ids, in the node's own row (scope "node"). */
export const LEDGER_ENTRIES = 40_000;
const WINDOW: ICheckProcessedOptions = { mode: 'entries', maxEntries: LEDGER_ENTRIES };
/**
 * The lock: the workflow's row (scope "workflow"), holding one number. With
 * "latestIncrementalKey" a value equal to the stored one is "processed", so
 * only the call that created the row sees it as new.
 */
const LOCK: ICheckProcessedOptions = { mode: 'latestIncrementalKey' };
const LOCK_VALUE = 1;
/** A lock held longer was left by a process that died while holding it (a holder needs milliseconds). */
export const LOCK_STALE_MS = 10_000;
/** Past this, the check runs without the lock and says so in the log. */
const LOCK_GIVE_UP_MS = 60_000;

export type LedgerHelpers = Pick<DeduplicationHelperFunctions, 'checkProcessedAndRecord' | 'clearAllProcessedItems'>;

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

/** A row of the workflow scope holds another mode: a Remove Duplicates node with scope "Workflow". */
const isIncompatibleMode = (error: unknown): boolean =>
	error instanceof Error && /incompatible setting/i.test(error.message);

async function acquireLock(helpers: LedgerHelpers, log: LedgerLog): Promise<boolean> {
	const started = Date.now();
	let clearedStale = false;
	for (;;) {
		try {
			const { new: created } = await helpers.checkProcessedAndRecord([LOCK_VALUE], 'workflow', LOCK);
			if (created.length > 0) return true;
		} catch (error) {
			if (isIncompatibleMode(error)) {
				log.warn(
					'Omnichannel Trigger: the workflow-wide de-duplication data holds values of another node (a Remove Duplicates node with scope "Workflow"?); events are checked without the cross-process lock. Use scope "Node" in that node.',
				);
				return false;
			}
			// Another process created the row first: the lock is taken.
		}
		const waited = Date.now() - started;
		if (!clearedStale && waited > LOCK_STALE_MS) {
			clearedStale = true;
			await helpers.clearAllProcessedItems('workflow', LOCK);
			continue;
		}
		if (waited > LOCK_GIVE_UP_MS) {
			log.warn('Omnichannel Trigger: the de-duplication lock stayed taken for 60 s; this event is checked without it.');
			return false;
		}
		await sleep(5 + Math.floor(Math.random() * 20));
	}
}

/** Checks a batch of ids (in arrival order) in one read and write of the window. */
async function checkUnderLock(helpers: LedgerHelpers, eventIds: string[], log: LedgerLog): Promise<Verdict[]> {
	const locked = await acquireLock(helpers, log);
	try {
		const distinct = [...new Set(eventIds)];
		const { new: fresh } = await helpers.checkProcessedAndRecord(distinct, 'node', WINDOW);
		const firsts = new Set(fresh.map(String));
		// A second copy within the batch is a duplicate of the first.
		return eventIds.map((id) => (firsts.delete(id) ? 'first' : 'duplicate'));
	} finally {
		if (locked) await helpers.clearAllProcessedItems('workflow', LOCK);
	}
}

interface Waiting {
	eventId: string;
	settle: (verdict: Verdict | Error) => void;
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
			const verdicts = await checkUnderLock(queue.helpers, batch.map((waiting) => waiting.eventId), queue.log);
			batch.forEach((waiting, index) => waiting.settle(verdicts[index]));
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
	const ownerKey = `${owner.workflowId}|${owner.nodeId}`;
	const verdict = await new Promise<Verdict | Error>((settle) => {
		const running = queues.get(ownerKey);
		if (running) {
			running.waiting.push({ eventId, settle });
			return;
		}
		const queue: Queue = { helpers, log, waiting: [{ eventId, settle }] };
		queues.set(ownerKey, queue);
		void drain(ownerKey, queue);
	});
	if (verdict instanceof Error) throw verdict;
	return verdict;
}
