'use strict';
// History: messages, conversations and contacts at given times, for tests and
// benchmarks of what reads a period (reports, time windows). Everything here is
// silent (no webhook events, as seeding) and keeps the API's orders: records
// are inserted where their times put them, so pages stay "newest first" with
// `id` descending as the tie-break. Times may lie in the past only: a live
// record created later always sorts first.

const { badRequest } = require('./errors');
const { createPrng } = require('./prng');
const { buildMessage, indexMessages, SESSION_GAP_MS } = require('./messaging');
const { optionalString, optionalBoolean, isAbsent, requireObject } = require('./validate');
const data = require('./seedData');

const MESSAGE_TYPES = ['text', 'image', 'audio', 'voice', 'video', 'document', 'location', 'rating', 'email'];
const SEND_STATES = ['pending', 'sent', 'failed'];
const CLIENT_REQUEST_ID_MAX = 256;
const TEXT_MAX = 4000;
/** One call of POST /messages/bulk or POST /bulk-history creates at most this many messages. */
const HISTORY_LIMIT = 1_000_000;

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * An optional ISO 8601 time of the body as epoch ms, not after `now`
 * (history is the past; a live record must stay newer than any of it).
 * @returns {number | undefined}
 */
function pastTime(body, field, now) {
	const value = body[field];
	if (isAbsent(value)) return undefined;
	const at = typeof value === 'string' ? Date.parse(value) : NaN;
	if (Number.isNaN(at)) throw badRequest(`${field} must be an iso 8601 date-time`);
	if (at > now) throw badRequest(`${field} must not be in the future`);
	return at;
}

function oneOf(body, field, allowed, fallback) {
	const value = optionalString(body, field);
	if (value === undefined) return fallback;
	if (!allowed.includes(value)) throw badRequest(`${field} must be one of ${allowed.join(', ')}`);
	return value;
}

/**
 * The session a message at `at` joins when it is inserted among a
 * conversation's messages: the session of the message just before it when
 * that one is less than the session gap older, else a new one. (A message
 * that lands in a gap does not merge the sessions around it.)
 */
function historySession(ctx, ws, conversation, at) {
	const list = ws.messagesByConversation.get(conversation.id);
	if (!list || list.length === 0 || at >= conversation._lastMessageAt) {
		if (!conversation._sessionId || at - conversation._lastMessageAt > SESSION_GAP_MS) conversation._sessionId = ctx.ids.next('ses_');
		conversation._lastMessageAt = Math.max(conversation._lastMessageAt, at);
		return conversation._sessionId;
	}
	const index = list.firstIndexWithKeyAtLeast(at + 1) - 1;
	const before = index >= 0 ? list.items[index] : undefined;
	return before && at - before._c <= SESSION_GAP_MS ? before.message_session_id : ctx.ids.next('ses_');
}

/**
 * Checks one history message of a control body (POST /messages,
 * POST /messages/bulk) and builds its record, not yet indexed.
 * Author: `from_customer: true` (a customer), else `as_system: true` (System),
 * else `from_user_id` (a user of the workspace), else the workspace's owner.
 */
function historyMessage(ctx, store, rawBody, now, requestIds) {
	const body = requireObject(rawBody);
	const conversationId = body.conversation_id;
	if (typeof conversationId !== 'string' || conversationId === '') throw badRequest('conversation_id is required');
	const found = store.findConversation(conversationId);
	if (!found) throw badRequest('conversation not found');
	const { ws, conversation } = found;
	const at = pastTime(body, 'created_at', now) ?? ctx.clock.now();
	if (at < conversation._c) throw badRequest('created_at must not be before the conversation was created');
	const fromCustomer = optionalBoolean(body, 'from_customer') === true;
	const asSystem = !fromCustomer && optionalBoolean(body, 'as_system') === true;
	let fromUserId = null;
	if (!fromCustomer && !asSystem) {
		fromUserId = optionalString(body, 'from_user_id') ?? ws.owner_user_id;
		if (!ws.users.has(fromUserId)) throw badRequest('from_user_id is not a user of this workspace');
	}
	const clientRequestId = fromCustomer ? '' : (optionalString(body, 'client_request_id', { max: CLIENT_REQUEST_ID_MAX }) ?? '');
	if (clientRequestId !== '' && (ws.messagesByRequestId.has(clientRequestId) || requestIds.has(clientRequestId))) {
		throw badRequest('client_request_id is already used in this workspace');
	}
	if (clientRequestId !== '') requestIds.add(clientRequestId);
	const message = buildMessage(ctx, conversation, at, {
		from_customer: fromCustomer,
		from_user_id: fromUserId,
		as_system: asSystem,
		content: optionalString(body, 'content', { max: TEXT_MAX }) ?? '',
		message_type: oneOf(body, 'message_type', MESSAGE_TYPES, 'text'),
		send_state: oneOf(body, 'send_state', SEND_STATES, 'sent'),
		client_request_id: clientRequestId,
	});
	message.message_session_id = historySession(ctx, ws, conversation, at);
	return { ws, conversation, message };
}

