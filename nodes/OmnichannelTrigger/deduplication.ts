import { createHash } from 'crypto';

/**
 * Exactly-once acceptance of deliveries, keyed on X-Service-Webhook-Id.
 *
 * Two layers, because n8n offers webhook nodes no database-backed de-dup:
 * - a process-wide map of recently accepted ids per trigger. The check and
 *   the insert run without an `await` in between, so two copies arriving at
 *   the same time in one process cannot both pass;
 * - a bounded copy of the newest ids in the node's workflow static data, so a
 *   redelivery after a restart is still recognised.
 *
 * n8n saves a webhook run's static data whole, from the copy it loaded at
 * the start of that run: concurrent runs overwrite each other. So every run
 * that accepts an event writes the whole process-wide list into its own copy,
 * and into the copies of the other runs still in flight in this process.
 * Whichever saves last then saves every id this process has accepted.
 *
 * n8n also reads, parses and saves that static data on every request, so the
 * stored list is one compact string (see StoredList), not an array of pairs.
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
/**
 * How long a run's copy counts as in flight: a delivery run saves within
 * milliseconds, an execution when it ends (most within seconds).
 */
const IN_FLIGHT_MS = 60_000;
const IN_FLIGHT_PER_TRIGGER = 16;
/** Stored lists (by tag) whose ids this process already holds, per trigger. */
const KNOWN_LISTS_PER_TRIGGER = 64;

/**
 * The stored list: `ids1:<tag>:` then one fixed-width entry per id, oldest
 * first. An entry is 16 characters of the id's SHA-256 (base64url: 96 bits,
 * so two different ids look alike with odds of about 1 in 10^20 among 10,000)
 * and the UNIX second it was accepted in 7 base-36 digits. The tag names the
 * process and write, so a run whose copy holds a list this process wrote (the
 * usual case: an older save of its own) skips it without parsing.
 */
const STORED_PREFIX = 'ids1:';
const FINGERPRINT_CHARS = 16;
const SECONDS_CHARS = 7;
const ENTRY_CHARS = FINGERPRINT_CHARS + SECONDS_CHARS;

/** Where one run keeps the ids (a stored list) in its copy of the static data. */
export interface EventIdStore {
	read(): unknown;
	write(storedList: string): void;
}

interface InFlightRun {
	store: EventIdStore;
	since: number;
}

interface TriggerMemory {
	/** Id fingerprint -> first accepted (ms), oldest first. */
	accepted: Map<string, number>;
	/** The entries of the stored list, without prefix and tag. */
	storedEntries: string;
	/** Tags of stored lists whose ids are all in `accepted` (or deliberately forgotten). */
	knownTags: Set<string>;
	inFlight: InFlightRun[];
}

const triggers = new Map<string, TriggerMemory>();
/** Tells this process's writes from another's that used the same counter. */
const processTag = Math.random().toString(36).slice(2, 10);
let writeCount = 0;

const fingerprint = (eventId: string): string =>
	createHash('sha256').update(eventId).digest('base64url').slice(0, FINGERPRINT_CHARS);

const entryOf = (fingerprintOfId: string, acceptedMs: number): string =>
	fingerprintOfId + Math.floor(acceptedMs / 1000).toString(36).padStart(SECONDS_CHARS, '0');

function memoryOf(trigger: string): TriggerMemory {
	let memory = triggers.get(trigger);
	if (memory) {
		triggers.delete(trigger);
	} else {
		memory = { accepted: new Map(), storedEntries: '', knownTags: new Set(), inFlight: [] };
	}
	// Re-inserted last: the Map's order is the order of use.
	triggers.set(trigger, memory);
	if (triggers.size > MAX_TRIGGERS) {
		const leastRecent = triggers.keys().next().value as string;
		triggers.delete(leastRecent);
	}
	return memory;
}

function rememberTag(memory: TriggerMemory, tag: string): void {
	memory.knownTags.add(tag);
	if (memory.knownTags.size > KNOWN_LISTS_PER_TRIGGER) {
		memory.knownTags.delete(memory.knownTags.values().next().value as string);
	}
}

/** [fingerprint, accepted ms] of every entry of a stored list. */
function entriesOf(entries: string): Array<[string, number]> {
	const pairs: Array<[string, number]> = [];
	for (let at = 0; at + ENTRY_CHARS <= entries.length; at += ENTRY_CHARS) {
		const seconds = parseInt(entries.slice(at + FINGERPRINT_CHARS, at + ENTRY_CHARS), 36);
		if (Number.isFinite(seconds)) pairs.push([entries.slice(at, at + FINGERPRINT_CHARS), seconds * 1000]);
	}
	return pairs;
}

