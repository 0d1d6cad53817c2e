import { sleep } from 'n8n-workflow';

/** A token bucket whose callers are served one after another: only the first waiter sleeps, and it looks at the rate again when it wakes, so a rate cut applies to every request not yet sent (a reservation scheme would let the requests already queued go out at the old rate). */
export class PacedBucket {
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

	/** Resolves, in arrival order, with the time the caller got its token and whether it had to wait for it (queued or slept): the limiter held it back. */
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
