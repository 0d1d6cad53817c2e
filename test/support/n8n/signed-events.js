'use strict';
// A customer's message.created event, signed as the service signs its
// deliveries (docs/api-assumptions.md, "Webhook deliveries"), for tests that
// deliver to a manual-registration trigger themselves.
const crypto = require('crypto');

const { signatureHeader } = require('../../../sandbox/webhooks/signing');

/**
 * The event's body, fixed, and a function that signs it at a timestamp (now by
 * default): copies of one event share the body and id, each signed when sent.
 */
function customerMessageEvent({ secret, eventId, appId, conversationId, content, message }) {
	const body = JSON.stringify({
		id: eventId,
		type: 'message.created',
		created_at: new Date().toISOString(),
		app_id: appId,
		// A message the sandbox stored, or one made up for the event.
		data: message ?? { id: `msg_${crypto.randomBytes(10).toString('hex')}`, conversation_id: conversationId, content, from_customer: true },
	});
	return (timestamp = Math.floor(Date.now() / 1000)) => ({
		body,
		headers: {
			'content-type': 'application/json',
			'x-service-webhook-id': eventId,
			'x-service-webhook-timestamp': String(timestamp),
			'x-service-webhook-signature': signatureHeader(secret, eventId, timestamp, body),
		},
	});
}

module.exports = { customerMessageEvent };