/** Earlier builds of the node stored [event id, UNIX seconds] pairs. */
function pairsOfArray(stored: unknown[]): Array<[string, number]> {
	const pairs: Array<[string, number]> = [];
	for (const entry of stored) {
		if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number') {
			pairs.push([fingerprint(entry[0]), entry[1] * 1000]);
		}
	}
	return pairs;
}

/**
 * Adds ids saved by earlier runs (before a restart, or by another process).
 * Runs on every delivery; a list this process wrote or read before costs a
 * look-up of its tag.
 */
function absorbStored(memory: TriggerMemory, stored: unknown, oldestMs: number): void {
	let pairs: Array<[string, number]>;
	if (Array.isArray(stored)) {
		pairs = pairsOfArray(stored);
	} else {
		if (typeof stored !== 'string' || !stored.startsWith(STORED_PREFIX)) return;
		const tagEnd = stored.indexOf(':', STORED_PREFIX.length);
		if (tagEnd < 0) return;
		const tag = stored.slice(STORED_PREFIX.length, tagEnd);
		if (memory.knownTags.has(tag)) return;
		rememberTag(memory, tag);
		pairs = entriesOf(stored.slice(tagEnd + 1));
	}
	const missing = pairs
		.slice(-STORED_IDS_PER_TRIGGER)
		.filter(([id, acceptedMs]) => acceptedMs >= oldestMs && !memory.accepted.has(id));
	if (missing.length === 0) return;
	const merged = [...memory.accepted.entries(), ...missing].sort((a, b) => a[1] - b[1]);
	memory.accepted = new Map(merged);
	memory.storedEntries = merged
		.slice(-STORED_IDS_PER_TRIGGER)
		.map(([id, acceptedMs]) => entryOf(id, acceptedMs))
		.join('');
}

function forgetOld(memory: TriggerMemory, now: number): void {
	const oldestMs = now - RETENTION_MS;
	for (const [id, acceptedMs] of memory.accepted) {
		if (acceptedMs >= oldestMs && memory.accepted.size <= MEMORY_IDS_PER_TRIGGER) break;
		memory.accepted.delete(id);
	}
	const entries = memory.storedEntries;
	const tooMany = Math.max(0, entries.length / ENTRY_CHARS - STORED_IDS_PER_TRIGGER);
	let first = tooMany * ENTRY_CHARS;
	while (first < entries.length) {
		const seconds = parseInt(entries.slice(first + FINGERPRINT_CHARS, first + ENTRY_CHARS), 36);
		if (seconds * 1000 >= oldestMs) break;
		first += ENTRY_CHARS;
	}
	if (first > 0) memory.storedEntries = entries.slice(first);
	memory.inFlight = memory.inFlight.filter((run) => run.since >= now - IN_FLIGHT_MS).slice(-IN_FLIGHT_PER_TRIGGER);
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
	const id = fingerprint(eventId);
	if (memory.accepted.has(id)) return false;

	memory.accepted.set(id, now);
	memory.storedEntries += entryOf(id, now);
	forgetOld(memory, now);
	publish(memory, store, now);
	return true;
}

/**
 * Writes the current list, under a new tag, into this run's copy and into
 * the copies of the other runs still in flight (see the module comment).
 */
function publish(memory: TriggerMemory, store: EventIdStore, now: number): void {
	memory.inFlight.push({ store, since: now });
	const tag = `${processTag}.${(++writeCount).toString(36)}`;
	rememberTag(memory, tag);
	const storedList = `${STORED_PREFIX}${tag}:${memory.storedEntries}`;
	for (const run of memory.inFlight) run.store.write(storedList);
}

/**
 * Writes every id this process holds for the trigger into another copy of
 * the static data: the one of the execution an accepted event started, which
 * n8n saves when that execution ends (see OmnichannelTrigger.execute).
 * Executions end in any order, so that copy joins the runs in flight.
 */
export function saveKnownIds(trigger: string, store: EventIdStore, now = Date.now()): void {
	const memory = memoryOf(trigger);
	absorbStored(memory, store.read(), now - RETENTION_MS);
	forgetOld(memory, now);
	if (memory.storedEntries !== '') publish(memory, store, now);
}
