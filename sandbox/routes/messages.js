'use strict';
// GET /messages, POST /messages/text and POST /messages/location.

const { parsePaging, envelope, listView, arrayView } = require('../pagination');
const { queryString, requireObject, requiredString, optionalString, optionalId, optionalBoolean, requiredNumberInRange } = require('../validate');
const { checkIdempotency, resolveSendTarget, sendOutbound } = require('../messaging');
const serialize = require('../serialize');

const TEXT_MAX = 4000;
const PLACE_FIELD_MAX = 500;

/** An empty filter parameter means "no filter" (decision). */
const filterParam = (query, name) => queryString(query[name], name) || undefined;

/**
 * Newest-first view of the messages matching the filters.
 * @param {import('../store').Workspace} ws
 */
function messagesView(ws, conversationId, sessionId) {
	if (sessionId !== undefined) {
		const session = ws.messagesBySession.get(sessionId);
		if (!session) return arrayView([]);
		if (conversationId === undefined) return listView(session);
		// A session lies inside one conversation: either all match or none.
		const first = session.items[0];
		return first && first.conversation_id === conversationId ? listView(session) : arrayView([]);
	}
	if (conversationId !== undefined) {
		const list = ws.messagesByConversation.get(conversationId);
		return list ? listView(list) : arrayView([]);
	}
	return listView(ws.messages);
}

/**
 * A JSON send (text, location): idempotency first (a repeat returns the
 * original whatever the rest says), then target and attribution, then the
 * kind's own fields from `payloadOf`.
 * @param {string} kind @param {(body: Record<string, unknown>) => { message_type: string, content: string, location?: object }} payloadOf
 * @returns {import('../server').RouteDefinition}
 */
function jsonSendRoute(ctx, kind, payloadOf) {
	return {
		method: 'POST',
		url: `/messages/${kind}`,
		scope: 'messages:write',
		handler: (req, reply, { ws, key }) => {
			const body = requireObject(req.body);
			const { clientRequestId, existing } = checkIdempotency(ws, body);
			if (existing) return { message: serialize.message(existing) };
			const target = resolveSendTarget(ws, key, {
				conversation_id: body.conversation_id,
				reply_to_message_id: optionalId(body, 'reply_to_message_id'),
				as_system: optionalBoolean(body, 'as_system'),
				from_user_id: body.from_user_id,
			});
			const message = sendOutbound(ctx, ws, target, { clientRequestId, ...payloadOf(body) });
			return { message: serialize.message(message) };
		},
	};
}

/** @returns {import('../server').RouteDefinition[]} */
module.exports = (ctx) => [
	{
		method: 'GET',
		url: '/messages',
		scope: 'messages:read',
		handler: (req, reply, { ws }) => {
			const paging = parsePaging(req.query);
			const view = messagesView(ws, filterParam(req.query, 'conversation_id'), filterParam(req.query, 'message_session_id'));
			return envelope(view, paging, serialize.message);
		},
	},
	jsonSendRoute(ctx, 'text', (body) => ({ message_type: 'text', content: requiredString(body, 'text', { max: TEXT_MAX }) })),
	jsonSendRoute(ctx, 'location', (body) => {
		const latitude = requiredNumberInRange(body, 'latitude', -90, 90);
		const longitude = requiredNumberInRange(body, 'longitude', -180, 180);
		return {
			message_type: 'location',
			content: `${latitude},${longitude}`,
			location: {
				latitude,
				longitude,
				name: optionalString(body, 'name', { max: PLACE_FIELD_MAX }) ?? '',
				address: optionalString(body, 'address', { max: PLACE_FIELD_MAX }) ?? '',
			},
		};
	}),
];
