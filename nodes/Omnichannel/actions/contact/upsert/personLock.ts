import { NodeOperationError, sleep } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { acquireLock, LOCK_TIMING } from '../../../../shared/databaseLock';
import type { HeldLock, LockHelpers, LockLog, LockPlace, LockTiming } from '../../../../shared/databaseLock';

/** "Once per person": the API has no contact upsert (docs/api-assumptions.md, "Contacts"), so a row searches and writes under a lock per person in this process and per node across processes. */

/** The node's own row: no other node writes it, and the trigger's workflow row is apart. */
const CREATE_LOCK: LockPlace = {
	scope: 'node',
	owner: 'Omnichannel (Contact > Create or Update)',
	withoutLock: 'the item fails rather than risk creating a contact twice',
};

/** A process keeps the lock at most this long while rows keep coming, then lets another process in. */
const CREATE_LOCK_TIMING: LockTiming = { ...LOCK_TIMING, holdMs: 5_000 };

/** After giving the lock back for another's turn: long enough for a waiter's next try (every 5 to 25 ms). */
const TURN_GAP_MS = 50;

/** A reserved place in line: `wait` resolves when the earlier holders are done; `done` must follow. */
export interface Place {
	wait: () => Promise<void>;
	done: () => void;
}

/** A place in line per key: a task waits for the tasks that reserved one of its keys before it. */
export class KeyLocks {
	private readonly tails = new Map<string, Promise<void>>();

	/** Reserves the keys now. */
	reserve(keys: string[]): Place {
		const earlier = keys.map((key) => this.tails.get(key)).filter((tail) => tail !== undefined);
		let done = () => {};
		const mine = new Promise<void>((resolve) => (done = resolve));
		for (const key of keys) this.tails.set(key, mine);
		return {
			wait: async () => {
				await Promise.all(earlier);
			},
			done: () => {
				done();
				for (const key of keys) if (this.tails.get(key) === mine) this.tails.delete(key);
			},
		};
	}

	async run<T>(keys: string[], task: () => Promise<T>): Promise<T> {
		const place = this.reserve(keys);
		try {
			await place.wait();
			return await task();
		} finally {
			place.done();
		}
	}
}

/** The rows of one node in flight in this process, and its lock in n8n's database. */
class NodeGate {
	readonly persons = new KeyLocks();

	private lock: HeldLock | undefined;

	private takenAt = 0;

	private active = 0;

	/** Taking or giving back the lock; others wait for it. */
	private turn: Promise<void> | undefined;

	private readonly idleWaiters: Array<() => void> = [];

	/** Rows of this process that are between their search and their write, or waiting for it. */
	users = 0;

	constructor(
		private readonly helpers: LockHelpers | undefined,
		private readonly log: LockLog,
	) {}

	/** Whether a task that entered may still write: false once another process took the lock over. */
	get held(): boolean {
		return this.helpers === undefined || this.lock?.held === true;
	}

	async enter(context: IExecuteFunctions, itemIndex: number): Promise<void> {
		for (;;) {
			if (this.helpers === undefined || (this.lock?.held && Date.now() - this.takenAt < (CREATE_LOCK_TIMING.holdMs ?? 0))) {
				this.active++;
				return;
			}
			if (this.turn) {
				await this.turn.catch(() => undefined);
				continue;
			}
			if (this.active > 0) {
				await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
				continue;
			}
			this.turn = this.retake();
			try {
				await this.turn;
			} catch {
				throw new NodeOperationError(
					context.getNode(),
					`Could not take the lock that keeps contacts from being created twice [item ${itemIndex}]`,
					{
						itemIndex,
						description: `Another execution of this node kept it for ${CREATE_LOCK_TIMING.giveUpMs / 60_000} minutes. Nothing was created for this item; run it again.`,
					},
				);
			} finally {
				this.turn = undefined;
			}
		}
	}

	/** Leaves; the last task out gives the lock back, pausing when tasks of this process wait so that a waiting process gets its turn. */
	async leave(): Promise<void> {
		this.active--;
		if (this.active > 0) return;
		const waiting = this.idleWaiters.splice(0);
		if (this.lock) {
			this.turn = (async () => {
				await this.giveBack();
				if (waiting.length > 0) await sleep(TURN_GAP_MS);
			})();
		}
		for (const wake of waiting) wake();
		try {
			await this.turn;
		} finally {
			this.turn = undefined;
		}
	}

	/** Whether the gate holds nothing: no lock, no task, no turn. */
	get idle(): boolean {
		return this.active === 0 && !this.lock && !this.turn;
	}

	private async giveBack(): Promise<void> {
		const lock = this.lock;
		this.lock = undefined;
		await lock?.release();
	}

	private async retake(): Promise<void> {
		await this.giveBack();
		const lock = await acquireLock(this.helpers as LockHelpers, this.log, CREATE_LOCK_TIMING, CREATE_LOCK);
		if (!lock) throw new Error('lock not taken');
		this.lock = lock;
		this.takenAt = Date.now();
	}
}

const gates = new Map<string, NodeGate>();

/** n8n's de-duplication helpers, when this n8n offers them for a saved workflow. */
function lockHelpers(context: IExecuteFunctions): LockHelpers | undefined {
	const helpers = context.helpers as Partial<LockHelpers>;
	if (!context.getWorkflow().id || typeof helpers.checkProcessedAndRecord !== 'function') return undefined;
	if (typeof helpers.clearAllProcessedItems !== 'function') return undefined;
	return helpers as LockHelpers;
}

/** Runs `task` (search, then create or update) under the person's lock here and the node's across processes; `held()` says whether it may still write. */
export async function whilePersonLocked<T>(
	context: IExecuteFunctions,
	itemIndex: number,
	keys: string[],
	task: (held: () => boolean) => Promise<T>,
): Promise<T> {
	const gateKey = `${context.getWorkflow().id ?? ''}|${context.getNode().id}`;
	let gate = gates.get(gateKey);
	if (!gate) {
		const helpers = lockHelpers(context);
		if (!helpers) {
			context.logger.warn(
				'Omnichannel (Contact > Create or Update): n8n offers no de-duplication store here (an unsaved workflow?); rows of one person are kept apart within this process only.',
			);
		}
		gate = new NodeGate(helpers, context.logger);
		gates.set(gateKey, gate);
	}
	const current = gate;
	current.users++;
	try {
		return await current.persons.run(keys, async () => {
			await current.enter(context, itemIndex);
			try {
				return await task(() => current.held);
			} finally {
				await current.leave();
			}
		});
	} finally {
		if (--current.users === 0 && current.idle) gates.delete(gateKey);
	}
}
