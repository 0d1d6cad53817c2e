'use strict';
// Event deliveries: signed POSTs to every active webhook of the
// workspace subscribed to the event kind (or "*"), retried with the same
// event id on the retry schedule, at least once (with injected duplicates and
// failures from the fault settings). Every attempt is recorded for the
// control surface's GET /deliveries.

const http = require('node:http');
const https = require('node:https');
const { iso } = require('../clock');
const { signatureHeader } = require('./signing');

const ACK_TIMEOUT_MS = 10_000;
/** The delivery log keeps the newest attempts only (bounded memory). */
const MAX_RECORDED_ATTEMPTS = 100_000;
/** "After" duplicates follow the acknowledged original within this span. */
const LATE_DUPLICATE_MAX_DELAY_MS = 200;

/**
 * @typedef {object} Delivery
 * @property {{ id: string, type: string }} event
 * @property {string} body the exact bytes sent (and signed) on every attempt
 * @property {any} webhook
 * @property {any} ws
 * @property {number} attempt 1-based
 */

class WebhookDeliverer {
	/**
	 * @param {{ ids: any, clock: { now(): number }, timers: ReturnType<import('../clock').createTimers>,
	 *           faults: import('../faults').Faults }} deps
	 */
	constructor({ ids, clock, timers, faults }) {
		this.ids = ids;
		this.clock = clock;
		this.timers = timers;
		this.faults = faults;
		this.agents = {
			'http:': new http.Agent({ keepAlive: true }),
			'https:': new https.Agent({ keepAlive: true }),
		};
		/** @type {Set<import('http').ClientRequest>} */
		this.inFlight = new Set();
		/** @type {object[]} attempts, oldest first */
		this.log = [];
		this.closed = false;
	}

	/**
	 * Announces an event of workspace `ws` to its subscribed webhooks.
	 * @param {any} ws @param {string} type @param {object} data public resource snapshot
	 */
	emit(ws, type, data) {
		if (this.closed) return;
		const targets = ws.webhooks.items.filter((w) => w.is_active && (w.events.includes('*') || w.events.includes(type)));
		if (targets.length === 0) return;
		const event = { id: this.ids.next('evt_'), type, created_at: iso(this.clock.now()), app_id: ws.app_id, data };
		const body = JSON.stringify(event);
		for (const webhook of targets) {
			// Next tick: the API response that caused the event goes out first.
			this.timers.after(0, () => this.attempt({ event, body, webhook, ws, attempt: 1 }));
		}
	}

	/** @param {Delivery} delivery */
	async attempt(delivery) {
		const { webhook, ws } = delivery;
		// A deleted webhook gets no more attempts.
		if (this.closed || ws.webhooks.get(webhook.id) !== webhook || !webhook.is_active) return;
		const settings = this.faults.settings;
		const injectFailure = Math.random() < settings.webhook_fail_rate;
		const duplicate = Math.random() < settings.webhook_duplicate_rate ? (Math.random() < 0.5 ? 'concurrent' : 'late') : null;

		if (duplicate === 'concurrent') this.sendAndRecord(delivery, 'concurrent');
		const status = await this.sendAndRecord(delivery, null, injectFailure);
		if (this.closed) return;
		const acknowledged = isSuccess(status) && !injectFailure;
		if (acknowledged) {
			if (duplicate === 'late') {
				this.timers.after(Math.floor(Math.random() * LATE_DUPLICATE_MAX_DELAY_MS), () => this.sendAndRecord(delivery, 'late'));
			}
			return;
		}
		const delay = this.faults.settings.retry_schedule_ms[delivery.attempt - 1];
		if (delay === undefined) return; // schedule exhausted: dropped
		this.timers.after(delay, () => this.attempt({ ...delivery, attempt: delivery.attempt + 1 }));
	}

