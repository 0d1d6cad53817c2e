'use strict';
// In-memory data of one sandbox: workspaces (each with its users, channels,
// contacts, conversations, messages and webhooks) and API keys.

const crypto = require('node:crypto');
const { Collection } = require('./collection');
const { iso } = require('./clock');
const { newKeySecret } = require('./ids');

const CHANNEL_TYPES = ['telegram', 'whatsapp', 'whatsapp_business', 'instagram', 'facebook', 'email', 'livechat'];
const CONVERSATION_STATUSES = ['open', 'pending', 'closed'];
const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'won', 'lost'];
const ALL_SCOPES = [
	'conversations:read',
	'messages:read',
	'messages:write',
	'customers:read',
	'customers:write',
	'channels:read',
	'webhooks:read',
	'webhooks:write',
];

const byCreated = (record) => record._c;
const byUpdated = (record) => record._u;

const sha256 = (text) => crypto.createHash('sha256').update(text).digest();

/**
 * @typedef {object} Workspace
 * @property {string} app_id
 * @property {string} created_at
 * @property {string} owner_user_id
 * @property {Map<string, {id: string, name: string, role: string}>} users
 * @property {Collection<any>} channels
 * @property {Collection<any>} contacts
 * @property {Collection<any>} conversations  ordered by updated_at
 * @property {Collection<any>} messages
 * @property {Map<string, import('./collection').SortedList<any>>} messagesByConversation
 * @property {Map<string, import('./collection').SortedList<any>>} messagesBySession
 * @property {Map<string, any>} messagesByRequestId  idempotency index
 * @property {Collection<any>} webhooks
 */

class Store {
	/**
	 * @param {{ ids: import('./ids').IdFactory, clock: { now(): number } }} deps
	 */
	constructor({ ids, clock }) {
		this.ids = ids;
		this.clock = clock;
		/** @type {Map<string, Workspace>} */
		this.workspaces = new Map();
		/** keys by the <id> part of `svc_<mode>_<id>.<secret>` */
		this.keysByPublicId = new Map();
		this.keysById = new Map();
	}

	/** @returns {Workspace} */
	createWorkspace({ ownerName = 'Workspace Owner' } = {}) {
		const now = this.clock.now();
		/** @type {Workspace} */
		const ws = {
			app_id: 'app_' + this.ids.base62(20),
			created_at: iso(now),
			owner_user_id: '',
			users: new Map(),
			channels: new Collection(byCreated),
			contacts: new Collection(byCreated),
			conversations: new Collection(byUpdated),
			messages: new Collection(byCreated),
			messagesByConversation: new Map(),
			messagesBySession: new Map(),
			messagesByRequestId: new Map(),
			webhooks: new Collection(byCreated),
		};
		this.workspaces.set(ws.app_id, ws);
		ws.owner_user_id = this.addUser(ws, { name: ownerName, role: 'owner' }).id;
		return ws;
	}

	/** @param {unknown} appId @returns {Workspace | undefined} */
	workspace(appId) {
		return typeof appId === 'string' ? this.workspaces.get(appId) : undefined;
	}

	/** @param {Workspace} ws */
	addUser(ws, { name, role = 'agent' }) {
		const user = { id: this.ids.next('usr_'), app_id: ws.app_id, name, role, created_at: iso(this.clock.now()) };
		ws.users.set(user.id, user);
		return user;
	}

	/**
	 * @param {Workspace} ws
	 * @param {{ mode?: 'live'|'test', scopes?: string[], name?: string, ip_allowlist?: string[] | null,
	 *           expires_at?: number | null, created_by?: string }} options
	 * @returns {{ key: string, record: any }}
	 */
	addKey(ws, options = {}) {
		const mode = options.mode || 'test';
		const publicId = this.ids.base62(16);
		const secret = newKeySecret();
		const record = {
			key_id: 'key_' + this.ids.base62(20),
			public_id: publicId,
			app_id: ws.app_id,
			name: options.name || `${mode === 'live' ? 'Live' : 'Test'} key`,
			mode,
			scopes: (options.scopes || ALL_SCOPES).slice(),
			scopeSet: new Set(options.scopes || ALL_SCOPES),
			ip_allowlist: options.ip_allowlist || null,
			expires_at: options.expires_at ?? null,
			revoked: false,
			created_by: options.created_by || ws.owner_user_id,
			created_at: iso(this.clock.now()),
			// Only a digest is kept, compared in constant time (like a real key store).
			secretDigest: sha256(secret),
		};
		this.keysByPublicId.set(publicId, record);
		this.keysById.set(record.key_id, record);
		return { key: `svc_${mode}_${publicId}.${secret}`, record };
	}

