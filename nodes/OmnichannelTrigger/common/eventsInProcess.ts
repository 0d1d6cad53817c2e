import { createHash } from 'crypto';
import { sleep } from 'n8n-workflow';

import { BoundedMap } from '../../shared/processMemory/boundedMap';

/** Process memory, per trigger: the event ids this process is starting or started an execution for (docs/development/trigger-internals.md, "Event ids in process memory"). */

/** Longer than n8n takes to create an execution; shorter than the sender's first retry (5 s). */
export const STARTING_MS = 4_000;
/** A little longer than the sender's retries last (1 h 43 min). */
export const RETENTION_MS = 2 * 60 * 60 * 1000;
export const IDS_PER_TRIGGER = 40_000;
const MAX_TRIGGERS = 64;
/** 96 bits of the id's SHA-256. */
const FINGERPRINT_CHARS = 16;

/** What became of a start: the execution exists, n8n could not create it, or nobody can tell. */
export type StartOutcome = 'started' | 'failed' | 'unknown';

interface Start {
	outcome: Promise<StartOutcome>;
	settle: (outcome: StartOutcome) => void;
}

interface Seen {
	state: 'starting' | 'started';
	at: number;
	/** While starting: what copies waiting for this start are told. */
	start?: Start;
}

function newStart(): Start {
	let settle: (outcome: StartOutcome) => void = () => undefined;
	const outcome = new Promise<StartOutcome>((resolve) => {
		settle = resolve;
	});
	return { outcome, settle };
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

/** What a delivery of `eventId` does: "start" an execution, or nothing while a copy's is "starting" (409) or "started" (2xx); synchronous, so two copies cannot both start. */
export function admitDelivery(trigger: string, eventId: string, now = Date.now()): Admission {
	const ids = idsOf(trigger);
	const id = fingerprint(eventId);
	const seen = ids.get(id);
	if (seen?.state === 'started' && seen.at >= now - RETENTION_MS) return 'started';
	if (seen?.state === 'starting' && seen.at >= now - STARTING_MS) return 'starting';
	// A lapsed start leaves its waiters to their own deadline.
	ids.set(id, { state: 'starting', at: now, start: newStart() });
	return 'start';
}

/** The execution exists (n8n answered its delivery 2xx, or its first step ran here): later copies start nothing. */
export function markStarted(trigger: string, eventId: string, now = Date.now()): void {
	const ids = idsOf(trigger);
	const id = fingerprint(eventId);
	ids.get(id)?.start?.settle('started');
	ids.set(id, { state: 'started', at: now });
}

/** n8n could not create the execution (it answered the delivery with an error): the id is new again, and a copy waiting for it starts it. */
export function markFailed(trigger: string, eventId: string): void {
	const ids = idsOf(trigger);
	const id = fingerprint(eventId);
	const seen = ids.get(id);
	if (seen?.state !== 'starting' || !seen.start) return;
	ids.delete(id);
	seen.start.settle('failed');
}

/** The part of n8n's response object this module reads: Node's http.ServerResponse. */
interface ObservableResponse {
	statusCode?: number;
	writableFinished?: boolean;
	once(event: 'finish' | 'close', listener: () => void): unknown;
}

const isObservable = (response: unknown): response is ObservableResponse =>
	typeof response === 'object' && response !== null && typeof (response as { once?: unknown }).once === 'function';

/** Learns a start's outcome from n8n's answer to its delivery: 2xx started, an error failed; a connection closed before any answer tells nothing. */
export function watchStart(trigger: string, eventId: string, response: unknown): void {
	if (!isObservable(response)) return;
	const start = idsOf(trigger).get(fingerprint(eventId))?.start;
	if (!start) return;
	const isCurrent = () => idsOf(trigger).get(fingerprint(eventId))?.start === start;
	response.once('finish', () => {
		const status = response.statusCode ?? 0;
		if (!isCurrent()) start.settle(status >= 200 && status < 300 ? 'started' : 'failed');
		else if (status >= 200 && status < 300) markStarted(trigger, eventId);
		else markFailed(trigger, eventId);
	});
	response.once('close', () => {
		if (response.writableFinished) return;
		start.settle('unknown');
		// n8n goes on creating the execution after the sender gave up: a copy soon after waits (409) rather than starting another.
		const seen = idsOf(trigger).get(fingerprint(eventId));
		if (seen?.start === start) seen.at = Date.now();
	});
}

/** How often a waiting copy checks its deadline: a settled wait leaves no timer longer than this behind. */
const WAIT_SLICE_MS = 250;

/** The start's outcome, or "unknown" at `until`; n8n-workflow's sleep is the one timer node code may use. */
async function outcomeBefore(start: Start, until: number): Promise<StartOutcome> {
	for (let left = until - Date.now(); left > 0; left = until - Date.now()) {
		const outcome = await Promise.race([start.outcome, sleep(Math.min(WAIT_SLICE_MS, left)).then(() => undefined)]);
		if (outcome) return outcome;
	}
	return 'unknown';
}

export type CopyAdmission = 'start' | 'started' | 'unknown';

/** What a delivery of `eventId` does once any copy being started has an outcome: "start", "started" (2xx), or "unknown" at `until` (409). */
export async function admitCopy(trigger: string, eventId: string, response: unknown, until: number): Promise<CopyAdmission> {
	for (;;) {
		const admission = admitDelivery(trigger, eventId);
		if (admission === 'start') {
			watchStart(trigger, eventId, response);
			return 'start';
		}
		if (admission === 'started') return 'started';
		const start = idsOf(trigger).get(fingerprint(eventId))?.start;
		if (!start) return 'unknown';
		const outcome = await outcomeBefore(start, until);
		// "failed": the id is new again; the next pass starts it (one waiter wins, the others wait for it).
		if (outcome === 'started') return 'started';
		if (outcome === 'unknown' || Date.now() >= until) return 'unknown';
	}
}
