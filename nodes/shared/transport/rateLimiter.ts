// The request budget of each API key in this process: at most
// MAX_CONCURRENT_REQUESTS in flight (semaphore.ts) and a rate that the key's
// limiter learns from the API's 429s (keyLimiter.ts), paced by a token bucket
// (pacedBucket.ts). request.ts calls `throttled` for every attempt and
// `rateLimited` for every 429.
import { ADAPTIVE_RATE, KeyLimiter } from './keyLimiter';
import type { Grant } from './keyLimiter';
import { PacedBucket } from './pacedBucket';

export type { Grant } from './keyLimiter';

/**
 * The API allows about 60 requests per second per key
 * (docs/api-assumptions.md, "Authentication, scopes and rate limits").
 */
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
 * Module-level on purpose: n8n loads a node's module once per process, so all
 * executions and all nodes using the same key share one budget, as the server
 * counts per key. Processes share nothing; each learns its share.
 */
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

/**
 * Runs `send` once a concurrency slot and a token are available, passing it
 * the grant to hand to `rateLimited` if the API answers 429. The slot is held
 * only while the request is in flight, never during a retry's backoff.
 * `perSecond` below the default adds a second, fixed bucket for the nodes
 * that asked for it (a ceiling); the learned per-key rate still applies.
 */
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

/**
 * The API refused a request of this key with 429: the key's rate in this
 * process is cut (once per round trip). Returns how long the refused request
 * waits before it is retried: its Retry-After. A Retry-After above
 * `pacingRetryAfterMs` also pauses every request of the key in this process.
 */
export function rateLimited(fingerprint: string, grant: Grant, retryAfterMs: number, now = Date.now()): number {
	return limiterFor(fingerprint).rateLimited(grant, retryAfterMs, now);
}
