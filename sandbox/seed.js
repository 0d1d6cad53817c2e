'use strict';
// Seeding: the deterministic demo world (--seed demo) and fast
// bulk data for benchmarks. Seeding is silent: it emits no webhook events.

const { createPrng } = require('./prng');
const { badRequest } = require('./errors');
const { buildContact } = require('./contacts');
const { buildMessage, indexMessages } = require('./messaging');
const { LEAD_STATUSES } = require('./store');
const data = require('./seedData');

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DEMO_SEED = 20260601;

/** Demo world sizes (tests may rely on them). */
const DEMO = Object.freeze({
	ownerName: 'Alex Morgan',
	agentNames: ['Priya Shah', 'Tom Becker'],
	channels: [
		{ type: 'telegram', name: 'Acme Telegram Bot' },
		{ type: 'whatsapp', name: 'Acme WhatsApp' },
		{ type: 'whatsapp_business', name: 'Acme WhatsApp Business' },
		{ type: 'instagram', name: 'Acme Instagram' },
		{ type: 'facebook', name: 'Acme Facebook Page', is_active: false },
		{ type: 'email', name: 'Acme Support Email' },
		{ type: 'livechat', name: 'Acme Live Chat' },
	],
	contacts: 50,
	conversations: 30,
	/** messages in conversation i: 3 + (i % 6), 165 in all */
	messagesIn: (i) => 3 + (i % 6),
});

const BULK_LIMITS = Object.freeze({ contacts: 1_000_000, conversations: 200_000, messagesPerConversation: 1_000, messages: 1_000_000 });

/** "Müller" -> "muller": e-mail local parts stay ASCII. */
const asciiSlug = (text) => text.normalize('NFD').replace(/[^A-Za-z]/g, '').toLowerCase();
/** Slugs computed once per name, not once per contact (bulk speed). */
const SLUGS = new Map([...data.FIRST_NAMES, ...data.LAST_NAMES].map((name) => [name, asciiSlug(name)]));

/** Realistic contact fields; `serial` keeps e-mail addresses unique. */
function fakeContact(prng, serial) {
	const first = prng.pick(data.FIRST_NAMES);
	const last = prng.pick(data.LAST_NAMES);
	const [city, country] = prng.pick(data.PLACES);
	return {
		name: `${first} ${last}`,
		fields: {
			phone: `+${prng.int(1, 49)} ${prng.int(100, 999)} ${prng.int(100_000, 9_999_999)}`,
			email: `${SLUGS.get(first)}.${SLUGS.get(last)}${serial}@example.com`,
			company: prng.pick(data.COMPANIES),
			job_title: prng.pick(data.JOB_TITLES),
			lead_status: prng.pick(['', ...LEAD_STATUSES]),
			lead_source: prng.pick(data.LEAD_SOURCES),
			address: `${prng.int(1, 250)} ${prng.pick(data.STREETS)}`,
			city,
			country,
		},
	};
}

/**
 * Messages of one conversation in time order (customer first, then turns).
 * @param {{ gapAfter?: number, gapMs?: number, spacing: () => number, agents: string[], system?: boolean }} plan
 */
function conversationMessages(ctx, prng, conversation, start, count, plan) {
	const messages = [];
	let at = start;
	for (let k = 0; k < count; k++) {
		at += plan.spacing();
		if (plan.gapAfter !== undefined && k === plan.gapAfter) at += plan.gapMs || 0;
		const fromCustomer = k % 2 === 0;
		const asSystem = !fromCustomer && plan.system === true && k === 1;
		messages.push(
			buildMessage(ctx, conversation, at, {
				from_customer: fromCustomer,
				from_user_id: fromCustomer || asSystem ? null : prng.pick(plan.agents),
				as_system: asSystem,
				content: prng.pick(fromCustomer ? data.CUSTOMER_LINES : asSystem ? data.SYSTEM_LINES : data.AGENT_LINES),
				message_type: 'text',
				send_state: 'sent',
				client_request_id: fromCustomer ? '' : `seed-${ctx.ids.base62(12)}`,
			}),
		);
	}
	conversation._u = at;
	return messages;
}

/**
 * The demo world: 3 users, one channel per type (facebook inactive), 50
 * contacts, 30 conversations with 165 messages. Content is the same on every
 * run (seeded PRNG); ids and times are fresh.
 * @param {any} ctx @param {import('./store').Workspace} ws
 */
