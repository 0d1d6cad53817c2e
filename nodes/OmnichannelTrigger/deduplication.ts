/**
 * Exactly-once acceptance of deliveries, keyed on X-Service-Webhook-Id.
 *
 * Two layers, because n8n offers webhook nodes no database-backed de-dup:
 * - a process-wide map of recently accepted ids per trigger. The check and
 *   the insert run without an `await` in between, so two copies arriving at
 *   the same time in one process cannot both pass;
 * - a bounded copy of the newest ids in the node's workflow static data, so a
 *   redelivery after a restart is still recognised. It is kept as one JSON
 *   string, not as an array: n8n loads the static data on every webhook
 *   request and wraps each nested object in a change-tracking proxy, which
 *   for thousands of [id, time] pairs cost more than the whole verification.
 *
 * n8n saves a webhook run's static data whole, from the copy it loaded at
 * the start of that run: concurrent runs overwrite each other. So every run
 * that accepts an event writes the whole process-wide list into its own copy,
 * and into the copies of the other runs still in flight in this process.
 * Whichever saves last then saves every id this process has accepted.
 */

/**
 * contract.md §7 retries after 5 s, 30 s, 2 min, 10 min, 30 min and 1 h:
 * about 1 h 43 min from the first attempt. Ids are kept a little longer.
 */
export const RETENTION_MS = 2 * 60 * 60 * 1000;
/** Ids kept in memory per trigger (about 100 bytes each). */
export const MEMORY_IDS_PER_TRIGGER = 10_000;
/** Ids kept in static data per trigger: the whole list is saved after every accepted event. */
export const STORED_IDS_PER_TRIGGER = 5_000;
/** Triggers tracked per process; the least recently used one is forgotten first. */
const MAX_TRIGGERS = 64;
/** A run saves its static data right after starting its execution, well within this. */
const IN_FLIGHT_MS = 60_000;
const IN_FLIGHT_PER_TRIGGER = 16;

/** [event id, UNIX seconds when first accepted], oldest first. */
export type StoredEventIds = Array<[string, number]>;

/** Where one run keeps the ids (StoredEventIds as JSON) in its copy of the static data. */
export interface EventIdStore {
	read(): unknown;
	write(storedJson: string): void;
}

interface InFlightRun {
	store: EventIdStore;
	since: number;
}

interface TriggerMemory {
	/** Event id -> first accepted (ms), oldest first. */
	accepted: Map<string, number>;
	/** The newest ids as saved in static data; replaced, never changed in place. */
	stored: StoredEventIds;
	/**
	 * The JSON this process last wrote to static data or read from it: every
	 * id in it is already known, so a copy holding it needs no parsing.
	 */
	knownJson: string;
	inFlight: InFlightRun[];
}

const triggers = new Map<string, TriggerMemory>();

function memoryOf(trigger: string): TriggerMemory {
	let memory = triggers.get(trigger);
	if (memory) {
		triggers.delete(trigger);
	} else {
		memory = { accepted: new Map(), stored: [], knownJson: '', inFlight: [] };
	}
	// Re-inserted last: the Map's order is the order of use.
	triggers.set(trigger, memory);
	if (triggers.size > MAX_TRIGGERS) {
		const leastRecent = triggers.keys().next().value as string;
		triggers.delete(leastRecent);
	}
	return memory;
}

function toStored(accepted: Map<string, number>): StoredEventIds {
	const newest = [...accepted.entries()].slice(-STORED_IDS_PER_TRIGGER);
	return newest.map(([id, acceptedMs]) => [id, Math.floor(acceptedMs / 1000)]);
}

/**
 * The ids in a run's copy of the static data. Version 0.1.0 of this node kept
 * them as an array, which is still read.
 */
function parseStored(stored: unknown): unknown[] {
	if (Array.isArray(stored)) return stored;
	if (typeof stored !== 'string' || stored === '') return [];
	try {
		const parsed: unknown = JSON.parse(stored);
		return Array.isArray(parsed) ? parsed : [];
	} catch {
		return [];
	}
}

/**
 * Adds ids saved by earlier runs (before a restart, or by another process).
 * Runs on every delivery: when the copy holds exactly what this process last
 * wrote or read (the usual case), it costs one string comparison.
 */
function absorbStored(memory: TriggerMemory, stored: unknown, oldestMs: number): void {
	if (stored === memory.knownJson) return;
	if (typeof stored === 'string') memory.knownJson = stored;
	const missing: Array<[string, number]> = [];
	for (const entry of parseStored(stored).slice(-STORED_IDS_PER_TRIGGER)) {
		if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'number') continue;
		const acceptedMs = entry[1] * 1000;
		if (acceptedMs >= oldestMs && !memory.accepted.has(entry[0])) missing.push([entry[0], acceptedMs]);
	}
	if (missing.length === 0) return;
	const merged = [...memory.accepted.entries(), ...missing].sort((a, b) => a[1] - b[1]);
	memory.accepted = new Map(merged);
	memory.stored = toStored(memory.accepted);
}

function forgetOld(memory: TriggerMemory, now: number): void {
	const oldestMs = now - RETENTION_MS;
	for (const [id, acceptedMs] of memory.accepted) {
		if (acceptedMs >= oldestMs && memory.accepted.size <= MEMORY_IDS_PER_TRIGGER) break;
		memory.accepted.delete(id);
	}
	const expired = memory.stored.findIndex(([, acceptedSeconds]) => acceptedSeconds * 1000 >= oldestMs);
	if (expired !== 0) memory.stored = expired < 0 ? [] : memory.stored.slice(expired);
	memory.inFlight = memory.inFlight.filter((run) => run.since >= now - IN_FLIGHT_MS).slice(-IN_FLIGHT_PER_TRIGGER);
}

function remember(memory: TriggerMemory, eventId: string, now: number): void {
	memory.accepted.set(eventId, now);
	const kept = memory.stored.slice(memory.stored.length >= STORED_IDS_PER_TRIGGER ? 1 : 0);
	kept.push([eventId, Math.floor(now / 1000)]);
	memory.stored = kept;
}

/**
 * True the first time `eventId` is seen for this trigger (start one
 * execution), false for a copy (answer 2xx, start nothing). Synchronous on
 * purpose: see the module comment.
 */
export function acceptOnce(trigger: string, store: EventIdStore, eventId: string, now = Date.now()): boolean {
	const memory = memoryOf(trigger);
	absorbStored(memory, store.read(), now - RETENTION_MS);
	forgetOld(memory, now);
	if (memory.accepted.has(eventId)) return false;

	remember(memory, eventId, now);
	forgetOld(memory, now);
	memory.inFlight.push({ store, since: now });
	memory.knownJson = JSON.stringify(memory.stored);
	for (const run of memory.inFlight) run.store.write(memory.knownJson);
	return true;
}

