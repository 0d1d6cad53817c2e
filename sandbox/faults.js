'use strict';
// Fault injection settings (control PUT /faults) and the per-request
// decision. Faults touch only the public API, never /__sandbox.

const { badRequest } = require('./errors');

const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];
const ERROR_STATUSES = [500, 502, 503, 504];

function defaultFaults() {
	return {
		latency_ms: 0,
		jitter_ms: 0,
		error_rate: 0,
		error_status: 503,
		reset_rate: 0,
		rate_limit_per_second: 60,
		webhook_fail_rate: 0,
		webhook_duplicate_rate: 0,
		retry_schedule_ms: DEFAULT_RETRY_SCHEDULE_MS.slice(),
	};
}

const isNumber = (value) => typeof value === 'number' && Number.isFinite(value);
const MAX_DELAY_MS = 60_000;
/** Largest retry delay accepted: a bit over the default schedule's longest. */
const MAX_RETRY_DELAY_MS = 24 * 60 * 60 * 1000;

/** Checks for each setting; each returns an error message or null. */
const CHECKS = {
	latency_ms: (v) => (isNumber(v) && v >= 0 && v <= MAX_DELAY_MS ? null : `latency_ms must be a number 0..${MAX_DELAY_MS}`),
	jitter_ms: (v) => (isNumber(v) && v >= 0 && v <= MAX_DELAY_MS ? null : `jitter_ms must be a number 0..${MAX_DELAY_MS}`),
	error_rate: rateCheck('error_rate'),
	error_status: (v) => (ERROR_STATUSES.includes(v) ? null : 'error_status must be one of 500, 502, 503, 504'),
	reset_rate: rateCheck('reset_rate'),
	rate_limit_per_second: (v) => (isNumber(v) && v >= 0 ? null : 'rate_limit_per_second must be a number >= 0'),
	webhook_fail_rate: rateCheck('webhook_fail_rate'),
	webhook_duplicate_rate: rateCheck('webhook_duplicate_rate'),
	retry_schedule_ms: (v) =>
		Array.isArray(v) && v.length <= 100 && v.every((d) => isNumber(d) && d >= 0 && d <= MAX_RETRY_DELAY_MS)
			? null
			: 'retry_schedule_ms must be an array of delays in milliseconds',
};

function rateCheck(name) {
	return (v) => (isNumber(v) && v >= 0 && v <= 1 ? null : `${name} must be a number 0..1`);
}

class Faults {
	constructor() {
		this.settings = defaultFaults();
	}

	/**
	 * PUT /faults: merges the given settings into the active ones (decision:
	 * omitted settings keep their value; DELETE /faults restores defaults).
	 * All-or-nothing: one bad value changes nothing.
	 */
	update(body) {
		if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('request body must be a json object');
		for (const [name, value] of Object.entries(body)) {
			const check = CHECKS[name];
			if (!check) throw badRequest(`unknown fault setting: ${name}`);
			const problem = check(value);
			if (problem) throw badRequest(problem);
		}
		for (const [name, value] of Object.entries(body)) {
			this.settings[name] = Array.isArray(value) ? value.slice() : value;
		}
		return this.view();
	}

	reset() {
		this.settings = defaultFaults();
		return this.view();
	}

	view() {
		return { ...this.settings, retry_schedule_ms: this.settings.retry_schedule_ms.slice() };
	}

	/** Delay before handling a public request: latency_ms + up to jitter_ms. */
	latencyMs() {
		const { latency_ms: latency, jitter_ms: jitter } = this.settings;
		return latency + (jitter > 0 ? Math.random() * jitter : 0);
	}

	/**
	 * Whether this request gets an injected fault, and when. Reads are failed
	 * before anything happens; writes on a coin flip before or AFTER the
	 * handler ran (the change happened but the client sees an error), which is
	 * what forces clients to rely on idempotency.
	 * @param {string} method
	 * @returns {null | { kind: 'reset' | 'error', status: number, afterHandler: boolean }}
	 */
	decide(method) {
		const { reset_rate: resetRate, error_rate: errorRate, error_status: status } = this.settings;
		if (resetRate <= 0 && errorRate <= 0) return null;
		const roll = Math.random();
		/** @type {'reset' | 'error' | null} */
		let kind = null;
		if (roll < resetRate) kind = 'reset';
		else if (roll < resetRate + errorRate) kind = 'error';
		if (!kind) return null;
		const isWrite = method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
		return { kind, status, afterHandler: isWrite && Math.random() < 0.5 };
	}
}

module.exports = { Faults, DEFAULT_RETRY_SCHEDULE_MS };
