'use strict';
// Feeding webhook traffic through the sandbox's real signed sender, and
// watching its delivery log until every event has been acknowledged.
const { sleep } = require('../../test/e2e/harness');

const POLL_INTERVAL_MS = 100;
/** "Late" duplicates follow their acknowledged original within 200 ms (sandbox deliverer). */
const SETTLE_MS = 500;

/**
 * Creates `count` inbound customer messages, `concurrency` calls at a time.
 * The sandbox sends one signed delivery per event to every subscribed webhook
 * as soon as the event exists, so this is as fast as the sandbox can emit.
 */
async function feedInbound(client, conversationId, count, concurrency) {
	let next = 0;
	const worker = async () => {
		while (next < count) {
			const index = next++;
			await client.control('POST', '/inbound', { conversation_id: conversationId, text: `bench inbound ${index + 1} of ${count}` });
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/**
 * Polls the delivery log of one webhook until `events` distinct events have
 * an acknowledged (2xx) attempt and nothing has changed for SETTLE_MS.
 * Resolves to the attempts and the time (ms since epoch) of the poll that saw
 * the last change: the end of intake, within one poll interval.
 */
async function waitForAcknowledged(client, webhookId, events, { timeoutMs }) {
	const deadline = Date.now() + timeoutMs;
	let attempts = [];
	let lastChangeAt = Date.now();
	while (Date.now() < deadline) {
		const now = Date.now();
		const current = await client.control('GET', `/deliveries?webhook_id=${encodeURIComponent(webhookId)}`);
		if (current.length !== attempts.length) lastChangeAt = now;
		attempts = current;
		const acknowledged = new Set(attempts.filter((attempt) => attempt.ok).map((attempt) => attempt.event_id)).size;
		if (acknowledged >= events && now - lastChangeAt >= SETTLE_MS) return { attempts, endAt: lastChangeAt };
		await sleep(POLL_INTERVAL_MS);
	}
	const acknowledged = new Set(attempts.filter((attempt) => attempt.ok).map((attempt) => attempt.event_id)).size;
	throw new Error(`webhook ${webhookId}: ${acknowledged} of ${events} events acknowledged after ${timeoutMs} ms`);
}

module.exports = { feedInbound, waitForAcknowledged };
