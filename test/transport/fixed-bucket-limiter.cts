// A fixed token bucket per key, as a limiter that does not learn the key's
// rate: the peer the convergence test must tell apart from the transport's
// learned rate.
import { sleep } from 'n8n-workflow';

import { Semaphore } from '../../nodes/shared/transport/semaphore';

/** The API allows about 60 requests per second per key (docs/api-assumptions.md, "Authentication, scopes and rate limits"). */
export const DEFAULT_REQUESTS_PER_SECOND = 60;
/**
 * Requests in flight per key. A slot is held for the API's latency plus n8n's
 * own work per request (credential decryption, the header expression, parsing
 * up to 500 records). 24 slots keep 60 req/s busy up to ~400 ms per request,
 * well above the hold times the benchmarks page records; the token bucket,
 * not this number, bounds the rate.
 */
export const MAX_CONCURRENT_REQUESTS = 24;

/**
 * Token bucket with reservations: each caller takes a token at once (the count
 * may go negative) and waits until its token has been refilled. Callers are
 * served in arrival order and nobody polls.
 */
class TokenBucket {
	private tokens: number;

	private refilledAt = Date.now();

	/** Set from a 429's Retry-After: nobody may send before this time. */
	private pausedUntil = 0;

	constructor(
		private readonly perSecond: number,
		private readonly capacity: number,
	) {
		this.tokens = capacity;
	}

	/** Milliseconds the caller must wait before sending. */
	reserve(now = Date.now()): number {
		const elapsed = Math.max(0, now - this.refilledAt);
		this.tokens = Math.min(this.capacity, this.tokens + (elapsed * this.perSecond) / 1000);
		this.refilledAt = Math.max(this.refilledAt, now);
		this.tokens -= 1;
		const refillWait = this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.perSecond;
		return Math.max(refillWait, this.pausedUntil - now);
	}

	/** Remaining pause at `now` (a reservation made before the pause must honour it too). */
	pauseLeft(now = Date.now()): number {
		return Math.max(0, this.pausedUntil - now);
	}

	/**
	 * The server refused us: stop everyone until `until`, and restart from an
	 * empty bucket then, as the server's own bucket will be nearly empty.
	 */
	pause(until: number): void {
		if (until <= this.pausedUntil) return;
		this.pausedUntil = until;
		this.tokens = Math.min(this.tokens, 0);
		this.refilledAt = Math.max(this.refilledAt, until);
	}
}

interface KeyLimiter {
	bucket: TokenBucket;
	slots: Semaphore;
}

/**
 * Module-level on purpose: n8n loads a node's module once per process, so all
 * executions and all nodes using the same key share one budget, as the server
 * counts per key.
 */
const limiters = new Map<string, KeyLimiter>();
const loweredBuckets = new Map<string, TokenBucket>();

function newBucket(perSecond: number): TokenBucket {
	// Half a second of burst: the server's bucket (burst 60) then absorbs
	// network jitter and requests that arrive bunched together.
	return new TokenBucket(perSecond, Math.max(1, Math.floor(perSecond / 2)));
}

function limiterFor(fingerprint: string): KeyLimiter {
	let limiter = limiters.get(fingerprint);
	if (!limiter) {
		limiter = {
			bucket: newBucket(DEFAULT_REQUESTS_PER_SECOND),
			slots: new Semaphore(MAX_CONCURRENT_REQUESTS),
		};
		limiters.set(fingerprint, limiter);
	}
	return limiter;
}

function loweredBucketFor(fingerprint: string, perSecond: number): TokenBucket {
	const id = `${fingerprint}|${perSecond}`;
	let bucket = loweredBuckets.get(id);
	if (!bucket) {
		bucket = newBucket(perSecond);
		loweredBuckets.set(id, bucket);
	}
	return bucket;
}

async function waitFor(bucket: TokenBucket): Promise<void> {
	let wait = bucket.reserve();
	while (wait > 0) {
		await sleep(Math.ceil(wait));
		wait = bucket.pauseLeft();
	}
}

/**
 * Runs `send` once a concurrency slot and a token are available. The slot is
 * held only while the request is in flight, never during a retry's backoff.
 * `perSecond` below the default adds a second, stricter bucket for the nodes
 * that asked for it; the shared per-key bucket still applies.
 */
export async function throttled<T>(
	fingerprint: string,
	perSecond: number | undefined,
	send: () => Promise<T>,
): Promise<T> {
	// The stricter bucket is waited for before taking a slot, so a slow node
	// never holds slots that other nodes using the key could use.
	if (perSecond !== undefined && perSecond > 0 && perSecond < DEFAULT_REQUESTS_PER_SECOND) {
		await waitFor(loweredBucketFor(fingerprint, perSecond));
	}
	const limiter = limiterFor(fingerprint);
	await limiter.slots.acquire();
	try {
		await waitFor(limiter.bucket);
		return await send();
	} finally {
		limiter.slots.release();
	}
}

/** A 429 pauses every request made with this key: the server counts per key. */
export function pauseKey(fingerprint: string, until: number): void {
	limiterFor(fingerprint).bucket.pause(until);
}
