'use strict';
// Delivery signatures: HMAC-SHA256 keyed with the base64-decoded
// part of the secret after "whsec_", over "<id>.<timestamp>.<raw body>".

const crypto = require('node:crypto');

const SECRET_PREFIX = 'whsec_';

/**
 * @param {string} secret "whsec_<base64>"
 * @param {string} eventId @param {number} timestamp UNIX seconds @param {string} body
 * @returns {string} the header value "v1,<base64 signature>"
 */
function signatureHeader(secret, eventId, timestamp, body) {
	const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
	const signature = crypto.createHmac('sha256', key).update(`${eventId}.${timestamp}.${body}`).digest('base64');
	return `v1,${signature}`;
}

/**
 * Whether a received delivery carries the signature `secret` gives its id,
 * timestamp and raw body: the receiving side of signatureHeader, for the
 * bench's own receivers. `headers` as Node's http module gives them (lower case).
 * @param {string | undefined} secret @param {Record<string, unknown>} headers @param {Buffer | string} body
 */
function hasValidSignature(secret, headers, body) {
	if (!secret) return false;
	const expected = signatureHeader(secret, String(headers['x-service-webhook-id']), String(headers['x-service-webhook-timestamp']), String(body));
	const given = String(headers['x-service-webhook-signature'] ?? '');
	return given.length === expected.length && crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

module.exports = { signatureHeader, hasValidSignature };
