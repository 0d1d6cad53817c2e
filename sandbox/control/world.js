'use strict';
// Control endpoints that shape the world: workspaces, keys, users, channels,
// conversations, inbound customer messages and bulk seeding (see README.md,
// "Control surface"). Creations answer 200; revoke is a 204.

const { badRequest, orNotFound } = require('../errors');
const { requireObject, requiredString, optionalString, optionalBoolean, isAbsent } = require('../validate');
const { CHANNEL_TYPES, CONVERSATION_STATUSES } = require('../store');
const { createContact, buildContact, parseContactBody } = require('../contacts');
const { receiveInbound, replyOnNextSend } = require('../messaging');
const { bulkSeed, BULK_LIMITS } = require('../seed');
const { addHistoryMessages, bulkHistory, pastTime, HISTORY_LIMIT } = require('../history');
const serialize = require('../serialize');

const NAME_MAX = 200;
const TEXT_MAX = 4000;

/** The body, or {} when none was sent (all control bodies are optional-ish). */
const bodyOf = (req) => (req.body === undefined ? {} : requireObject(req.body));

/** @returns {import('../server').RouteDefinition[]} */
module.exports = (ctx) => {
	/** `app_id` of the body, or the seeded workspace. */
	const workspaceFor = (body) => {
		if (isAbsent(body.app_id)) return ctx.store.workspace(ctx.primaryAppId);
		return orNotFound(ctx.store.workspace(body.app_id), 'workspace not found');
	};

	return [
		{
			method: 'POST',
			url: '/workspaces',
			handler: (req) => {
				const body = bodyOf(req);
				const ws = ctx.store.createWorkspace({ ownerName: optionalString(body, 'owner_name', { max: NAME_MAX }) });
				return { app_id: ws.app_id, owner_user_id: ws.owner_user_id };
			},
		},
		{
			// Lets tests find user ids (there is no public user list).
			method: 'GET',
			url: '/workspaces/:app_id',
			handler: (req) => {
				const ws = orNotFound(ctx.store.workspace(req.params.app_id), 'workspace not found');
				return {
					app_id: ws.app_id,
					owner_user_id: ws.owner_user_id,
					users: [...ws.users.values()].map(({ id, name, role }) => ({ id, name, role })),
					counts: {
						channels: ws.channels.length,
						contacts: ws.contacts.length,
						conversations: ws.conversations.length,
						messages: ws.messages.length,
						webhooks: ws.webhooks.length,
					},
				};
			},
		},
		{
			method: 'POST',
			url: '/keys',
			handler: (req) => {
				const body = bodyOf(req);
				const ws = workspaceFor(body);
				const { key, record } = ctx.store.addKey(ws, parseKeyOptions(ws, body));
				return { key, key_id: record.key_id, app_id: record.app_id };
			},
		},
		{
			method: 'POST',
			url: '/keys/:key_id/revoke',
			handler: (req, reply) => {
				orNotFound(ctx.store.keysById.get(req.params.key_id), 'key not found').revoked = true;
				reply.code(204);
				return undefined;
			},
		},
		{
			method: 'POST',
			url: '/users',
			handler: (req) => {
				const body = bodyOf(req);
				const ws = workspaceFor(body);
				const role = optionalString(body, 'role') ?? 'agent';
				if (role !== 'agent' && role !== 'owner') throw badRequest('role must be agent or owner');
				const user = ctx.store.addUser(ws, { name: requiredString(body, 'name', { max: NAME_MAX }), role });
				return { id: user.id, app_id: ws.app_id, name: user.name, role: user.role };
			},
		},
		{
			method: 'POST',
			url: '/channels',
			handler: (req) => {
				const body = bodyOf(req);
				const ws = workspaceFor(body);
				const type = requiredString(body, 'type');
				if (!CHANNEL_TYPES.includes(type)) throw badRequest(`type must be one of ${CHANNEL_TYPES.join(', ')}`);
				const channel = ctx.store.addChannel(ws, {
					type,
					name: requiredString(body, 'name', { max: NAME_MAX }),
					is_active: optionalBoolean(body, 'is_active'),
					external_id: optionalString(body, 'external_id', { max: NAME_MAX }),
					username: optionalString(body, 'username', { max: NAME_MAX }),
					phone_number: optionalString(body, 'phone_number', { max: 50 }),
					email: optionalString(body, 'email', { max: NAME_MAX }),
				});
				return serialize.channel(channel);
			},
		},
		{
			method: 'POST',
			url: '/conversations',
			handler: (req) => {
				const body = bodyOf(req);
				const ws = workspaceFor(body);
				const channel = ws.channels.get(requiredString(body, 'channel_id'));
				if (!channel) throw badRequest('channel not found');
				const status = optionalString(body, 'status') ?? 'open';
				if (!CONVERSATION_STATUSES.includes(status)) throw badRequest(`status must be one of ${CONVERSATION_STATUSES.join(', ')}`);
				let customer;
				if (isAbsent(body.customer_id) || body.customer_id === '') {
					customer = createContact(ctx, ws, { name: `Customer ${ctx.ids.base62(6)}`, fields: {} });
				} else {
					customer = ws.contacts.get(requiredString(body, 'customer_id'));
					if (!customer) throw badRequest('customer not found');
				}
				// History: a conversation created at a given (past) time.
				const at = pastTime(body, 'created_at', ctx.clock.now());
				const conversation = ctx.store.newConversation(ws, channel, customer, {
					status,
					external_id: optionalString(body, 'external_id', { max: NAME_MAX }),
					...(at === undefined ? {} : { at }),
				});
				ws.conversations.add(conversation);
				return serialize.conversation(conversation);
			},
		},
		{
			method: 'POST',
			url: '/inbound',
			handler: (req) => {
				const body = bodyOf(req);
				const found = orNotFound(ctx.store.findConversation(requiredString(body, 'conversation_id')), 'conversation not found');
				const text = requiredString(body, 'text', { max: TEXT_MAX });
				return serialize.message(receiveInbound(ctx, found.ws, found.conversation, text));
			},
		},
		{
			// History: a contact created at a given (past) time, silently.
			method: 'POST',
			url: '/contacts',
			handler: (req) => {
				const body = bodyOf(req);
				const ws = workspaceFor(body);
				const { name, fields } = parseContactBody({ ...body, app_id: undefined, created_at: undefined });
				const at = pastTime(body, 'created_at', ctx.clock.now()) ?? ctx.clock.now();
				const contact = buildContact(ctx, ws.app_id, name, fields, at);
				ws.contacts.add(contact);
				return serialize.contact(contact);
			},
		},
		{
			// History: one message at a given (past) time, with its author, type and key, silently.
			method: 'POST',
			url: '/messages',
			handler: (req) => serialize.storedMessage(addHistoryMessages(ctx, ctx.store, [bodyOf(req)])[0]),
		},
		{
			method: 'POST',
			url: '/messages/bulk',
			handler: (req) => {
				const body = bodyOf(req);
				if (!Array.isArray(body.messages)) throw badRequest('messages must be an array');
				const created = addHistoryMessages(ctx, ctx.store, body.messages);
				return { messages: created.map((message) => ({ id: message.id, created_at: serialize.message(message).created_at })) };
			},
		},
		{
			method: 'POST',
			url: '/bulk-history',
			handler: (req) => {
				const body = bodyOf(req);
				const ws = workspaceFor(body);
				const now = ctx.clock.now();
				const from = pastTime(body, 'from', now);
				const to = pastTime(body, 'to', now);
				if (from === undefined || to === undefined) throw badRequest('from and to are required');
				if (from >= to) throw badRequest('from must be before to');
				const integer = (field, min, max) => {
					const value = body[field];
					if (!Number.isInteger(value) || value < min || value > max) throw badRequest(`${field} must be an integer ${min}..${max}`);
					return value;
				};
				const conversations = integer('conversations', 1, BULK_LIMITS.conversations);
				const messages = integer('messages', conversations, HISTORY_LIMIT);
				const seed = isAbsent(body.seed) ? 1 : integer('seed', 0, 2 ** 31);
				const counts = bulkHistory(ctx, ws, { from, to, conversations, messages, seed });
				return { ...counts, totals: { conversations: ws.conversations.length, messages: ws.messages.length } };
			},
		},
		{
			method: 'POST',
			url: '/replies-on-send',
			handler: (req) => {
				const body = bodyOf(req);
				const found = orNotFound(ctx.store.findConversation(requiredString(body, 'conversation_id')), 'conversation not found');
				replyOnNextSend(found.ws, found.conversation, requiredString(body, 'text', { max: TEXT_MAX }));
				return { queued: true };
			},
		},
		{
			method: 'POST',
			url: '/bulk',
			handler: (req) => {
				const body = bodyOf(req);
				const ws = workspaceFor(body);
				const count = (field, max) => {
					const value = body[field];
					if (isAbsent(value)) return 0;
					if (!Number.isInteger(value) || value < 0 || value > max) throw badRequest(`${field} must be an integer 0..${max}`);
					return value;
				};
				return bulkSeed(ctx, ws, {
					contacts: count('contacts', BULK_LIMITS.contacts),
					conversations: count('conversations', BULK_LIMITS.conversations),
					messagesPerConversation: count('messages_per_conversation', BULK_LIMITS.messagesPerConversation),
				});
			},
		},
	];
};

