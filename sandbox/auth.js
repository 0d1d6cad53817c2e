'use strict';
// API key authentication: bearer key format,
// lookup, revocation, expiry, IP allowlist and scopes.

const crypto = require('node:crypto');
const net = require('node:net');
const { HttpError } = require('./errors');

const KEY_PATTERN = /^svc_(live|test)_([A-Za-z0-9]{8,64})\.([A-Za-z0-9_-]{16,128})$/;
const UNAUTHORIZED_HEADERS = { 'WWW-Authenticate': 'Bearer' };

const unauthorized = (message) => new HttpError(401, message, undefined, UNAUTHORIZED_HEADERS);

/**
 * @param {import('./store').Store} store
 * @param {string | undefined} header the Authorization header
 * @returns {any} the key record
 */
function authenticate(store, header) {
	if (typeof header !== 'string' || header.trim() === '') throw unauthorized('missing api key');
	const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
	if (!match) throw unauthorized('malformed api key');
	const parts = KEY_PATTERN.exec(match[1]);
	if (!parts) throw unauthorized('malformed api key');
	const [, mode, publicId, secret] = parts;
	const record = store.keysByPublicId.get(publicId);
	const digest = crypto.createHash('sha256').update(secret).digest();
	if (!record || record.mode !== mode || !crypto.timingSafeEqual(digest, record.secretDigest)) {
		throw unauthorized('invalid api key');
	}
	if (record.revoked) throw unauthorized('api key revoked');
	if (record.expires_at !== null && Date.now() >= record.expires_at) throw unauthorized('api key expired');
	return record;
}

/** "::ffff:127.0.0.1" and "127.0.0.1" are the same client. */
function normalizeIp(address) {
	const text = String(address || '').trim().toLowerCase();
	return text.startsWith('::ffff:') && net.isIPv4(text.slice(7)) ? text.slice(7) : text;
}

function ipv4ToNumber(address) {
	return address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

/**
 * One allowlist entry: an exact address, or an IPv4 CIDR block like 10.0.0.0/8.
 * @param {string} entry @param {string} ip normalised client address
 */
function entryMatches(entry, ip) {
	const [base, bits] = normalizeIp(entry).split('/');
	if (bits === undefined) return base === ip;
	const prefix = Number(bits);
	if (!net.isIPv4(base) || !net.isIPv4(ip) || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) return false;
	const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
	return ((ipv4ToNumber(base) & mask) >>> 0) === ((ipv4ToNumber(ip) & mask) >>> 0);
}

/** Throws the allowlist 403 when the key's allowlist excludes `remoteAddress`. */
function checkAllowlist(record, remoteAddress) {
	if (!record.ip_allowlist) return;
	const ip = normalizeIp(remoteAddress);
	if (!record.ip_allowlist.some((entry) => entryMatches(entry, ip))) {
		throw new HttpError(403, 'ip address not allowed');
	}
}

/** Throws the scope 403 (with required_scope). @param {string | undefined} scope */
function checkScope(record, scope) {
	if (scope && !record.scopeSet.has(scope)) {
		throw new HttpError(403, 'insufficient scope', { required_scope: scope });
	}
}

module.exports = { KEY_PATTERN, authenticate, checkAllowlist, checkScope, normalizeIp };
