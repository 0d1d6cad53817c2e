/** Answer a Burst Once, in the process that receives the deliveries: the quiet period is waited out before any execution exists, holding the delivery's answer so that a restart meanwhile loses nothing (docs/development/trigger-internals.md, "The quiet hold"). */
import { sleep } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import { BoundedMap } from '../../shared/processMemory/boundedMap';
import { newerFirst, timeOf } from '../../shared/conversation';
import { endsAfter } from './burstCaps';
import type { BurstCaps, BurstEnd } from './burstCaps';
import { DELIVERY_BUDGET_MS } from './deliveredEvent';

/** Left of the delivery's budget after a hold, for admitting it and starting its execution. */
const AFTER_HOLD_MS = 1_000;
/** The longest hold, within the delivery's budget. */
export const HOLD_LIMIT_MS = DELIVERY_BUDGET_MS - AFTER_HOLD_MS;
/** Conversations held per process; the least recently used one is forgotten first. */
const MAX_CONVERSATIONS = 20_000;
const SLICE_MS = 250;

/** The burst this process is collecting in a conversation, as far as its deliveries show it. */
interface BurstInProcess {
	first: IDataObject;
	last: IDataObject;
	count: number;
	/** When its first message reached this process (this process's clock). */
	firstArrival: number;
	/** Set once a cap or the quiet period ended it: the next message starts another. */
	ended?: BurstEnd;
	/** An older message whose delivery arrived while this burst's newest was held, when older than `first`: the step continues the runs back to it. */
	oldest?: IDataObject;
}

type Ending = { newerId: string } | { endedBy: BurstEnd };

interface Held {
	messageId: string;
	message: IDataObject;
	burst: BurstInProcess;
	/** Settles when a newer message took over the conversation, or a cap ended the burst. */
	ending: Promise<Ending>;
	end: (ending: Ending) => void;
	/** How the hold ended, once it did by a cap: copies arriving later end the same way at once. */
	endedBy?: BurstEnd;
	/** Set once a call returned an outcome that starts the execution: what it tells its step is fixed. */
	started?: boolean;
}

/** Process memory: per trigger and conversation, the newest customer message held or last held. */
const newestHeld = new BoundedMap<string, Held>(MAX_CONVERSATIONS);

function holdOf(message: IDataObject, burst: BurstInProcess): Held {
	let end: (ending: Ending) => void = () => undefined;
	const ending = new Promise<Ending>((resolve) => {
		end = resolve;
	});
	return { messageId: String(message.id), message, burst, ending, end };
}

/** How a hold ended: superseded by a newer message, or the execution starts having waited `waitedMs`; `capLeftMs` is how long until Max Wait ends the burst (0: a cap ended it, `endedBy` says which); `firstId`, the first message of the burst this process held when it is another (the step continues what a reply cut off from the burst: burst.ts, `earlierRuns`). */
export type HoldOutcome = { waitedMs: number; capLeftMs?: number; endedBy?: BurstEnd; firstId?: string } | { newerId: string };

/** Whether `message` belongs to `burst` by the caps, as the step will split them (burstCaps.ts), as far as this process knows. */
function joins(burst: BurstInProcess | undefined, message: IDataObject, caps: BurstCaps): boolean {
	if (!burst || burst.ended === 'quietPeriod' || burst.ended === 'endWord' || burst.ended === 'maxMessages') return false;
	if (endsAfter(burst.count, burst.last, caps) !== undefined) return false;
	// Created within Max Wait of the burst's first message: also a message that arrives after the cap fired (a straggler).
	return caps.maxWaitMs === undefined || timeOf(message) - timeOf(burst.first) <= caps.maxWaitMs;
}

/** Holds a customer's message until the conversation has been quiet for `caps.quietMs` in this process, or a cap ends its burst, or the delivery's `deadline` is near, or a newer message of the conversation arrives. */
export async function holdForQuiet(trigger: string, message: IDataObject, caps: BurstCaps, deadline: number): Promise<HoldOutcome> {
	const arrived = Date.now();
	const key = `${trigger}|${String(message.conversation_id)}`;
	const current = newestHeld.touch(key);
	// Copies of one message share its hold; an older message (late, or a copy of one) is part of the held one's burst.
	let held = current;
	if (!current || current.messageId !== String(message.id)) {
		if (current && newerFirst(current.message, message) < 0) return olderThanHeld(current, message, caps);
		const burst: BurstInProcess = joins(current?.burst, message, caps)
			? current!.burst
			: { first: message, last: message, count: 0, firstArrival: arrived };
		held = holdOf(message, burst);
		newestHeld.set(key, held);
		// A straggler of a burst Max Wait already ended joins it, and its hold ends at once: the cap is past.
		if (burst === current?.burst) {
			current.end({ newerId: held.messageId });
		} else if (current && current.burst.ended === undefined) {
			current.burst.ended = 'maxWait';
			current.end({ endedBy: 'maxWait' });
		}
		burst.last = message;
		burst.count++;
		const atOnce = endsAfter(burst.count, message, caps);
		if (atOnce) {
			burst.ended ??= atOnce;
			held.endedBy = atOnce;
		}
	}
	const hold = held!;
	// Read when the hold ends: an older message may arrive meanwhile.
	const first = (): { firstId?: string } => {
		const oldest = hold.burst.oldest ?? hold.burst.first;
		hold.started = true;
		return oldest.id === message.id ? {} : { firstId: String(oldest.id) };
	};
	if (hold.endedBy) return { waitedMs: Date.now() - arrived, capLeftMs: 0, endedBy: hold.endedBy, ...first() };
	const capAt = caps.maxWaitMs === undefined ? Infinity : hold.burst.firstArrival + caps.maxWaitMs;
	const until = Math.min(arrived + caps.quietMs, capAt, deadline - AFTER_HOLD_MS);
	for (let left = until - Date.now(); left > 0; left = until - Date.now()) {
		const ending = await Promise.race([hold.ending, sleep(Math.min(SLICE_MS, left)).then(() => undefined)]);
		if (ending && 'newerId' in ending) return ending;
		if (ending) {
			hold.endedBy = ending.endedBy;
			return { waitedMs: Date.now() - arrived, capLeftMs: 0, endedBy: ending.endedBy, ...first() };
		}
	}
	const now = Date.now();
	const waitedMs = now - arrived;
	if (now >= capAt) {
		hold.burst.ended ??= 'maxWait';
		hold.endedBy = 'maxWait';
		return { waitedMs, capLeftMs: 0, endedBy: 'maxWait', ...first() };
	}
	// Quiet in this process: the next message starts another burst.
	if (now >= arrived + caps.quietMs) hold.burst.ended ??= 'quietPeriod';
	return capAt === Infinity ? { waitedMs, ...first() } : { waitedMs, capLeftMs: capAt - now, ...first() };
}

/**
 * A message older than the held one (a late delivery, or a copy): while the held one's hold lasts, its step continues the runs back to this message (a reply between them ends a run no other execution continues); once it started its execution, this message starts its own, at once: the quiet period is over for it too.
 */
function olderThanHeld(current: Held, message: IDataObject, caps: BurstCaps): HoldOutcome {
	if (current.started) return { waitedMs: caps.quietMs };
	const oldest = current.burst.oldest ?? current.burst.first;
	if (newerFirst(oldest, message) < 0) current.burst.oldest = message;
	return { newerId: current.messageId };
}
