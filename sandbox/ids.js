'use strict';
// Identifier and secret generation. Each sandbox owns its own generator (and
// random pool) so several sandboxes in one process never share mutable state.

const crypto = require('node:crypto');

// ASCII order ('0' < 'A' < 'a'), so comparing ids as strings is the same as
// comparing them character by character in base62: the "then id desc" tiebreak
// of list orders is plain string comparison.
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE62_CODES = Buffer.from(BASE62, 'latin1');
const ID_LENGTH = 20;
const POOL_BYTES = 64 * 1024;
// 248 = 4 * 62: bytes at or above it are skipped so every character is uniform.
const UNBIASED_LIMIT = 248;

/**
 * @typedef {object} IdFactory
 * @property {(prefix: string) => string} next  prefix + 20 base62 characters
 * @property {(length: number) => string} base62 random base62 string
 */

/** @returns {IdFactory} */
function createIdFactory() {
	let pool = Buffer.alloc(0);
	let position = 0;

	/** @param {number} length */
	function base62(length) {
		// Filled byte by byte and decoded once: bulk seeding makes 100k+ ids,
		// and one small buffer per id is far cheaper than string appends.
		const out = Buffer.allocUnsafe(length);
		let filled = 0;
		while (filled < length) {
			if (position >= pool.length) {
				// One large read instead of one per id.
				pool = crypto.randomBytes(POOL_BYTES);
				position = 0;
			}
			const byte = pool[position++];
			if (byte < UNBIASED_LIMIT) out[filled++] = BASE62_CODES[byte % 62];
		}
		return out.toString('latin1');
	}

	return { next: (prefix) => prefix + base62(ID_LENGTH), base62 };
}

/** Webhook signing secret: `whsec_` + base64 of 32 random bytes. */
function newWebhookSecret() {
	return 'whsec_' + crypto.randomBytes(32).toString('base64');
}

/** API key secret part: 32 characters of [A-Za-z0-9_-] (the key format allows 16..128). */
function newKeySecret() {
	return crypto.randomBytes(24).toString('base64url');
}

module.exports = { createIdFactory, newWebhookSecret, newKeySecret, BASE62 };
