'use strict';
// Feeding webhook traffic through the sandbox's real signed sender, in a
// closed loop over the intake relay, and reading the sandbox's delivery log.
const { sleep } = require('../../harness');

/** "Late" duplicates follow their acknowledged original within 200 ms (sandbox deliverer). */
const SETTLE_MS = 1_000;
const POLL_INTERVAL_MS = 250;

function beforeDeadline(promise, deadline, what) {
	let timer;
	const timeout = new Promise((_, reject) => {
		timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), Math.max(0, deadline - Date.now()));
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Creates `count` inbound customer messages with `window` events outstanding
 * at any time: each of `window` workers creates one (the sandbox then signs
 * and sends its delivery, plus any injected duplicate) and waits until n8n
 * acknowledged it before creating the next.
 */
async function feedWindowed({ client, relay, conversationId, count, window, timeoutMs }) {
	const deadline = Date.now() + timeoutMs;
	let next = 0;
	const worker = async () => {
		while (next < count) {
			const index = next++;
			const message = await client.control('POST', '/inbound', { conversation_id: conversationId, text: `bench inbound ${index + 1} of ${count}` });
			await beforeDeadline(relay.acknowledged(message.id), deadline, `the acknowledgement of event ${index + 1} of ${count}`);
		}
	};
	await Promise.all(Array.from({ length: Math.min(window, count) }, worker));
}

/** The sandbox's attempts for one webhook, once no new one has appeared for SETTLE_MS. */
async function settledAttempts(client, webhookId, { timeoutMs = 60_000 } = {}) {
	const deadline = Date.now() + timeoutMs;
	let attempts = [];
	let changedAt = Date.now();
	while (Date.now() < deadline) {
		const current = await client.control('GET', `/deliveries?webhook_id=${encodeURIComponent(webhookId)}`);
		if (current.length !== attempts.length) changedAt = Date.now();
		attempts = current;
		if (Date.now() - changedAt >= SETTLE_MS) return attempts;
		await sleep(POLL_INTERVAL_MS);
	}
	throw new Error(`deliveries to webhook ${webhookId} still arriving after ${timeoutMs} ms`);
}

/**
 * What one intake run came to, from the sandbox's attempts (its delivery log)
 * and `executed`, the event ids the run's executions passed on downstream.
 */
function intakeCounts({ attempts, accepted, intakeS, executed }) {
	const fed = new Set(attempts.map((attempt) => attempt.event_id));
	const distinct = new Set(executed.filter((id) => fed.has(id)));
	return {
		events: fed.size,
		deliveries: attempts.length,
		duplicateDeliveries: attempts.filter((attempt) => attempt.duplicate).length,
		failedAttempts: attempts.length - accepted,
		conflicts: attempts.filter((attempt) => attempt.status === 409).length,
		// Kept in the raw runs only: what the deliveries not acknowledged were answered.
		notAcknowledgedStatuses: attempts.filter((attempt) => !attempt.ok).map((attempt) => attempt.status ?? attempt.error ?? null),
		accepted,
		intakeS,
		acceptedPerS: accepted / intakeS,
		distinctEventsExecuted: distinct.size,
		extraExecutions: executed.length - distinct.size,
	};
}

module.exports = { feedWindowed, settledAttempts, intakeCounts };
