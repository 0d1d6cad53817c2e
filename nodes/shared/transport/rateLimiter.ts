import { sleep } from 'n8n-workflow';

/** The API allows about 60 requests per second per key (api.md §8, contract.md §3). */
export const DEFAULT_REQUESTS_PER_SECOND = 60;
/**
 * Requests in flight per key. A slot is held for the API's latency plus n8n's
 * own work per request (credential decryption, the header expression, parsing
 * up to 500 records): 150–250 ms on two busy cores, measured in bench/. 24
 * slots keep 60 req/s busy up to ~400 ms per request; the token bucket, not
 * this number, bounds the rate.
 */
export const MAX_CONCURRENT_REQUESTS = 24;

/**
 * The rate a key's limiter learns (README, "Rate limit and retries"): several
 * n8n processes (queue-mode workers) share one key and n8n gives nodes no
 * shared state, so each process finds its share from the API's answers.
 * Additive increase while the limiter holds requests back, multiplicative
 * decrease on a 429: K processes settle near 60/K each, one runs at 60.
 */
export const ADAPTIVE_RATE = {
	/** Requests/s gained per second during which the limiter held requests back. */
	increasePerSecond: 2,
	/** A 429 sets the rate to this share of the rate achieved before it. */
	decreaseFactor: 0.6,
	/** The learned rate never goes below this. */
	minPerSecond: 1,
	/** Seconds of burst: half a second, as the server's bucket holds one second. */
	burstSeconds: 0.5,
	/** Window over which the achieved rate is measured. */
	achievedWindowMs: 1000,
	/**
	 * A Retry-After up to this only delays the refused request: the server's
	 * bucket is empty for now, and the rate cut is the answer. A longer one (a
	 * limit below one request per second, or a penalty) pauses the whole key.
	 */
	pacingRetryAfterMs: 2000,
};

/** When a request got its token: a 429 for it is a signal only if sent after the last cut. */
export interface Grant {
	readonly at: number;
}

/**
 * A token bucket whose callers are served one after another: only the first
 * waiter sleeps, and it looks at the rate again when it wakes, so a rate cut
 * applies to every request not yet sent (a reservation scheme would let the
 * requests already queued go out at the old rate).
 */
class PacedBucket {
	private tokens: number;

	private refilledAt: number;

	/** Nobody may send before this time (a long Retry-After). */
	private pausedUntil = 0;

	private queue: Promise<unknown> = Promise.resolve();

	/** Callers waiting for their turn. */
	private pending = 0;

	constructor(
		public rate: number,
		private readonly burstSeconds: number,
		now: number,
	) {
		this.tokens = this.capacity;
		this.refilledAt = now;
	}

	get capacity(): number {
		return Math.max(1, Math.floor(this.rate * this.burstSeconds));
	}

	/**
	 * Resolves, in arrival order, with the time the caller got its token and
	 * whether it had to wait for it (queued or slept): the limiter held it back.
	 */
	async take(): Promise<{ at: number; held: boolean }> {
		const queued = this.pending > 0;
		this.pending++;
		const turn = this.queue.then(async () => await this.waitForToken(queued));
		this.queue = turn.catch(() => undefined);
		try {
			return await turn;
		} finally {
			this.pending--;
		}
	}

	/** Empties the bucket: the server's is empty too after a 429. */
	drain(now: number): void {
		this.refill(now);
		this.tokens = Math.min(this.tokens, 0);
	}

	pause(until: number, now: number): void {
		if (until <= this.pausedUntil) return;
		this.drain(now);
		this.pausedUntil = until;
		this.refilledAt = Math.max(this.refilledAt, until);
	}

	private refill(now: number): void {
		const elapsed = Math.max(0, now - this.refilledAt);
		this.tokens = Math.min(this.capacity, this.tokens + (elapsed * this.rate) / 1000);
		this.refilledAt = Math.max(this.refilledAt, now);
	}

	private async waitForToken(queued: boolean): Promise<{ at: number; held: boolean }> {
		let held = queued;
		for (;;) {
			const now = Date.now();
			this.refill(now);
			const wait = Math.max(this.pausedUntil - now, this.tokens >= 1 ? 0 : ((1 - this.tokens) * 1000) / this.rate);
			if (wait <= 0) {
				this.tokens -= 1;
				return { at: now, held };
			}
			held = true;
			await sleep(Math.ceil(wait));
		}
	}
}

