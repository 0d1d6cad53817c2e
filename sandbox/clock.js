'use strict';
// Wall-clock timestamps for records, plus tracked timers.

const { performance } = require('node:perf_hooks');

/**
 * A per-sandbox clock whose readings strictly increase. Records created one
 * after another therefore never share a created_at, so "newest first" always
 * matches creation order even within one millisecond.
 */
function createClock() {
	let last = 0;
	return {
		/** @returns {number} epoch milliseconds, strictly greater than the previous reading */
		now() {
			const wall = Date.now();
			last = wall > last ? wall : last + 1;
			return last;
		},
	};
}

/** @param {number} ms */
function iso(ms) {
	return new Date(ms).toISOString();
}

/** Monotonic milliseconds for rate limiting and stats (immune to wall-clock jumps). */
function monotonicMs() {
	return performance.now();
}

/**
 * Timers owned by one sandbox: all unref'd (a sandbox never keeps the process
 * alive by itself) and all cleared by close().
 */
function createTimers() {
	/** @type {Set<NodeJS.Timeout>} */
	const pending = new Set();
	let closed = false;
	return {
		/** @param {number} ms @param {() => void} fn */
		after(ms, fn) {
			if (closed) return null;
			const handle = setTimeout(() => {
				pending.delete(handle);
				fn();
			}, ms);
			handle.unref();
			pending.add(handle);
			return handle;
		},
		/** @param {NodeJS.Timeout | null} handle */
		cancel(handle) {
			if (!handle) return;
			clearTimeout(handle);
			pending.delete(handle);
		},
		/** Resolves after ms; never resolves once the sandbox is closed. */
		sleep(ms) {
			return new Promise((resolve) => this.after(ms, () => resolve(undefined)));
		},
		clearAll() {
			closed = true;
			for (const handle of pending) clearTimeout(handle);
			pending.clear();
		},
		get closed() {
			return closed;
		},
	};
}

module.exports = { createClock, createTimers, iso, monotonicMs };