	/** Finds a conversation in any workspace (control surface only). */
	findConversation(id) {
		for (const ws of this.workspaces.values()) {
			const conversation = ws.conversations.get(id);
			if (conversation) return { ws, conversation };
		}
		return null;
	}

	/** Finds a message in any workspace (control surface only). */
	findMessage(id) {
		for (const ws of this.workspaces.values()) {
			const message = ws.messages.get(id);
			if (message) return message;
		}
		return null;
	}

	/**
	 * @param {Workspace} ws
	 * @param {{ type: string, name: string, is_active?: boolean, external_id?: string,
	 *           username?: string, phone_number?: string, email?: string }} input
	 * @param {number} [at] creation time, epoch ms
	 */
	addChannel(ws, input, at = this.clock.now()) {
		const defaults = channelDefaults(input.type, input.name, this.ids.base62(8));
		const channel = {
			id: this.ids.next('ch_'),
			app_id: ws.app_id,
			type: input.type,
			external_id: input.external_id ?? defaults.external_id,
			name: input.name,
			username: input.username ?? defaults.username,
			phone_number: input.phone_number ?? defaults.phone_number,
			email: input.email ?? defaults.email,
			is_active: input.is_active ?? true,
			_c: at,
		};
		ws.channels.add(channel);
		return channel;
	}

	/**
	 * Builds a conversation record (not yet stored).
	 * @param {Workspace} ws @param {any} channel @param {any} customer
	 * @param {{ at?: number, status?: string, external_id?: string }} [options]
	 */
	newConversation(ws, channel, customer, { at = this.clock.now(), status = 'open', external_id } = {}) {
		return {
			id: this.ids.next('conv_'),
			app_id: ws.app_id,
			channel: channel.type,
			channel_id: channel.id,
			external_id: external_id ?? conversationExternalId(channel.type, customer, this.ids.base62(10)),
			customer_id: customer.id,
			status,
			_c: at,
			_u: at,
			// Current message session (see messaging.js).
			_sessionId: null,
			_lastMessageAt: 0,
		};
	}
}

/** Plausible per-type channel identity; empty strings where a type has none. */
function channelDefaults(type, name, random) {
	const slug = String(name || 'channel').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '') || 'channel';
	const numeric = String(parseInt(random, 36) % 9_000_000_000 + 1_000_000_000);
	const phone = `+1555${numeric.slice(0, 7)}`;
	switch (type) {
		case 'telegram':
			return { external_id: numeric, username: `${slug}_bot`, phone_number: '', email: '' };
		case 'whatsapp':
		case 'whatsapp_business':
			return { external_id: phone.slice(1), username: '', phone_number: phone, email: '' };
		case 'instagram':
			return { external_id: numeric, username: slug, phone_number: '', email: '' };
		case 'facebook':
			return { external_id: numeric, username: slug, phone_number: '', email: '' };
		case 'email':
			return { external_id: `${slug}@mail.example.com`, username: '', phone_number: '', email: `${slug}@mail.example.com` };
		default:
			return { external_id: `lc_${random}`, username: '', phone_number: '', email: '' };
	}
}

/** The customer's identity on the channel (chat id, phone number, address...). */
function conversationExternalId(type, customer, random) {
	if ((type === 'whatsapp' || type === 'whatsapp_business') && customer.phone) return customer.phone.replace(/\D/g, '');
	if (type === 'email' && customer.email) return customer.email;
	if (type === 'livechat') return `visitor_${random}`;
	return String(parseInt(random, 36) % 9_000_000_000 + 1_000_000_000);
}

module.exports = { Store, CHANNEL_TYPES, CONVERSATION_STATUSES, LEAD_STATUSES, ALL_SCOPES };
