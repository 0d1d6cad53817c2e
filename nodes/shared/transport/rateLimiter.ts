// The request budget of each API key in this process: at most MAX_CONCURRENT_REQUESTS in flight (semaphore.ts) and a rate that the key's limiter learns from the API's 429s (keyLimiter.ts), paced by a token bucket (pacedBucket.ts).
import { ADAPTIVE_RATE, KeyLimiter } from './keyLimiter';
import type { Grant } from './keyLimiter';
import { PacedBucket } from './pacedBucket';

export type { Grant } from './keyLimiter';

/** The API allows about 60 requests per second per key (docs/api-assumptions.md, "Authentication, scopes and rate limits"). */
export const DEFAULT_REQUESTS_PER_SECOND = 60;
/** Requests in flight per key: enough for the API's rate at its latency. */
export const MAX_CONCURRENT_REQUESTS = 24;

/** Module-level on purpose: n8n loads a node's module once per process, so all executions and all nodes using the same key share one budget, as the server counts per key. */
const limiters = new Map<string, KeyLimiter>();
const loweredBuckets = new Map<string, PacedBucket>();

function limiterFor(fingerprint: string): KeyLimiter {
	let limiter = limiters.get(fingerprint);
	if (!limiter) {
		limiter = new KeyLimiter(DEFAULT_REQUESTS_PER_SECOND, MAX_CONCURRENT_REQUESTS, Date.now());
		limiters.set(fingerprint, limiter);
	}
	return limiter;
}

function loweredBucketFor(fingerprint: string, perSecond: number): PacedBucket {
	const id = `${fingerprint}|${perSecond}`;
	let bucket = loweredBuckets.get(id);
	if (!bucket) {
		bucket = new PacedBucket(perSecond, ADAPTIVE_RATE.burstSeconds, Date.now());
		loweredBuckets.set(id, bucket);
	}
	return bucket;
}

/** Runs `send` once a concurrency slot and a token are available, passing it the grant to hand to `rateLimited` if the API answers 429. */
export async function throttled<T>(
	fingerprint: string,
	perSecond: number | undefined,
	send: (grant: Grant) => Promise<T>,
): Promise<T> {
	// The stricter bucket is waited for before taking a slot, so a slow node
	// never holds slots that other nodes using the key could use.
	if (perSecond !== undefined && perSecond > 0 && perSecond < DEFAULT_REQUESTS_PER_SECOND) {
		await loweredBucketFor(fingerprint, perSecond).take();
	}
	const limiter = limiterFor(fingerprint);
	await limiter.slots.acquire();
	try {
		const grant = await limiter.take();
		return await send(grant);
	} finally {
		limiter.slots.release();
	}
}

/** The API refused a request of this key with 429: the key's rate in this process is cut (once per round trip). */
export function rateLimited(fingerprint: string, grant: Grant, retryAfterMs: number, now = Date.now()): number {
	return limiterFor(fingerprint).rateLimited(grant, retryAfterMs, now);
}
