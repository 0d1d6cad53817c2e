'use strict';
// Request statistics of the public API (control GET /stats).

const { monotonicMs } = require('./clock');

class Stats {
	constructor() {
		this.reset();
	}

	reset() {
		this.requests = 0;
		/** @type {Record<string, number>} */
		this.byStatus = Object.create(null);
		/** @type {Record<string, number>} */
		this.byRoute = Object.create(null);
		this.maxPerSecond = 0;
		// Arrival times (monotonic ms) within the last second: a sliding window,
		// so max_per_second is the busiest one-second span, not calendar second.
		/** @type {number[]} */
		this.window = [];
		this.windowStart = 0;
	}

	/** Called once per public request when it arrives. */
	arrival() {
		this.requests++;
		const now = monotonicMs();
		const window = this.window;
		window.push(now);
		while (window[this.windowStart] <= now - 1000) this.windowStart++;
		// Compact now and then so the array does not grow without bound.
		if (this.windowStart > 1024) {
			window.splice(0, this.windowStart);
			this.windowStart = 0;
		}
		this.maxPerSecond = Math.max(this.maxPerSecond, window.length - this.windowStart);
	}

	/**
	 * Called once per public request when it ends.
	 * @param {string} route e.g. "GET /contacts/{id}"
	 * @param {string | number} status HTTP status, or "reset" for an injected dropped connection
	 */
	record(route, status) {
		const statusKey = String(status);
		this.byStatus[statusKey] = (this.byStatus[statusKey] || 0) + 1;
		this.byRoute[route] = (this.byRoute[route] || 0) + 1;
	}

	view() {
		return {
			requests: this.requests,
			by_status: { ...this.byStatus },
			by_route: { ...this.byRoute },
			max_per_second: this.maxPerSecond,
		};
	}
}

module.exports = { Stats };
