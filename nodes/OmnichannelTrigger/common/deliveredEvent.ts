import type { IDataObject } from 'n8n-workflow';

import { messageAuthor } from '../../shared/messageAuthors';

/** Every call of a delivery ends by then, within the sender's 10 s (docs/development/trigger-internals.md, "One deadline per delivery"). */
export const DELIVERY_BUDGET_MS = 8_000;

/** The key of the input item that tells the execution how long its delivery was held. */
export const QUIET_WAITED_KEY = 'quietWaitedMs';
/** The key of the input item that tells the execution how its delivery's hold ended: a cap, or how long until Max Wait. */
export const QUIET_CAP_KEY = 'quietCap';
/** The key of the input item that names the first message of the burst the delivery's hold joined, when it is another message. */
export const QUIET_FIRST_KEY = 'quietFirstId';

/** What the hold of a delivery (quietHold.ts) tells its execution's step. */
export interface HeldDelivery {
	waitedMs: number;
	/** How long until Max Wait ends the burst; 0 when a cap ended it. */
	capLeftMs?: number;
	endedBy?: 'maxWait' | 'maxMessages' | 'endWord';
	/** The first message of the burst the hold joined, when it is another: a message held into this delivery's burst. */
	firstId?: string;
}

/** The hold's account from an input item's keys; nothing held when they are absent (a delivery made before the option was on). */
export function heldDeliveryOf(waited: unknown, cap: unknown, first?: unknown): HeldDelivery {
	const held: HeldDelivery = { waitedMs: typeof waited === 'number' ? waited : 0 };
	if (typeof first === 'string') held.firstId = first;
	if (cap !== null && typeof cap === 'object') {
		const { capLeftMs, endedBy } = cap as IDataObject;
		if (typeof capLeftMs === 'number') held.capLeftMs = capLeftMs;
		if (endedBy === 'maxWait' || endedBy === 'maxMessages' || endedBy === 'endWord') held.endedBy = endedBy;
	}
	return held;
}

/** The message of a `message.created` event that a customer wrote; undefined for every other event. */
export function customerMessageOf(event: { type: string; data?: IDataObject }): IDataObject | undefined {
	return event.type === 'message.created' && event.data && messageAuthor(event.data) === 'customer' ? event.data : undefined;
}