	/**
	 * One POST, recorded in the log.
	 * @param {Delivery} delivery
	 * @param {null | 'concurrent' | 'late'} copy an injected duplicate: sent alongside or after the original
	 * @param {boolean} [injectedFailure]
	 * @returns {Promise<number | null>} HTTP status, or null when no answer came
	 */
	async sendAndRecord(delivery, copy, injectedFailure = false) {
		const sentAt = Date.now();
		const status = await this.post(delivery, Math.floor(sentAt / 1000));
		// Recorded once the attempt has its outcome, stamped with when it was sent.
		this.record({
			event_id: delivery.event.id,
			type: delivery.event.type,
			data_id: delivery.event.data?.id,
			webhook_id: delivery.webhook.id,
			url: delivery.webhook.url,
			attempt: delivery.attempt,
			status,
			at: iso(sentAt),
			ok: isSuccess(status) && !injectedFailure,
			duplicate: copy !== null,
			copy,
			injected_failure: injectedFailure,
		});
		return status;
	}

	record(entry) {
		this.log.push(entry);
		if (this.log.length > MAX_RECORDED_ATTEMPTS * 1.1) this.log.splice(0, this.log.length - MAX_RECORDED_ATTEMPTS);
	}

	/**
	 * One HTTP POST. A keep-alive socket that the receiver closed while idle
	 * fails at once with a reset; that is not the receiver's answer, so the
	 * request is repeated once on a fresh connection (as HTTP clients do).
	 * @param {Delivery} delivery @param {number} timestamp @param {boolean} [freshOnly]
	 * @returns {Promise<number | null>} HTTP status, or null when no answer came
	 */
	post(delivery, timestamp, freshOnly = false) {
		return new Promise((resolve) => {
			let url;
			try {
				url = new URL(delivery.webhook.url);
			} catch {
				resolve(null);
				return;
			}
			const headers = {
				'Content-Type': 'application/json',
				'Content-Length': Buffer.byteLength(delivery.body),
				'User-Agent': 'omnichannel-sandbox-webhooks/1',
				'X-Service-Webhook-Id': delivery.event.id,
				'X-Service-Webhook-Timestamp': String(timestamp),
				'X-Service-Webhook-Signature': signatureHeader(delivery.webhook.secret, delivery.event.id, timestamp, delivery.body),
			};
			const client = url.protocol === 'https:' ? https : http;
			let settled = false;
			/** @type {NodeJS.Timeout | null} */
			let timer = null;
			const finish = (status) => {
				if (settled) return;
				settled = true;
				this.timers.cancel(timer);
				this.inFlight.delete(request);
				resolve(status);
			};
			const agent = freshOnly ? false : this.agents[url.protocol];
			const request = client.request(url, { method: 'POST', headers, agent }, (response) => {
				response.resume(); // the answer's body is not used
				finish(response.statusCode ?? null);
			});
			this.inFlight.add(request);
			request.on('error', () => {
				if (!settled && !freshOnly && request.reusedSocket && !this.closed) {
					settled = true;
					this.timers.cancel(timer);
					this.inFlight.delete(request);
					resolve(this.post(delivery, timestamp, true));
					return;
				}
				finish(null);
			});
			// No answer within 10 s is a failure.
			timer = this.timers.after(ACK_TIMEOUT_MS, () => {
				request.destroy();
				finish(null);
			});
			request.end(delivery.body);
		});
	}

	/** Attempts, optionally filtered (control GET /deliveries). */
	attempts(filter = {}) {
		return this.log
			.filter((e) => (!filter.event_id || e.event_id === filter.event_id) && (!filter.webhook_id || e.webhook_id === filter.webhook_id))
			.map((e) => ({ ...e }));
	}

	clearLog() {
		this.log = [];
	}

	close() {
		this.closed = true;
		for (const request of this.inFlight) request.destroy();
		this.inFlight.clear();
		for (const agent of Object.values(this.agents)) agent.destroy();
	}
}

const isSuccess = (status) => typeof status === 'number' && status >= 200 && status < 300;

module.exports = { WebhookDeliverer };
