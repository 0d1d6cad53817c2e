/** Answer a Burst Once, in the process that receives the deliveries: the quiet period is waited out before any execution exists, holding the delivery's answer so that a restart meanwhile loses nothing (docs/development/trigger-internals.md, "The quiet hold"). */
import { sleep } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import { BoundedMap } from '../../shared/processMemory/boundedMap';
import { newerFirst } from '../../shared/conversation';
import { DELIVERY_BUDGET_MS } from './deliveredEvent';

/** Left of the delivery's budget after a hold, for admitting it and starting its execution. */
const AFTER_HOLD_MS = 1_000;
/** The longest hold, within the delivery's budget. */
export const HOLD_LIMIT_MS = DELIVERY_BUDGET_MS - AFTER_HOLD_MS;
/** Conversations held per process; the least recently used one is forgotten first. */
const MAX_CONVERSATIONS = 20_000;
const SLICE_MS = 250;

interface Held {
	messageId: string;
	message: IDataObject;
	/** Settles with the id of the newer message that took over the conversation. */
	superseded: Promise<string>;
	supersede: (newerId: string) => void;
}

/** Process memory: per trigger and conversation, the newest customer message held or last held. */
const newestHeld = new BoundedMap<string, Held>(MAX_CONVERSATIONS);

function holdOf(message: IDataObject): Held {
	let supersede: (newerId: string) => void = () => undefined;
	const superseded = new Promise<string>((resolve) => {
		supersede = resolve;
	});
	return { messageId: String(message.id), message, superseded, supersede };
}

export type HoldOutcome = { waitedMs: number } | { newerId: string };

/** Holds a customer's message until the conversation has been quiet for `quietMs` in this process, or the delivery's `deadline` is near, or a newer message of the conversation arrives. */
export async function holdForQuiet(trigger: string, message: IDataObject, quietMs: number, deadline: number): Promise<HoldOutcome> {
	const arrived = Date.now();
	const key = `${trigger}|${String(message.conversation_id)}`;
	const current = newestHeld.touch(key);
	// Copies of one message share its hold; an older message (late, or a copy of one) is part of the held one's burst.
	let held = current;
	if (!current || current.messageId !== String(message.id)) {
		if (current && newerFirst(current.message, message) < 0) return { newerId: current.messageId };
		held = holdOf(message);
		newestHeld.set(key, held);
		current?.supersede(held.messageId);
	}
	const until = Math.min(arrived + quietMs, deadline - AFTER_HOLD_MS);
	for (let left = until - Date.now(); left > 0; left = until - Date.now()) {
		const newerId = await Promise.race([held!.superseded, sleep(Math.min(SLICE_MS, left)).then(() => undefined)]);
		if (newerId !== undefined) return { newerId };
	}
	return { waitedMs: Date.now() - arrived };
}
