import { sleep } from 'n8n-workflow';
import type { DeduplicationHelperFunctions, ICheckProcessedOptions } from 'n8n-workflow';

/** A cross-process lock in one row of n8n's de-duplication store, holding the holder's stamp (docs/development/shared-internals.md, nodes/shared/databaseLock.ts). */
export type LockHelpers = Pick<DeduplicationHelperFunctions, 'checkProcessedAndRecord' | 'clearAllProcessedItems'>;

export interface LockLog {
	warn(message: string): void;
}

export interface LockTiming {
	/** A stamp older than this is a lock whose holder died. */
	staleMs: number;
	/** A waiter sees a lock stale twice, this far apart, before it takes it over. */
	confirmStaleMs: number;
	/** How often a holder renews its stamp. */
	renewMs: number;
	/** Past this, the check runs without the lock and says so in the log. */
	giveUpMs: number;
	/** How long one process keeps the lock across the checks of a busy spell (eventsInDatabase.ts) before giving it back for others to take. */
	holdMs?: number;
}

/** The production timing; the figures behind it: docs/development/trigger-internals.md, "The event ledger and its lock". */
export const LOCK_TIMING: LockTiming = { staleMs: 30_000, confirmStaleMs: 3_000, renewMs: 5_000, giveUpMs: 120_000, holdMs: 500 };

const LOCK: ICheckProcessedOptions = { mode: 'latestIncrementalKey' };

/** Which row holds the lock, and what its log lines say. */
export interface LockPlace {
	scope: 'workflow' | 'node';
	/** The node named in the log lines. */
	owner: string;
	/** What happens when the lock cannot be had, for the log. */
	withoutLock: string;
}

/** The trigger's event ledger: the workflow's row, shared by every node of the workflow. */
export const WORKFLOW_LOCK: LockPlace = {
	scope: 'workflow',
	owner: 'Omnichannel Trigger',
	withoutLock: 'this event is checked without it',
};

const duration = (ms: number): string =>
	ms % 60_000 === 0 ? `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}` : `${Math.round(ms / 1000)} s`;

const stampAt = (ms: number): number => ms * 1000 + Math.floor(Math.random() * 1000);

/** A row of the workflow scope holds another mode: a Remove Duplicates node with scope "Workflow". */
const isIncompatibleMode = (error: unknown): boolean =>
	error instanceof Error && /incompatible setting/i.test(error.message);

/** Only the workflow's row can hold another node's values: a node's own row is written by that node alone. */
const INCOMPATIBLE_ROW_WARNING =
	'Omnichannel Trigger: the workflow-wide de-duplication data holds values of another node (a Remove Duplicates node with scope "Workflow"?); events are checked without the cross-process lock. Use scope "Node" in that node.';

export interface HeldLock {
	/** False once another process took the lock over: the holder must not write. */
	readonly held: boolean;
	/** How long taking it cost once free: the winning try and the first stamp, without the waiting before. */
	readonly takeMs: number;
	release(): Promise<void>;
}

type Attempt = 'acquired' | 'taken' | 'stale' | 'incompatible';

async function attempt(helpers: LockHelpers, timing: LockTiming, place: LockPlace): Promise<Attempt> {
	const olderThanLive = stampAt(Date.now() - timing.staleMs) - 1000;
	try {
		const { new: fresh } = await helpers.checkProcessedAndRecord([0, olderThanLive], place.scope, LOCK);
		if (fresh.length === 2) return 'acquired';
		return fresh.length === 1 ? 'stale' : 'taken';
	} catch (error) {
		if (isIncompatibleMode(error)) return 'incompatible';
		// Another process created the row first: the lock is taken.
		return 'taken';
	}
}

/** Acquires the lock; resolves to undefined, logged, when the check must run without it: the row belongs to another node, or the lock stayed taken for giveUpMs. */
export async function acquireLock(
	helpers: LockHelpers,
	log: LockLog,
	timing: LockTiming = LOCK_TIMING,
	place: LockPlace = WORKFLOW_LOCK,
): Promise<HeldLock | undefined> {
	const started = Date.now();
	let staleSince: number | undefined;
	for (;;) {
		const tryStarted = Date.now();
		const result = await attempt(helpers, timing, place);
		if (result === 'acquired') return await holdLock(helpers, log, timing, place, tryStarted);
		if (result === 'incompatible') {
			log.warn(INCOMPATIBLE_ROW_WARNING);
			return undefined;
		}
		if (result === 'stale') {
			staleSince ??= Date.now();
			if (Date.now() - staleSince >= timing.confirmStaleMs) {
				log.warn(`${place.owner}: took over a de-duplication lock whose holder stopped renewing it (an n8n process that died while holding it).`);
				await helpers.clearAllProcessedItems(place.scope, LOCK);
				staleSince = undefined;
				continue;
			}
		} else {
			staleSince = undefined;
		}
		if (Date.now() - started > timing.giveUpMs) {
			log.warn(`${place.owner}: the de-duplication lock stayed taken for ${duration(timing.giveUpMs)}; ${place.withoutLock}.`);
			return undefined;
		}
		await sleep(5 + Math.floor(Math.random() * 20));
	}
}

/** Stamps the new lock at once, then renews it until released. */
async function holdLock(helpers: LockHelpers, log: LockLog, timing: LockTiming, place: LockPlace, tryStarted: number): Promise<HeldLock> {
	let stamp = 0;
	let stampedAt = Date.now();
	let held = true;
	let releasing = false;
	// Out of touch for half the stale age: another process may take the lock
	// over soon, so this one writes nothing more, whatever a late renewal says.
	const overdue = (): boolean => Date.now() - stampedAt > timing.staleMs / 2;
	const renewStamp = async (): Promise<void> => {
		const next = stampAt(Date.now());
		try {
			const { new: fresh } = await helpers.checkProcessedAndRecord([next], place.scope, LOCK);
			// A stamp newer than ours: another process took the lock over.
			if (fresh.length === 0 || overdue()) held = false;
			else [stamp, stampedAt] = [next, Date.now()];
		} catch (error) {
			log.warn(`${place.owner}: could not renew the de-duplication lock: ${(error as Error).message}`);
		}
		if (overdue()) held = false;
	};
	await renewStamp();
	const takeMs = Date.now() - tryStarted;
	// The write in flight, if any; release waits for it, never for the sleep.
	let renewal: Promise<void> | undefined;
	void (async () => {
		while (held && !releasing) {
			await sleep(timing.renewMs);
			if (releasing) return;
			renewal = renewStamp();
			await renewal;
			renewal = undefined;
		}
	})();
	return {
		get held() {
			return held && !overdue();
		},
		takeMs,
		async release() {
			releasing = true;
			await renewal;
			if (!held || overdue()) return;
			try {
				// Still ours while the row holds our stamp: one more is then new.
				const { new: fresh } = await helpers.checkProcessedAndRecord([stamp + 1], place.scope, LOCK);
				if (fresh.length === 1) await helpers.clearAllProcessedItems(place.scope, LOCK);
			} catch (error) {
				// The verdicts stand: a lock left behind is taken over once stale.
				log.warn(`${place.owner}: could not release the de-duplication lock: ${(error as Error).message}`);
			}
		},
	};
}