/** POST /keys options: mode, scopes, name, ip_allowlist, expires_at, created_by_user_id. */
function parseKeyOptions(ws, body) {
	const mode = optionalString(body, 'mode') ?? 'test';
	if (mode !== 'live' && mode !== 'test') throw badRequest('mode must be live or test');
	const stringList = (field) => {
		const value = body[field];
		if (isAbsent(value)) return undefined;
		if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw badRequest(`${field} must be an array of strings`);
		return value;
	};
	let expiresAt = null;
	if (!isAbsent(body.expires_at)) {
		expiresAt = typeof body.expires_at === 'string' ? Date.parse(body.expires_at) : NaN;
		if (Number.isNaN(expiresAt)) throw badRequest('expires_at must be an iso 8601 date-time');
	}
	const createdBy = optionalString(body, 'created_by_user_id');
	if (createdBy !== undefined && !ws.users.has(createdBy)) throw badRequest('created_by_user_id is not a user of this workspace');
	return {
		mode,
		// Decision: scope names are not checked, so future scopes can be granted.
		scopes: stringList('scopes'),
		name: optionalString(body, 'name', { max: NAME_MAX }),
		ip_allowlist: stringList('ip_allowlist') ?? null,
		expires_at: expiresAt,
		created_by: createdBy,
	};
}
