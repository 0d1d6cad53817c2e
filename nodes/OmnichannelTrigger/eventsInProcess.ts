import { createHash } from 'crypto';

import { BoundedMap } from '../shared/boundedMap';

/**
 * Process memory, per trigger: the event ids this n8n process has started
 * an execution for. The first line of exactly-once, and a cheap one; the
 * event ledger in n8n's database (eventsInDatabase.ts) decides what this memory
 * cannot know (a copy that reached another process, a restart).
 *
 * An id goes through two states:
 * - "starting": a delivery asked n8n to start an execution, which n8n may
 *   still fail to create (a database or Redis blip answers 500). A copy
 *   arriving meanwhile (the sender's copies can arrive at the same moment) is
 *   answered 409 and retried by the sender later; it starts nothing now. The
 *   state lapses after STARTING_MS, so a delivery n8n failed to start is
 *   started again by the sender's next retry (5 s later at the earliest).
 * - "started": the execution's first step ran in this process (one process,
 *   or main in regular mode): the execution exists, so a later copy is
 *   answered 2xx "duplicate" and starts nothing. In queue mode the first step
 *   runs on a worker: the webhook process's copies start executions, and the
 *   ledger lets only the first run downstream.
 */

/** Longer than n8n takes to create an execution; shorter than the sender's first retry (5 s). */
export const STARTING_MS = 4_000;
/**
 * The sender retries after 5 s, 30 s, 2 min, 10 min, 30 min and 1 h: about
 * 1 h 43 min from the first attempt (docs/api-assumptions.md, "Webhook
 * deliveries"). Started ids are kept a little longer.
 */
export const RETENTION_MS = 2 * 60 * 60 * 1000;
/**
 * Ids kept per trigger: the whole retry schedule at a sustained 5 events/s
 * (6,180 s × 5 = 30,900) with room to spare. About 100 bytes each.
 */
export const IDS_PER_TRIGGER = 40_000;
/** Triggers tracked per process; the least recently used one is forgotten first. */
const MAX_TRIGGERS = 64;
/** 96 bits of the id's SHA-256: two ids look alike with odds of about 1 in 10^19 among 40,000. */
const FINGERPRINT_CHARS = 16;

interface Seen {
	state: 'starting' | 'started';
	at: number;
}

const triggers = new BoundedMap<string, BoundedMap<string, Seen>>(MAX_TRIGGERS);

const fingerprint = (eventId: string): string =>
	createHash('sha256').update(eventId).digest('base64url').slice(0, FINGERPRINT_CHARS);

function idsOf(trigger: string): BoundedMap<string, Seen> {
	let ids = triggers.touch(trigger);
	if (!ids) {
		ids = new BoundedMap(IDS_PER_TRIGGER);
		triggers.set(trigger, ids);
	}
	return ids;
}

export type Admission = 'start' | 'starting' | 'started';

/**
 * What a delivery of `eventId` does: "start" an execution (the id is then
 * starting), or nothing, because a copy's execution is "starting" (answer
 * 409: retry later) or has "started" (answer 2xx). Synchronous on purpose:
 * two copies reaching this process at the same moment cannot both start.
 */
export function admitDelivery(trigger: string, eventId: string, now = Date.now()): Admission {
	const ids = idsOf(trigger);
	const id = fingerprint(eventId);
	const seen = ids.get(id);
	if (seen?.state === 'started' && seen.at >= now - RETENTION_MS) return 'started';
	if (seen?.state === 'starting' && seen.at >= now - STARTING_MS) return 'starting';
	ids.set(id, { state: 'starting', at: now });
	return 'start';
}

/** The execution's first step ran in this process: later copies start nothing. */
export function markStarted(trigger: string, eventId: string, now = Date.now()): void {
	idsOf(trigger).set(fingerprint(eventId), { state: 'started', at: now });
}