/** Indexes history messages and moves each conversation's updated_at to its newest message. */
function storeHistory(ws, entries) {
	indexMessages(ws, entries.map((entry) => entry.message));
	const newest = new Map();
	for (const { conversation, message } of entries) {
		if (message._c > (newest.get(conversation) ?? -Infinity)) newest.set(conversation, message._c);
	}
	for (const [conversation, at] of newest) {
		if (at > conversation._u) ws.conversations.reorder(conversation, () => (conversation._u = at));
	}
}

/**
 * control POST /messages and POST /messages/bulk: messages at given times,
 * all of one workspace, checked before any is stored (one bad message stores
 * none).
 */
function addHistoryMessages(ctx, store, bodies) {
	if (bodies.length > HISTORY_LIMIT) throw badRequest(`at most ${HISTORY_LIMIT} messages per call`);
	const now = ctx.clock.now();
	const requestIds = new Set();
	const entries = bodies.map((body, index) => {
		try {
			return historyMessage(ctx, store, body, now, requestIds);
		} catch (error) {
			if (bodies.length > 1 && error.statusCode === 400) error.message = `messages[${index}]: ${error.message}`;
			throw error;
		}
	});
	const workspaces = new Set(entries.map((entry) => entry.ws));
	if (workspaces.size > 1) throw badRequest('all messages must belong to one workspace');
	if (entries.length > 0) storeHistory(entries[0].ws, entries);
	return entries.map((entry) => entry.message);
}

/**
 * control POST /bulk-history: a period of support activity for benchmarks,
 * fast and deterministic (`seed`). `conversations` conversations are created
 * in [from, to), spread evenly, each with about messages / conversations
 * messages inside the period: customers writing, the bot (sends of the
 * n8n package, `n8n_` keys, and System) and people of the workspace answering,
 * some customers still waiting, hand-overs to a person (the package's marks),
 * and ratings. Conversations use active channels round-robin (a live chat
 * channel is created when there is none) and existing contacts (one is created
 * per conversation in a workspace without contacts).
 * @returns {{ conversations: number, messages: number }}
 */
