'use strict';
// Messages: creation, sessions, attribution, idempotency and send_state.
// Shared by the text, media and location sends, the control /inbound and the
// seeders, so every created message follows the same rules.

const { badRequest } = require('./errors');
const { SortedList } = require('./collection');
const serialize = require('./serialize');

/**
 * A conversation's messages form one session until it falls silent for this
 * long; the next message opens a new session (a choice of the sandbox: the
 * API names message_session_id but not when a session ends).
 */
const SESSION_GAP_MS = 6 * 60 * 60 * 1000;
/** pending -> sent/failed happens this long after the send. */
const DISPATCH_DELAY_MIN_MS = 20;
const DISPATCH_DELAY_SPREAD_MS = 30;
const CLIENT_REQUEST_ID_MAX = 256;

/** Session of a message at `at`; messages of one conversation must come in time order. */
function sessionFor(ctx, conversation, at) {
	if (!conversation._sessionId || at - conversation._lastMessageAt > SESSION_GAP_MS) {
		conversation._sessionId = ctx.ids.next('ses_');
	}
	conversation._lastMessageAt = Math.max(conversation._lastMessageAt, at);
	return conversation._sessionId;
}

/**
 * Builds a stored message record (not yet indexed).
 * @param {any} ctx @param {any} conversation @param {number} at
 * @param {{ from_customer: boolean, from_user_id: string | null, as_system?: boolean, content: string,
 *           message_type: string, send_state: string, client_request_id?: string,
 *           reply_to_message_id?: string | null, requested_from_user_id?: string | null,
 *           media?: object | null, location?: object | null }} fields
 */
function buildMessage(ctx, conversation, at, fields) {
	return {
		id: ctx.ids.next('msg_'),
		app_id: conversation.app_id,
		conversation_id: conversation.id,
		message_session_id: sessionFor(ctx, conversation, at),
		channel_id: conversation.channel_id,
		channel: conversation.channel,
		from_user_id: fields.from_user_id,
		from_customer: fields.from_customer,
		client_request_id: fields.client_request_id || '',
		content: fields.content,
		message_type: fields.message_type,
		send_state: fields.send_state,
		_c: at,
		_u: at,
		as_system: fields.as_system === true,
		reply_to_message_id: fields.reply_to_message_id || null,
		requested_from_user_id: fields.requested_from_user_id || null,
		media: fields.media || null,
		location: fields.location || null,
	};
}

/** @param {Map<string, SortedList<any>>} map @param {string} key */
function listFor(map, key) {
	let list = map.get(key);
	if (!list) {
		list = new SortedList((m) => m._c);
		map.set(key, list);
	}
	return list;
}

/** Adds messages to every index of the workspace (batch-friendly for seeding). */
function indexMessages(ws, messages) {
	ws.messages.addMany(messages);
	/** @type {Map<SortedList<any>, any[]>} */
	const groups = new Map();
	for (const message of messages) {
		for (const list of [listFor(ws.messagesByConversation, message.conversation_id), listFor(ws.messagesBySession, message.message_session_id)]) {
			let group = groups.get(list);
			if (!group) groups.set(list, (group = []));
			group.push(message);
		}
		if (message.client_request_id) ws.messagesByRequestId.set(message.client_request_id, message);
	}
	for (const [list, group] of groups) list.insertMany(group);
}

/** Moves a conversation to the top of "newest activity first". */
function bumpConversation(ws, conversation, at) {
	if (at <= conversation._u) return;
	ws.conversations.reorder(conversation, () => {
		conversation._u = at;
	});
}

/** Creates, indexes and announces one live message. */
function createLiveMessage(ctx, ws, conversation, fields) {
	const at = ctx.clock.now();
	const message = buildMessage(ctx, conversation, at, fields);
	indexMessages(ws, [message]);
	bumpConversation(ws, conversation, at);
	ctx.events.emit(ws, 'message.created', serialize.message(message));
	return message;
}

/** control POST /inbound: a customer writes in. */
function receiveInbound(ctx, ws, conversation, text) {
	return createLiveMessage(ctx, ws, conversation, {
		from_customer: true,
		from_user_id: null,
		content: text,
		message_type: 'text',
		send_state: 'sent',
	});
}

/** control POST /replies-on-send: the next send into the conversation is answered by its customer in the same moment. */
function replyOnNextSend(ws, conversation, text) {
	ws.repliesOnSend ??= new Map();
	const queued = ws.repliesOnSend.get(conversation.id) ?? [];
	queued.push(text);
	ws.repliesOnSend.set(conversation.id, queued);
}