/** Bounded concurrency; a released slot goes straight to the next waiter. */
class Semaphore {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	constructor(private readonly max: number) {}

	async acquire(): Promise<void> {
		if (this.active < this.max) {
			this.active++;
			return;
		}
		await new Promise<void>((resolve) => this.waiting.push(resolve));
	}

	release(): void {
		const next = this.waiting.shift();
		if (next) next();
		else this.active--;
	}
}

/**
 * One key's limiter in this process: AIMD on the bucket's rate, between
 * `minPerSecond` and the ceiling (the API's 60/s).
 */
class KeyLimiter {
	readonly bucket: PacedBucket;

	readonly slots = new Semaphore(MAX_CONCURRENT_REQUESTS);

	private grewAt: number;

	/** Time of the last cut: 429s for requests granted before it were sent at the old rate. */
	private cutAt = -Infinity;

	/** Grants counted in the current and the previous window, for the achieved rate. */
	private windowStart: number;

	private windowGrants = 0;

	private previousWindowRate: number | undefined;

	constructor(private readonly ceiling: number, now: number) {
		this.bucket = new PacedBucket(ceiling, ADAPTIVE_RATE.burstSeconds, now);
		this.grewAt = now;
		this.windowStart = now;
	}

	get rate(): number {
		return this.bucket.rate;
	}

	async take(): Promise<Grant> {
		const { at, held } = await this.bucket.take();
		this.countGrant(at);
		// Additive increase, only for time during which requests waited for
		// tokens: a process that does not use its rate learns nothing about it.
		if (held && this.rate < this.ceiling) {
			const gained = (ADAPTIVE_RATE.increasePerSecond * Math.max(0, at - this.grewAt)) / 1000;
			this.bucket.rate = Math.min(this.ceiling, this.rate + gained);
		}
		this.grewAt = at;
		return { at };
	}

	/**
	 * A 429 for a request granted at `grant.at`. Returns how long the refused
	 * request waits before its retry.
	 */
	rateLimited(grant: Grant, retryAfterMs: number, now: number): number {
		if (grant.at >= this.cutAt) {
			// Multiplicative decrease of what we really sent, not of a rate we may
			// not have used; at most once per round trip, as every request sent
			// before the cut may still come back refused.
			const achieved = this.achievedRate(now);
			const base = achieved === undefined ? this.rate : Math.min(this.rate, achieved);
			this.bucket.rate = Math.max(ADAPTIVE_RATE.minPerSecond, base * ADAPTIVE_RATE.decreaseFactor);
			this.bucket.drain(now);
			this.cutAt = now;
			this.grewAt = now;
		}
		if (retryAfterMs > ADAPTIVE_RATE.pacingRetryAfterMs) this.bucket.pause(now + retryAfterMs, now);
		return retryAfterMs;
	}

	private countGrant(at: number): void {
		const elapsed = at - this.windowStart;
		if (elapsed >= ADAPTIVE_RATE.achievedWindowMs) {
			// A window with a long idle gap says nothing about the rate in use.
			this.previousWindowRate = elapsed <= 2 * ADAPTIVE_RATE.achievedWindowMs ? (this.windowGrants * 1000) / elapsed : undefined;
			this.windowStart = at;
			this.windowGrants = 0;
		}
		this.windowGrants++;
	}

	/** Grants per second over the last full window and the current one. */
	private achievedRate(now: number): number | undefined {
		const elapsed = now - this.windowStart;
		if (this.previousWindowRate === undefined) {
			return elapsed >= ADAPTIVE_RATE.achievedWindowMs / 4 ? (this.windowGrants * 1000) / elapsed : undefined;
		}
		const previousMs = ADAPTIVE_RATE.achievedWindowMs;
		return ((this.previousWindowRate * previousMs) / 1000 + this.windowGrants) / ((previousMs + Math.max(0, elapsed)) / 1000);
	}
}

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
		limiter = new KeyLimiter(DEFAULT_REQUESTS_PER_SECOND, Date.now());
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

/** The rate this process currently allows itself for a key (for tests and diagnostics). */
export function currentRate(fingerprint: string): number {
	return limiters.get(fingerprint)?.rate ?? DEFAULT_REQUESTS_PER_SECOND;
}