function bulkHistory(ctx, ws, { from, to, conversations, messages, seed }) {
	if (messages > HISTORY_LIMIT) throw badRequest(`at most ${HISTORY_LIMIT} messages per call`);
	const prng = createPrng(seed);
	const channels = ws.channels.items.filter((channel) => channel.is_active);
	if (channels.length === 0) channels.push(ctx.store.addChannel(ws, { type: 'livechat', name: 'Live Chat' }, from));
	if (ws.contacts.length === 0) {
		const { buildContact } = require('./contacts');
		const batch = [];
		for (let i = 0; i < conversations; i++) batch.push(buildContact(ctx, ws.app_id, `Customer ${i + 1}`, {}, from));
		ws.contacts.addMany(batch);
	}
	const customers = ws.contacts.items;
	const persons = [...ws.users.keys()];
	const span = to - from;
	const created = [];
	const built = [];
	let remaining = messages;
	for (let j = 0; j < conversations; j++) {
		const count = Math.max(1, Math.round(remaining / (conversations - j)));
		remaining -= count;
		const gaps = conversationGaps(prng, count);
		const length = gaps.reduce((sum, gap) => sum + gap, 0);
		// Starts spread evenly over the part of the period where the whole conversation fits.
		const room = Math.max(0, span - 1 - length);
		const start = from + Math.floor(((j + prng.next()) * room) / conversations);
		const conversation = ctx.store.newConversation(ws, channels[j % channels.length], customers[j % customers.length], { at: start });
		created.push(conversation);
		const times = conversationTimes(gaps, start, to);
		const plan = conversationPlan(prng, count);
		for (let k = 0; k < count; k++) {
			const step = plan[k];
			const message = buildMessage(ctx, conversation, times[k], {
				from_customer: step.author === 'customer',
				from_user_id: step.author === 'person' ? prng.pick(persons) : step.author === 'bot' ? ws.owner_user_id : null,
				as_system: step.author === 'system',
				content: step.content ?? prng.pick(step.author === 'customer' ? data.CUSTOMER_LINES : step.author === 'system' ? data.SYSTEM_LINES : data.AGENT_LINES),
				message_type: step.type ?? 'text',
				send_state: 'sent',
				client_request_id: step.key ?? (step.author === 'customer' ? '' : step.author === 'bot' ? `n8n_${ctx.ids.base62(16)}` : `hist-${ctx.ids.base62(12)}`),
			});
			built.push(message);
		}
		conversation._u = times[count - 1];
	}
	ws.conversations.addMany(created);
	indexMessages(ws, built);
	return { conversations, messages: built.length };
}

/** Gaps between a conversation's messages: mostly seconds to two minutes, sometimes up to half an hour. */
function conversationGaps(prng, count) {
	const gaps = [0];
	for (let k = 1; k < count; k++) gaps.push(prng.chance(0.7) ? prng.int(2, 120) * SECOND : prng.int(1, 30) * MINUTE);
	return gaps;
}

/** Increasing times from `start`, every one before `end` (gaps squeezed when they would not fit). */
function conversationTimes(gaps, start, end) {
	const total = gaps.reduce((sum, gap) => sum + gap, 0);
	const room = Math.max(0, end - 1 - start);
	const scale = total > room ? room / total : 1;
	const times = [];
	let at = start;
	for (const gap of gaps) {
		at += Math.floor(gap * scale);
		times.push(Math.min(at, end - 1));
	}
	return times;
}

/**
 * Who writes each message of a conversation: a customer opens it, then
 * answers come from the bot (60%) or a person (40%), the customer sometimes
 * writes twice before an answer, a fifth of the conversations are handed over
 * (the package's message and note), some end with a rating or a customer
 * still waiting, and now and then System writes.
 */
function conversationPlan(prng, count) {
	const plan = [];
	const handOver = prng.chance(0.2) ? Math.max(1, Math.floor(count / 2)) : -1;
	const episode = Array.from({ length: 16 }, () => '0123456789abcdef'[prng.int(0, 15)]).join('');
	for (let k = 0; k < count; k++) {
		const previous = plan[k - 1];
		if (k === 0) plan.push({ author: 'customer' });
		else if (k === handOver) plan.push({ author: 'bot', key: `n8nhandover1_m_${episode}`, content: 'A colleague will answer you here shortly.' });
		else if (k === handOver + 1) plan.push({ author: 'system', key: `n8nhandover1_n_${episode}`, content: 'Handed over to a person by the bot.' });
		else if (k === count - 1 && prng.chance(0.15)) plan.push({ author: 'customer', type: 'rating', content: prng.pick(['5', '4', '4/5', '3 of 5', '★★★★☆', 'great', '2']) });
		else if (previous.author === 'customer' && prng.chance(0.8)) plan.push({ author: handOver >= 0 && k > handOver ? 'person' : prng.chance(0.6) ? 'bot' : prng.chance(0.1) ? 'system' : 'person' });
		else plan.push({ author: 'customer' });
	}
	return plan;
}

module.exports = { addHistoryMessages, bulkHistory, pastTime, HISTORY_LIMIT, MESSAGE_TYPES };
