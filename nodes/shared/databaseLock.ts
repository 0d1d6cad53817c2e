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
	/** A waiter sees a lock stale at every try for this long before it takes it over: longer than a renewal plus the slowest call, so a live holder's next renewal always comes first. */
	confirmStaleMs: number;
	/** How often a holder renews its stamp. */
	renewMs: number;
	/** Past this, the check runs without the lock and says so in the log. */
	giveUpMs: number;
	/** How long one process keeps the lock across the checks of a busy spell (eventsInDatabase.ts) before giving it back for others to take. */
	holdMs?: number;
}

/** The production timing; the figures behind it: docs/development/trigger-internals.md, "The event ledger and its lock". */
export const LOCK_TIMING: LockTiming = { staleMs: 30_000, confirmStaleMs: 10_000, renewMs: 2_000, giveUpMs: 120_000, holdMs: 500 };

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

type Attempt = { verdict: 'acquired'; inserted: number } | { verdict: 'taken' | 'stale' | 'incompatible' };

/** Older than any live holder's stamp: what a try writes on a stale row, and a row's first value. */
const olderThanLive = (timing: LockTiming): number => stampAt(Date.now() - timing.staleMs) - 1000;

async function attempt(helpers: LockHelpers, timing: LockTiming, place: LockPlace): Promise<Attempt> {
	const older = olderThanLive(timing);
	try {
		const { new: fresh } = await helpers.checkProcessedAndRecord([0, older], place.scope, LOCK);
		// Only the call that creates the row sees both as new; the row then holds `older`.
		if (fresh.length === 2) return { verdict: 'acquired', inserted: older };
		return { verdict: fresh.length === 1 ? 'stale' : 'taken' };
	} catch (error) {
		if (isIncompatibleMode(error)) return { verdict: 'incompatible' };
		// Another process created the row first: the lock is taken.
		return { verdict: 'taken' };
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
		const tried = await attempt(helpers, timing, place);
		if (tried.verdict === 'acquired') {
			const lock = await holdLock(helpers, log, timing, place, { tryStarted, inserted: tried.inserted });
			if (lock) return lock;
			// Another process's live stamp came first: the lock is taken.
			staleSince = undefined;
			continue;
		}
		if (tried.verdict === 'incompatible') {
			log.warn(INCOMPATIBLE_ROW_WARNING);
			return undefined;
		}
		if (tried.verdict === 'stale') {
			staleSince ??= Date.now();
			if (Date.now() - staleSince >= timing.confirmStaleMs) {
				log.warn(`${place.owner}: took over a de-duplication lock whose holder stopped renewing it (an n8n process that died while holding it).`);
				staleSince = undefined;
				// Claimed in place, never deleted: a holder that was only slow sees the claim at its next renewal and stops; the
				// claim is written on for longer than that holder may still write, and kept only if it was never written over.
				const lock = await holdLock(helpers, log, timing, place, { tryStarted });
				if (lock) await sleep(takeoverFenceMs(timing));
				if (lock && (await lock.confirm())) return lock;
				await lock?.release();
				continue;
			}
		} else {
			staleSince = undefined;
		}
		if (Date.now() - started > timing.giveUpMs) {
			log.warn(`${place.owner}: the de-duplication lock stayed taken for ${duration(timing.giveUpMs)}; ${place.withoutLock}.`);
			return undefined;
		}
		// A row stale for longer than a new holder's first stamp takes is tried seldom: a try's late write-back is what can make a live holder's row look stale.
		const longStale = staleSince !== undefined && Date.now() - staleSince > timing.renewMs;
		await sleep(longStale ? stalePollMs(timing) : 5 + Math.floor(Math.random() * 20));
	}
}

/** How often a waiter tries a row that has looked stale for longer than a renewal. */
const stalePollMs = (timing: LockTiming): number => Math.max(5, Math.round(timing.renewMs / 10));
/** How long a process that took a stale lock over holds it before writing under it: past the time the old holder may still write. */
const takeoverFenceMs = (timing: LockTiming): number => timing.staleMs / 2 + 2 * timing.renewMs;
/** How soon a holder renews again after finding its row written back to an older value. */
const restoreMs = (timing: LockTiming): number => Math.max(1, Math.round(timing.renewMs / 25));
/** Our stamps kept to recognise the row: a waiter's late write-back can bring any of them back. */
const KEPT_STAMPS = 64;

/** What a renewal found in the row before writing its new stamp. */
type RowState = 'ours' | 'older' | 'another';