/**
 * First step of every send: the idempotency key. Returns the earlier message
 * for a repeated client_request_id, whatever the rest of the body says.
 * @returns {{ clientRequestId: string, existing: any | null }}
 */
function checkIdempotency(ws, body) {
	const value = body.client_request_id;
	if (value === undefined || value === null) throw badRequest('client_request_id is required');
	if (typeof value !== 'string') throw badRequest('client_request_id must be a string');
	if (value.length === 0) throw badRequest('client_request_id must not be empty');
	if (value.length > CLIENT_REQUEST_ID_MAX) throw badRequest(`client_request_id must be at most ${CLIENT_REQUEST_ID_MAX} characters`);
	return { clientRequestId: value, existing: ws.messagesByRequestId.get(value) || null };
}

/**
 * Conversation, reply target and attribution shared by all send kinds
 * (the attribution rules 1-4 of README.md).
 * @param {any} ws @param {any} key the authenticated key record
 * @param {{ conversation_id: unknown, reply_to_message_id: string | undefined,
 *           as_system: boolean | undefined, from_user_id: unknown }} input
 */
function resolveSendTarget(ws, key, input) {
	if (input.conversation_id === undefined || input.conversation_id === null || input.conversation_id === '') {
		throw badRequest('conversation_id is required');
	}
	if (typeof input.conversation_id !== 'string') throw badRequest('conversation_id must be a string');
	const conversation = ws.conversations.get(input.conversation_id);
	if (!conversation) throw badRequest('conversation not found');

	let replyTo = null;
	if (input.reply_to_message_id !== undefined) {
		const target = ws.messages.get(input.reply_to_message_id);
		if (!target || target.conversation_id !== conversation.id) {
			throw badRequest('reply_to_message_id is not a message of this conversation');
		}
		replyTo = target.id;
	}

	const asSystem = input.as_system === true;
	let requested = null;
	// Rule 2: as_system wins; from_user_id is then ignored, valid or not.
	if (!asSystem && input.from_user_id !== undefined && input.from_user_id !== null && input.from_user_id !== '') {
		if (typeof input.from_user_id !== 'string') throw badRequest('from_user_id must be a string');
		if (!ws.users.has(input.from_user_id)) throw badRequest('from_user_id is not a user of this workspace');
		requested = input.from_user_id;
	}
	return {
		conversation,
		reply_to_message_id: replyTo,
		as_system: asSystem,
		requested_from_user_id: requested,
		// Rule 1: System -> null; rule 3: the given user; rule 4: the key's creator.
		from_user_id: asSystem ? null : requested || key.created_by,
	};
}

/**
 * Creates an outbound message and schedules its one send_state move.
 * @param {any} ctx @param {any} ws
 * @param {ReturnType<typeof resolveSendTarget>} target
 * @param {{ clientRequestId: string, message_type: string, content: string, media?: object, location?: object }} payload
 */
function sendOutbound(ctx, ws, target, payload) {
	const channel = ws.channels.get(target.conversation.channel_id);
	const message = createLiveMessage(ctx, ws, target.conversation, {
		from_customer: false,
		from_user_id: target.from_user_id,
		as_system: target.as_system,
		requested_from_user_id: target.requested_from_user_id,
		reply_to_message_id: target.reply_to_message_id,
		client_request_id: payload.clientRequestId,
		content: payload.content,
		message_type: payload.message_type,
		send_state: 'pending',
		media: payload.media,
		location: payload.location,
	});
	// A customer primed to answer the next send (control POST /replies-on-send) answers at once.
	const primed = ws.repliesOnSend?.get(target.conversation.id);
	if (primed?.length) receiveInbound(ctx, ws, target.conversation, primed.shift());
	// The outcome is fixed now: dispatching into an inactive channel fails.
	const outcome = channel && channel.is_active ? 'sent' : 'failed';
	const delay = DISPATCH_DELAY_MIN_MS + Math.floor(Math.random() * DISPATCH_DELAY_SPREAD_MS);
	ctx.timers.after(delay, () => {
		if (message.send_state !== 'pending') return;
		message.send_state = outcome;
		message._u = ctx.clock.now();
	});
	return message;
}

module.exports = {
	SESSION_GAP_MS,
	buildMessage,
	indexMessages,
	bumpConversation,
	receiveInbound,
	replyOnNextSend,
	checkIdempotency,
	resolveSendTarget,
	sendOutbound,
};
