import { createHash } from 'crypto';

/**
 * First line of exactly-once: the event ids this n8n process has accepted,
 * per trigger, checked and recorded by a delivery without any `await` in
 * between, so two copies reaching one process at the same time cannot both
 * start an execution, and later copies to the same process start none.
 *
 * What this process does not know (a copy reaching another process, or a
 * redelivery after a restart) is caught by the ledger in n8n's database, which
 * the trigger checks as the first step of every execution (eventLedger.ts).
 */

/**
 * The service retries a delivery after 5 s, 30 s, 2 min, 10 min, 30 min and 1 h
 * (docs/api-assumptions.md, "Webhook deliveries"): about 1 h 43 min from the
 * first attempt. Ids are kept a little longer.
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

/** Per trigger: id fingerprint -> first accepted (ms), oldest first. */
const triggers = new Map<string, Map<string, number>>();

const fingerprint = (eventId: string): string =>
	createHash('sha256').update(eventId).digest('base64url').slice(0, FINGERPRINT_CHARS);

function acceptedBy(trigger: string): Map<string, number> {
	let accepted = triggers.get(trigger);
	if (accepted) {
		triggers.delete(trigger);
	} else {
		accepted = new Map();
	}
	// Re-inserted last: the Map's order is the order of use.
	triggers.set(trigger, accepted);
	if (triggers.size > MAX_TRIGGERS) triggers.delete(triggers.keys().next().value as string);
	return accepted;
}

function forgetOld(accepted: Map<string, number>, now: number): void {
	const oldestMs = now - RETENTION_MS;
	for (const [id, acceptedMs] of accepted) {
		if (acceptedMs >= oldestMs && accepted.size <= IDS_PER_TRIGGER) break;
		accepted.delete(id);
	}
}

/**
 * True the first time this process sees `eventId` for the trigger (start an
 * execution), false for a copy (answer 2xx, start nothing). Synchronous on
 * purpose: see the module comment.
 */
export function acceptOnce(trigger: string, eventId: string, now = Date.now()): boolean {
	const accepted = acceptedBy(trigger);
	const id = fingerprint(eventId);
	const seenAt = accepted.get(id);
	if (seenAt !== undefined && seenAt >= now - RETENTION_MS) return false;
	// Forgotten ids come back as new, at the end of the order.
	accepted.delete(id);
	accepted.set(id, now);
	forgetOld(accepted, now);
	return true;
}
