'use strict';
// Seeded pseudo-random numbers (mulberry32) so demo and bulk data are the same
// on every run: tests can rely on counts and on which record is where.

/** @param {number} seed */
function createPrng(seed) {
	let state = seed >>> 0;
	function next() {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}
	return {
		next,
		/** integer in [min, max] */
		int(min, max) {
			return min + Math.floor(next() * (max - min + 1));
		},
		/** @template T @param {readonly T[]} list @returns {T} */
		pick(list) {
			return list[Math.floor(next() * list.length)];
		},
		chance(probability) {
			return next() < probability;
		},
	};
}

module.exports = { createPrng };