function seedDemo(ctx, ws) {
	const prng = createPrng(DEMO_SEED);
	const now = ctx.clock.now();
	const start = now - 45 * DAY;
	const agents = [ws.owner_user_id, ...DEMO.agentNames.map((name) => ctx.store.addUser(ws, { name }).id)];
	const channels = DEMO.channels.map((channel, i) => ctx.store.addChannel(ws, channel, start + i * HOUR));

	const contacts = [];
	for (let i = 0; i < DEMO.contacts; i++) {
		const { name, fields } = fakeContact(prng, i + 1);
		contacts.push(buildContact(ctx, ws.app_id, name, fields, start + DAY + Math.floor((i * 30 * DAY) / DEMO.contacts)));
	}
	ws.contacts.addMany(contacts);

	const conversations = [];
	const messages = [];
	for (let i = 0; i < DEMO.conversations; i++) {
		// Conversations start every 6 hours up to the present (those with a
		// second session two days earlier), so the demo's daily report has
		// activity in the last 24 hours straight away.
		const created = now - (DEMO.conversations - i) * 6 * HOUR - (i % 4 === 0 ? 2 * DAY : 0) + prng.int(0, 60) * MINUTE;
		const status = i % 5 === 0 ? 'closed' : i % 5 === 1 ? 'pending' : 'open';
		const conversation = ctx.store.newConversation(ws, channels[i % channels.length], contacts[i], { at: created, status });
		const plan = {
			spacing: () => prng.int(1, 15) * MINUTE,
			// Every fourth conversation resumes two days later: a second session.
			gapAfter: i % 4 === 0 ? 3 : undefined,
			gapMs: 2 * DAY,
			agents,
			system: i % 7 === 3,
		};
		messages.push(...conversationMessages(ctx, prng, conversation, created, DEMO.messagesIn(i), plan));
		conversations.push(conversation);
	}
	ws.conversations.addMany(conversations);
	indexMessages(ws, messages);
}

/**
 * Bulk data: contacts spread over the last 90 days, conversations over the
 * last 30 days with `messagesPerConversation` messages one second apart.
 * Conversations reuse existing contacts round-robin (new ones only when the
 * workspace has none) and active channels (a live chat channel is created
 * when there is none).
 * @returns {{ contacts: number, conversations: number, messages: number,
 *             totals: { contacts: number, conversations: number, messages: number } }}
 */
function bulkSeed(ctx, ws, { contacts = 0, conversations = 0, messagesPerConversation = 0 }) {
	if (conversations * messagesPerConversation > BULK_LIMITS.messages) {
		throw badRequest(`at most ${BULK_LIMITS.messages} messages per bulk call`);
	}
	const prng = createPrng(DEMO_SEED + ws.contacts.length + ws.conversations.length);
	const now = ctx.clock.now();
	let createdContacts = addBulkContacts(ctx, prng, ws, contacts, now);
	let createdMessages = 0;
	if (conversations > 0) {
		if (ws.contacts.length === 0) createdContacts += addBulkContacts(ctx, prng, ws, conversations, now);
		const channels = ws.channels.items.filter((channel) => channel.is_active);
		if (channels.length === 0) channels.push(ctx.store.addChannel(ws, { type: 'livechat', name: 'Live Chat' }));
		const customers = ws.contacts.items;
		const agents = [...ws.users.keys()];
		const span = 29 * DAY;
		const newConversations = [];
		const messages = [];
		for (let j = 0; j < conversations; j++) {
			const created = now - 30 * DAY + Math.floor((j * span) / conversations);
			const customer = customers[customers.length - 1 - (j % customers.length)];
			const conversation = ctx.store.newConversation(ws, channels[j % channels.length], customer, { at: created });
			const plan = { spacing: () => SECOND, agents };
			const batch = conversationMessages(ctx, prng, conversation, created, messagesPerConversation, plan);
			for (const message of batch) messages.push(message);
			newConversations.push(conversation);
		}
		ws.conversations.addMany(newConversations);
		indexMessages(ws, messages);
		createdMessages = messages.length;
	}
	return {
		contacts: createdContacts,
		conversations,
		messages: createdMessages,
		totals: { contacts: ws.contacts.length, conversations: ws.conversations.length, messages: ws.messages.length },
	};
}

function addBulkContacts(ctx, prng, ws, count, now) {
	if (count === 0) return 0;
	const step = Math.max(1, Math.floor((90 * DAY) / count));
	const serialBase = ws.contacts.length;
	const batch = new Array(count);
	for (let i = 0; i < count; i++) {
		const { name, fields } = fakeContact(prng, serialBase + i + 1);
		batch[i] = buildContact(ctx, ws.app_id, name, fields, now - (count - i) * step);
	}
	ws.contacts.addMany(batch);
	return count;
}

module.exports = { seedDemo, bulkSeed, BULK_LIMITS, DEMO };
