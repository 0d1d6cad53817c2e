'use strict';
// Per-key token bucket: `rate` tokens per second, burst `rate`
// (at least 1, so fractional rates such as 0.2/s still let requests through),
// one token per request. A monotonic clock keeps it immune to clock changes.

const { monotonicMs } = require('./clock');

class RateLimiter {
	/** @param {() => number} getRate tokens per second; 0 disables limiting */
	constructor(getRate) {
		this.getRate = getRate;
		/** @type {Map<string, { tokens: number, at: number }>} */
		this.buckets = new Map();
	}

	/**
	 * Takes one token for `keyId`.
	 * @returns {number} 0 when allowed, else the Retry-After in whole seconds (>= 1)
	 */
	take(keyId) {
		const rate = this.getRate();
		if (!(rate > 0)) return 0;
		const capacity = Math.max(1, rate);
		const now = monotonicMs();
		let bucket = this.buckets.get(keyId);
		if (!bucket) {
			bucket = { tokens: capacity, at: now };
			this.buckets.set(keyId, bucket);
		}
		bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * rate);
		bucket.at = now;
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return 0;
		}
		return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
	}

	/** Full buckets for everyone (after the rate setting changes). */
	reset() {
		this.buckets.clear();
	}
}

module.exports = { RateLimiter };