/**
 * How to read a renewal's answer. The row holds the highest value written to
 * it, except that any call may write back the value it read a moment before
 * (n8n reads, computes, writes): a row can go back to an older value, never
 * forward to one nobody wrote. `c` and `c + 1` tell whether it holds exactly
 * our stamp `c`; `newerThan` whether it holds a live stamp written after this
 * process took the lock, which only another holder writes.
 */
function readRow(ours: number[], newerThan: number, fresh: Set<number>): RowState {
	if (ours.some((stamp) => !fresh.has(stamp) && fresh.has(stamp + 1))) return 'ours';
	return fresh.has(newerThan) ? 'older' : 'another';
}

const probeOf = (ours: number[], newerThan: number): number[] => [...ours.flatMap((stamp) => [stamp, stamp + 1]), newerThan];

interface TakenLock extends HeldLock {
	/** Renews now, again while the row reads older, until it reads exactly our stamp (true) or another holder's (false). */
	confirm(): Promise<boolean>;
}

/** Stamps the new lock at once, then renews it until released; undefined when another process's live stamp came first. */
async function holdLock(
	helpers: LockHelpers,
	log: LockLog,
	timing: LockTiming,
	place: LockPlace,
	taking: { tryStarted: number; inserted?: number },
): Promise<TakenLock | undefined> {
	const takenAt = Date.now();
	// The row's first value is ours until the first stamp: a try that read it may write it back.
	let ours: number[] = taking.inserted === undefined ? [] : [taking.inserted];
	let stamp = 0;
	let stampedAt = takenAt;
	let held = true;
	let releasing = false;
	let lastState: RowState | undefined;
	/** No live stamp of another process can be below this: a row under it was written back by a try, not taken over. */
	const newestForeign = (now: number): number => Math.max(now - timing.staleMs, takenAt) * 1000;
	/** One call that reads what the row held and writes `write`, if any; whatever it was given counts as ours from then on (a failed call may still have written it). */
	const readAndWrite = async (now: number, write: number[]): Promise<RowState> => {
		const newerThan = newestForeign(now);
		const mine = ours.filter((kept) => kept >= newerThan || stamp === 0);
		ours = [...mine, ...write].slice(-KEPT_STAMPS);
		const { new: fresh } = await helpers.checkProcessedAndRecord([...probeOf(mine, newerThan), ...write], place.scope, LOCK);
		return readRow(mine, newerThan, new Set(fresh.map(Number)));
	};
	// Out of touch for half the stale age: another process may take the lock
	// over soon, so this one writes nothing more, whatever a late renewal says.
	const overdue = (): boolean => Date.now() - stampedAt > timing.staleMs / 2;
	const renewStamp = async (): Promise<void> => {
		const now = Date.now();
		const next = Math.max(stampAt(now), stamp + 2);
		try {
			lastState = await readAndWrite(now, [next]);
			if (lastState === 'another') {
				if (held && stamp !== 0) log.warn(`${place.owner}: another process took over the de-duplication lock while this one held it; this process writes nothing more under it.`);
				held = false;
			} else if (!overdue()) {
				// From the call's start: the row was read after it.
				[stamp, stampedAt] = [next, now];
			}
		} catch (error) {
			lastState = undefined;
			log.warn(`${place.owner}: could not renew the de-duplication lock: ${(error as Error).message}`);
		} finally {
			if (overdue()) held = false;
		}
	};
	// One renewal at a time: the background loop's and a confirmation's.
	let renewal: Promise<void> = Promise.resolve();
	const renew = async (): Promise<void> => {
		renewal = renewal.then(renewStamp);
		await renewal;
	};
	await renew();
	if (!held) return undefined;
	const takeMs = Date.now() - taking.tryStarted;
	void (async () => {
		while (held && !releasing) {
			// Written back to an older value: renewed again soon, before waiters could judge it stale.
			await sleep(lastState === 'older' ? restoreMs(timing) : timing.renewMs);
			if (releasing) return;
			await renew();
		}
	})();
	return {
		get held() {
			return held && !overdue();
		},
		takeMs,
		async confirm() {
			await renew();
			while (held && lastState !== 'ours') {
				await sleep(restoreMs(timing));
				await renew();
			}
			return held && !overdue();
		},
		async release() {
			releasing = true;
			await renewal;
			if (!held || overdue()) return;
			try {
				// Deleted only while the row holds none of another holder's stamps.
				if ((await readAndWrite(Date.now(), [])) !== 'another') await helpers.clearAllProcessedItems(place.scope, LOCK);
			} catch (error) {
				// The verdicts stand: a lock left behind is taken over once stale.
				log.warn(`${place.owner}: could not release the de-duplication lock: ${(error as Error).message}`);
			}
		},
	};
}
