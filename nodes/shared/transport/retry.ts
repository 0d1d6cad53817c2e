/** Attempts per request, the first included. */
export const MAX_ATTEMPTS = 7;
const BASE_DELAY_MS = 100;
const MAX_DELAY_MS = 8_000;
/** A Retry-After longer than this is not waited for: the request fails instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

/** Transport failures where no HTTP answer arrived. */
const DROPPED_CONNECTION_CODES = new Set([
	'ECONNRESET',
	'ECONNABORTED',
	'EPIPE',
	'ETIMEDOUT',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	'UND_ERR_SOCKET',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
]);
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

export type TransportFailure = 'dropped' | 'notSent';

/** Looks through an error and its causes for a connection-level failure code. */
export function classifyTransportFailure(error: unknown): TransportFailure | undefined {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const { code, message } = current as { code?: unknown; message?: unknown };
		if (typeof code === 'string' && DROPPED_CONNECTION_CODES.has(code)) return 'dropped';
		if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return 'notSent';
		if (message === 'socket hang up') return 'dropped';
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

export function isRetryableStatus(status: number): boolean {
	return RETRYABLE_STATUSES.has(status);
}

/** Retry-After in milliseconds from now: whole seconds, or an HTTP-date, which clients must accept too (docs/api-assumptions.md, "Authentication, scopes and rate limits"). */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text === 'number' && Number.isFinite(text)) return Math.max(0, text * 1000);
	if (typeof text !== 'string' || text.trim() === '') return undefined;
	const trimmed = text.trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
	const date = Date.parse(trimmed);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter, so parallel retries do not arrive together. */
export function backoffDelay(attempt: number): number {
	const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
	return ceiling / 2 + Math.random() * (ceiling / 2);
}
