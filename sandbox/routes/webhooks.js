'use strict';
// Webhook endpoints management.

const { parsePaging, envelope, listView } = require('../pagination');
const { requireObject, requiredString, optionalString } = require('../validate');
const { badRequest, orNotFound } = require('../errors');
const { newWebhookSecret } = require('../ids');
const serialize = require('../serialize');

const EVENT_KINDS = ['message.created', 'contact.created', 'contact.updated'];
const URL_MAX = 2048;
const DESCRIPTION_MAX = 500;

function parseUrl(body) {
	const text = requiredString(body, 'url', { max: URL_MAX });
	let url;
	try {
		url = new URL(text);
	} catch {
		throw badRequest('url must be an absolute http or https url');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest('url must be an absolute http or https url');
	return text;
}

/** Non-empty list of known kinds or "*" (decision: unknown kinds are refused so typos surface). */
function parseEvents(body) {
	const events = body.events;
	if (events === undefined || events === null) throw badRequest('events is required');
	if (!Array.isArray(events) || events.length === 0) throw badRequest('events must be a non-empty array of strings');
	for (const kind of events) {
		if (typeof kind !== 'string') throw badRequest('events must be a non-empty array of strings');
		if (kind !== '*' && !EVENT_KINDS.includes(kind)) throw badRequest(`unknown event kind: ${kind}`);
	}
	return [...new Set(events)];
}

/** @returns {import('../server').RouteDefinition[]} */
module.exports = (ctx) => {
	const findWebhook = (ws, id) => orNotFound(ws.webhooks.get(id), 'webhook not found');

	return [
		{
			method: 'POST',
			url: '/webhooks',
			scope: 'webhooks:write',
			handler: (req, reply, { ws }) => {
				const body = requireObject(req.body);
				const url = parseUrl(body);
				const events = parseEvents(body);
				const description = optionalString(body, 'description', { max: DESCRIPTION_MAX }) ?? '';
				const at = ctx.clock.now();
				const webhook = {
					id: ctx.ids.next('wh_'),
					app_id: ws.app_id,
					url,
					events,
					description,
					is_active: true,
					secret: newWebhookSecret(),
					_c: at,
				};
				ws.webhooks.add(webhook);
				reply.code(201);
				return { ...serialize.webhook(webhook), secret: webhook.secret };
			},
		},
		{
			method: 'GET',
			url: '/webhooks',
			scope: 'webhooks:read',
			handler: (req, reply, { ws }) => envelope(listView(ws.webhooks), parsePaging(req.query), serialize.webhook),
		},
		{
			method: 'GET',
			url: '/webhooks/:id',
			scope: 'webhooks:read',
			handler: (req, reply, { ws }) => serialize.webhook(findWebhook(ws, req.params.id)),
		},
		{
			method: 'DELETE',
			url: '/webhooks/:id',
			scope: 'webhooks:write',
			handler: (req, reply, { ws }) => {
				ws.webhooks.delete(findWebhook(ws, req.params.id));
				reply.code(204);
				return undefined;
			},
		},
	];
};

module.exports.EVENT_KINDS = EVENT_KINDS;
