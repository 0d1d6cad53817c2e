import { PacedBucket } from './pacedBucket';
import { Semaphore } from './semaphore';

/** The rate a key's limiter learns (docs/operations.md, "Rate limit and retries"): several n8n processes (queue-mode workers) share one key and n8n gives nodes no shared state, so each process finds its share from the API's answers. */
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
	/** A Retry-After up to this only delays the refused request: the server's bucket is empty for now, and the rate cut is the answer. */
	pacingRetryAfterMs: 2000,
};

/** When a request got its token: a 429 for it is a signal only if sent after the last cut. */
export interface Grant {
	readonly at: number;
}

/** One key's limiter in this process: AIMD on the bucket's rate, between `minPerSecond` and the ceiling (the API's 60/s). */
export class KeyLimiter {
	readonly bucket: PacedBucket;

	readonly slots: Semaphore;

	private grewAt: number;

	/** Time of the last cut: 429s for requests granted before it were sent at the old rate. */
	private cutAt = -Infinity;

	/** Grants counted in the current and the previous window, for the achieved rate. */
	private windowStart: number;

	private windowGrants = 0;

	private previousWindowRate: number | undefined;

	constructor(
		private readonly ceiling: number,
		concurrentRequests: number,
		now: number,
	) {
		this.bucket = new PacedBucket(ceiling, ADAPTIVE_RATE.burstSeconds, now);
		this.slots = new Semaphore(concurrentRequests);
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

	/** A 429 for a request granted at `grant.at`. */
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
