'use strict';
// A seeded random source (mulberry32) for tests that draw random cases: the
// same seed gives the same draws, so a failing case replays from its seed.

/** The random source of `seed`: `next()` in [0, 1), and helpers on top. */
function prng(seed) {
	let state = seed >>> 0;
	const next = () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	return { next, int: (min, max) => min + Math.floor(next() * (max - min + 1)), pick: (list) => list[Math.floor(next() * list.length)], chance: (p) => next() < p };
}

module.exports = { prng };
