import { createHmac, createSecretKey, timingSafeEqual } from 'crypto';
import type { KeyObject } from 'crypto';

/**
 * Deliveries more than 300 s from our clock are refused
 * (docs/api-assumptions.md, "Webhook deliveries").
 */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const SIGNATURE_VERSION = 'v1';

export type SignatureFailure = 'missing headers' | 'stale timestamp' | 'no matching signature';

export interface SignedDelivery {
	/** X-Service-Webhook-Id */
	id: string | undefined;
	/** X-Service-Webhook-Timestamp, UNIX seconds */
	timestamp: string | undefined;
	/** X-Service-Webhook-Signature: space-separated "v1,<base64>" entries */
	signature: string | undefined;
	rawBody: Buffer;
}

/**
 * The HMAC key of a signing secret (`whsec_` + base64), or undefined when the
 * text is not shaped like one. Never echo the secret in messages.
 */
export function signingKey(secret: string): Buffer | undefined {
	if (!secret.startsWith(SECRET_PREFIX)) return undefined;
	const encoded = secret.slice(SECRET_PREFIX.length);
	if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined;
	const key = Buffer.from(encoded, 'base64');
	return key.length > 0 ? key : undefined;
}

/** Key objects of the secrets this process verifies with, newest last. */
const verificationKeys = new Map<string, KeyObject>();
const MAX_VERIFICATION_KEYS = 64;

/**
 * The signing key as a key object, made once per secret. Given a raw key,
 * Node 24 prepares it on every createHmac call; in the intake bench's CPU
 * profile that was most of our webhook code's time per delivery.
 */
export function verificationKey(secret: string): KeyObject | undefined {
	const cached = verificationKeys.get(secret);
	if (cached) return cached;
	const raw = signingKey(secret);
	if (!raw) return undefined;
	const key = createSecretKey(raw);
	verificationKeys.set(secret, key);
	if (verificationKeys.size > MAX_VERIFICATION_KEYS) verificationKeys.delete(verificationKeys.keys().next().value as string);
	return key;
}

/**
 * HMAC-SHA256 over `<id>.<timestamp>.<raw body>`
 * (docs/api-assumptions.md, "Webhook deliveries"); valid when any v1 entry
 * matches. Every candidate is compared in constant time, so the answer time
 * tells an attacker nothing about how close a guess was.
 */
export function checkSignature(
	delivery: SignedDelivery,
	key: KeyObject,
	nowSeconds: number,
): SignatureFailure | undefined {
	const { id, timestamp, signature, rawBody } = delivery;
	if (!id || !timestamp || !signature) return 'missing headers';
	if (!/^\d{1,12}$/.test(timestamp)) return 'stale timestamp';
	if (Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return 'stale timestamp';

	const expected = createHmac('sha256', key)
		.update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), rawBody]))
		.digest();
	let matched = false;
	for (const entry of signature.split(' ')) {
		const separator = entry.indexOf(',');
		if (separator < 0 || entry.slice(0, separator) !== SIGNATURE_VERSION) continue;
		const candidate = Buffer.from(entry.slice(separator + 1), 'base64');
		// Lengths are public (every HMAC-SHA256 is 32 bytes); timingSafeEqual needs equal ones.
		if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
	}
	return matched ? undefined : 'no matching signature';
}
