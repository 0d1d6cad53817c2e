import { createHmac, createSecretKey, timingSafeEqual } from 'crypto';
import type { KeyObject } from 'crypto';

import { BoundedMap } from '../../shared/processMemory/boundedMap';

/** Deliveries more than 300 s from our clock are refused (docs/api-assumptions.md, "Webhook deliveries"). */
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

/** The HMAC key of a signing secret (`whsec_` + base64), or undefined; never echo the secret. */
export function keyBytesOfSecret(secret: string): Buffer | undefined {
	if (!secret.startsWith(SECRET_PREFIX)) return undefined;
	const encoded = secret.slice(SECRET_PREFIX.length);
	if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined;
	const key = Buffer.from(encoded, 'base64');
	return key.length > 0 ? key : undefined;
}

/** Process memory: key objects of the secrets this process verifies with. */
const hmacKeys = new BoundedMap<string, KeyObject>(64);

/** The signing key as a key object, made once per secret: given a raw key, Node prepares it on every createHmac call. */
export function hmacKeyOfSecret(secret: string): KeyObject | undefined {
	const cached = hmacKeys.get(secret);
	if (cached) return cached;
	const raw = keyBytesOfSecret(secret);
	if (!raw) return undefined;
	const key = createSecretKey(raw);
	hmacKeys.set(secret, key);
	return key;
}

/** HMAC-SHA256 over `<id>.<timestamp>.<raw body>`, valid when any v1 entry matches, each compared in constant time (docs/api-assumptions.md, "Webhook deliveries"). */
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

/** Process memory: when each trigger last logged a clock-skew refusal. */
const skewWarnedAt = new BoundedMap<string, number>(256);
const SKEW_WARNING_INTERVAL_MS = 60_000;

/** The log line for a delivery refused for its timestamp, at most once a minute per trigger: the log is the only place that says why. */
export function clockSkewWarning(trigger: string, timestamp: string | undefined, nowSeconds: number, nowMs = Date.now()): string | undefined {
	if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return undefined;
	const last = skewWarnedAt.get(trigger);
	if (last !== undefined && nowMs - last < SKEW_WARNING_INTERVAL_MS) return undefined;
	skewWarnedAt.set(trigger, nowMs);
	const skew = nowSeconds - Number(timestamp);
	const direction = skew > 0 ? 'behind' : 'ahead of';
	return `refused a delivery signed ${Math.abs(skew)} s ${direction} this server's clock (at most ${TIMESTAMP_TOLERANCE_SECONDS} s are accepted). Every retry is refused the same way until the clocks agree: synchronise the n8n host's clock (NTP).`;
}
