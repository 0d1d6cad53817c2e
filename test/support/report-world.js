'use strict';
// Workspaces for Report > Get, built through the sandbox's control surface
// (history at given times) in a workspace of their own:
// - knownDay: one day in a time zone whose midnight is not UTC's, where
//   every figure is known by construction (written out below, not computed
//   by any report code): bot and person replies, a customer waiting across
//   each edge of the day, hand-overs answered, expired by their own limit
//   and still open, ratings in several writings, an inactive channel with a
//   failed send, a channel with no activity, messages exactly at both edges.
// - randomWorkspace: a seeded random workspace for the property test
//   against the reference (report-reference.js).
const { sandboxClient } = require('../../sandbox/client');
const { prng } = require('./prng');

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms) => new Date(ms).toISOString();

/** The zone's offset from UTC at an instant, in ms. */
function offsetOf(ms, timeZone) {
	const parts = Object.fromEntries(
		new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
			.formatToParts(new Date(ms))
			.map((part) => [part.type, Number(part.value)]),
	);
	return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) - Math.floor(ms / 1000) * 1000;
}

/** Local midnight of a date (YYYY-MM-DD) in a zone whose midnight exists. */
function localMidnight(date, timeZone) {
	const utc = Date.parse(`${date}T00:00:00Z`);
	let guess = utc - offsetOf(utc, timeZone);
	guess = utc - offsetOf(guess, timeZone);
	return guess;
}

/** The local date `daysAgo` days before today in the zone. */
function localDate(daysAgo, timeZone, now = Date.now()) {
	const today = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(now));
	const moved = new Date(Date.parse(`${today}T00:00:00Z`) - daysAgo * DAY);
	return moved.toISOString().slice(0, 10);
}

/** The `days` local days from `date` (YYYY-MM-DD) in the zone: [startMs, endMs), and the date after the last of them. */
function localDays(date, days, timeZone) {
	const endDate = new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
	return { startMs: localMidnight(date, timeZone), endMs: localMidnight(endDate, timeZone), endDate };
}

/** A past period of 1 to 3 whole local days for the property tests: a zone of `zones`, a date of `fixed` (before a change of the clocks) with chance `fixedChance`, else of the last 20 days. */
function randomDays(random, { zones, fixed, fixedChance }) {
	const timeZone = random.pick(zones);
	const days = random.int(1, 3);
	const date = random.chance(fixedChance) ? random.pick(fixed) : localDate(random.int(days + 1, 20), timeZone);
	return { timeZone, days, date, ...localDays(date, days, timeZone) };
}

/** A workspace of its own with a key holding every scope, and a client for it. */
async function newWorkspace(client) {
	const { app_id: appId } = await client.control('POST', '/workspaces', { owner_name: 'Report Owner' });
	const { key } = await client.control('POST', '/keys', { app_id: appId, name: 'report test' });
	return { appId, key };
}

/**
 * The known day: [start, end) is the local date `daysAgo` days before today
 * in `timeZone` (America/Los_Angeles by default: its midnight is 07:00 or
 * 08:00 UTC). Returns the workspace's key, the period as wall-clock strings
 * for the Custom period, and the expected figures per channel name, in total
 * and the waiting list.
 * @param {{ control: Function }} client a sandbox client (sandbox/client.js)
 */
async function knownDay(sandbox, { timeZone = 'America/Los_Angeles', daysAgo = 3 } = {}) {
	const client = sandboxClient(sandbox);
	const { appId, key } = await newWorkspace(client);
	const date = localDate(daysAgo, timeZone);
	const next = localDate(daysAgo - 1, timeZone);
	const S = localMidnight(date, timeZone);
	const E = localMidnight(next, timeZone);
	// UTC's midnight inside the local day.
	const U = Math.ceil(S / DAY) * DAY;
	const channel = async (type, name, isActive = true) => await client.control('POST', '/channels', { app_id: appId, type, name, is_active: isActive });
	const wa = await channel('whatsapp', 'Acme WhatsApp');
	const tg = await channel('telegram', 'Acme Telegram');
	const fb = await channel('facebook', 'Old Facebook Page', false);
	const em = await channel('email', 'Support Email');
	const { id: person } = await client.control('POST', '/users', { app_id: appId, name: 'Dana Agent' });
	const conversation = async (ch, createdAt) => (await client.control('POST', '/conversations', { app_id: appId, channel_id: ch.id, created_at: iso(createdAt) })).id;
	const messages = [];
	let sends = 0;
	const now = Date.now();
	// History is the past: a message the clock has not reached (after the period of yesterday's report) is left out.
	const push = (message) => Date.parse(message.created_at) <= now - 1000 && messages.push(message);
	const customer = (c, at, content = 'Hello?') => push({ conversation_id: c, created_at: iso(at), from_customer: true, content });
	const bot = (c, at, extra = {}) => push({ conversation_id: c, created_at: iso(at), client_request_id: `n8n_known-${++sends}`, content: 'Bot answer', ...extra });
	const system = (c, at) => push({ conversation_id: c, created_at: iso(at), as_system: true, content: 'We answer within the hour.' });
	const byPerson = (c, at) => push({ conversation_id: c, created_at: iso(at), from_user_id: person, content: 'Dana here' });
	const rating = (c, at, content) => push({ conversation_id: c, created_at: iso(at), from_customer: true, message_type: 'rating', content });
	const handOver = (c, at, episode, limit = '') => {
		push({ conversation_id: c, created_at: iso(at), client_request_id: `n8nhandover1_m_${episode}${limit}`, content: 'A colleague will answer you here shortly.' });
		push({ conversation_id: c, created_at: iso(at + 1000), as_system: true, client_request_id: `n8nhandover1_n_${episode}${limit}`, content: 'Handed over to a person by the bot.' });
	};

	// WhatsApp
	const c1 = await conversation(wa, S + HOUR);
	customer(c1, S + 60 * MINUTE);
	customer(c1, S + 62 * MINUTE, 'Anyone there?');
	bot(c1, S + 63 * MINUTE); // 3 min, bot (the wait began at the first of the two)
	customer(c1, S + 120 * MINUTE);
	byPerson(c1, S + 150 * MINUTE); // 30 min, person
	const c2 = await conversation(wa, S - 2 * DAY);
	customer(c2, S - 10 * MINUTE); // before the period: its wait is not seen
	byPerson(c2, S + 5 * MINUTE); // a person's message, closing nothing in the period
	customer(c2, E - 10 * MINUTE); // still waiting at the end: 10 minutes
	bot(c2, E + 5 * MINUTE); // after the period: not seen
	const c3 = await conversation(wa, U - 30 * MINUTE);
	customer(c3, U - 20 * MINUTE);
	system(c3, U + MINUTE); // 21 min, bot (System), across UTC's midnight
	const c4 = await conversation(wa, S + 3 * HOUR);
	customer(c4, S + 3 * HOUR);
	handOver(c4, S + 3 * HOUR + MINUTE, '0000000000000a01'); // 1 min, bot; the note is no reply
	customer(c4, S + 3 * HOUR + 5 * MINUTE);
	byPerson(c4, S + 3 * HOUR + 31 * MINUTE); // 26 min, person; the hand-over answered after 30 min
	const c10 = await conversation(wa, S);
	customer(c10, S); // exactly at the start: in
	bot(c10, S + 4 * MINUTE); // 4 min, bot
	customer(c10, E); // exactly at the end: out

	// Telegram
	const c5 = await conversation(tg, S + 5 * HOUR);
	customer(c5, S + 5 * HOUR);
	handOver(c5, S + 5 * HOUR + 2 * MINUTE, '0000000000000b02', '_3600'); // 2 min, bot; its own limit: 1 hour
	customer(c5, S + 5 * HOUR + 10 * MINUTE);
	byPerson(c5, S + 8 * HOUR); // 170 min, person; after the limit: the hand-over expired
	const c6 = await conversation(tg, E - 2 * HOUR);
	customer(c6, E - 2 * HOUR);
	handOver(c6, E - 2 * HOUR + MINUTE, '0000000000000c03'); // 1 min, bot; 24 hours not over at the end: open
	const c7 = await conversation(tg, S + 10 * HOUR);
	customer(c7, S + 10 * HOUR, 'Thanks!');
	bot(c7, S + 10 * HOUR + 30_000); // 0.5 min, bot
	rating(c7, S + 10 * HOUR + 2 * MINUTE, '5');
	rating(c7, S + 10 * HOUR + 3 * MINUTE, '4/5');
	rating(c7, S + 10 * HOUR + 4 * MINUTE, '★★★☆☆');
	rating(c7, S + 10 * HOUR + 5 * MINUTE, 'great'); // counted, not scored

	// Facebook (inactive): the bot's send failed, the customer waits.
	const c8 = await conversation(fb, S + 12 * HOUR);
	customer(c8, S + 12 * HOUR);
	bot(c8, S + 12 * HOUR + MINUTE, { send_state: 'failed' });

	// Email: nothing in the period.
	const c9 = await conversation(em, S - 3 * DAY);
	customer(c9, S - 3 * DAY);

	await client.control('POST', '/messages/bulk', { messages });

	const endWait = (E - (S + 12 * HOUR)) / MINUTE; // 720 on a 24-hour day
	const zero = {
		clock: 'calendar', conversationsWithActivity: 0, newConversations: 0, customerMessages: 0, botMessages: 0, personMessages: 0, failedMessages: 0,
		firstResponses: 0, botFirstResponses: 0, personFirstResponses: 0,
		firstResponseMedianMinutes: null, firstResponseP90Minutes: null, botFirstResponseMedianMinutes: null, botFirstResponseP90Minutes: null,
		personFirstResponseMedianMinutes: null, personFirstResponseP90Minutes: null, targetMinutes: 15, answeredWithinTarget: 0, answeredWithinTargetShare: null,
		waitingAtEnd: 0, longestWaitMinutes: null, handOvers: 0, handOversAnswered: 0, handOverMedianMinutesToPerson: null, handOversExpired: 0,
		ratings: 0, ratingsScored: 0, ratingMean: null,
	};
	const expected = {
		channels: {
			'Acme WhatsApp': {
				...zero, conversationsWithActivity: 5, newConversations: 4, customerMessages: 8, botMessages: 4, personMessages: 3,
				// waits: bot 3, 21, 1, 4; person 30, 26
				firstResponses: 6, botFirstResponses: 4, personFirstResponses: 2,
				firstResponseMedianMinutes: 4, firstResponseP90Minutes: 30, botFirstResponseMedianMinutes: 3, botFirstResponseP90Minutes: 21,
				personFirstResponseMedianMinutes: 26, personFirstResponseP90Minutes: 30,
				answeredWithinTarget: 3, answeredWithinTargetShare: 0.5, waitingAtEnd: 1, longestWaitMinutes: 30,
				handOvers: 1, handOversAnswered: 1, handOverMedianMinutesToPerson: 30,
			},
			'Acme Telegram': {
				...zero, conversationsWithActivity: 3, newConversations: 3, customerMessages: 4, botMessages: 3, personMessages: 1,
				// waits: bot 2, 1, 0.5; person 170
				firstResponses: 4, botFirstResponses: 3, personFirstResponses: 1,
				firstResponseMedianMinutes: 1, firstResponseP90Minutes: 170, botFirstResponseMedianMinutes: 1, botFirstResponseP90Minutes: 2,
				personFirstResponseMedianMinutes: 170, personFirstResponseP90Minutes: 170,
				answeredWithinTarget: 3, answeredWithinTargetShare: 0.75, longestWaitMinutes: 170,
				handOvers: 2, handOversExpired: 1, ratings: 4, ratingsScored: 3, ratingMean: 4,
			},
			'Old Facebook Page': {
				...zero, conversationsWithActivity: 1, newConversations: 1, customerMessages: 1, failedMessages: 1,
				answeredWithinTargetShare: 0, waitingAtEnd: 1, longestWaitMinutes: endWait,
			},
			'Support Email': { ...zero },
		},
		total: {
			...zero, conversationsWithActivity: 9, newConversations: 8, customerMessages: 13, botMessages: 7, personMessages: 4, failedMessages: 1,
			// all: 0.5, 1, 1, 2, 3, 4, 21, 26, 30, 170; bot: 0.5, 1, 1, 2, 3, 4, 21; person: 26, 30, 170
			firstResponses: 10, botFirstResponses: 7, personFirstResponses: 3,
			firstResponseMedianMinutes: 3, firstResponseP90Minutes: 30, botFirstResponseMedianMinutes: 2, botFirstResponseP90Minutes: 21,
			personFirstResponseMedianMinutes: 30, personFirstResponseP90Minutes: 170,
			// within 15 minutes: 6 of 11 decided (10 answered, and the customer waiting 720 minutes)
			answeredWithinTarget: 6, answeredWithinTargetShare: 0.5455, waitingAtEnd: 2, longestWaitMinutes: endWait,
			handOvers: 3, handOversAnswered: 1, handOverMedianMinutesToPerson: 30, handOversExpired: 1,
			ratings: 4, ratingsScored: 3, ratingMean: 4,
		},
		// Longest first.
		waiting: [
			{ conversationId: c8, channelId: fb.id, minutesWaited: endWait, sinceMs: S + 12 * HOUR },
			{ conversationId: c2, channelId: wa.id, minutesWaited: 10, sinceMs: E - 10 * MINUTE },
		],
		channelIds: { 'Acme WhatsApp': wa.id, 'Acme Telegram': tg.id, 'Old Facebook Page': fb.id, 'Support Email': em.id },
		inactive: fb.id,
	};
	addKnownBotShare(expected);
	return { appId, key, timeZone, personId: person, date, next, startMs: S, endMs: E, utcMidnight: U, period: { after: `${date}T00:00:00`, before: `${next}T00:00:00` }, expected };
}

/**
 * The known day's bot share, by hand: conversations with an answered wait,
 * and those the bot answered with no person and no hand-over in them.
 * WhatsApp: c1 (a person), c3 and c10 (the bot alone), c4 (a hand-over) got
 * an answer; c2's person message closes no wait of the period. Telegram: c5
 * and c6 (hand-overs), c7 (the bot alone). Facebook's failed send and Email:
 * none.
 */
function addKnownBotShare(expected) {
	const share = (answered, botOnly, botOnlyShare) => ({ conversationsAnswered: answered, botOnlyConversations: botOnly, botOnlyShare });
	Object.assign(expected.channels['Acme WhatsApp'], share(4, 2, 0.5));
	Object.assign(expected.channels['Acme Telegram'], share(3, 1, 0.3333));
	Object.assign(expected.channels['Old Facebook Page'], share(0, 0, null));
	Object.assign(expected.channels['Support Email'], share(0, 0, null));
	Object.assign(expected.total, share(7, 3, 0.4286));
}

const RATING_WRITINGS = ['5', '1', '4/5', '3 of 5', '2 out of 5', '4.5', '4,5', '5 stars', '★★★★☆', '⭐⭐⭐', '★★', '0', '6/10', 'great', '', '7'];
const TYPES = ['telegram', 'whatsapp', 'whatsapp_business', 'instagram', 'facebook', 'email', 'livechat'];

/**
 * A random workspace around a period [startMs, endMs): channels (one
 * inactive), people, conversations created before and in the period, and
 * messages of every kind at random times, bunched at the period's edges and
 * sometimes sharing a millisecond. Returns its key.
 */
async function randomWorkspace(sandbox, { seed, startMs, endMs, conversations = 40 }) {
	const client = sandboxClient(sandbox);
	const random = prng(seed);
	const { appId, key } = await newWorkspace(client);
	const channels = [];
	const channelCount = random.int(2, 4);
	for (let i = 0; i < channelCount; i++) channels.push(await client.control('POST', '/channels', { app_id: appId, type: random.pick(TYPES), name: `Channel ${i + 1}`, is_active: i !== 1 }));
	const people = [];
	for (let i = 0; i < 2; i++) people.push((await client.control('POST', '/users', { app_id: appId, name: `Agent ${i + 1}` })).id);
	const span = endMs - startMs;
	const now = Date.now();
	/** A time around the period, often near its edges. */
	const someTime = () => {
		const roll = random.next();
		if (roll < 0.15) return startMs + random.int(-2 * HOUR, 2 * HOUR);
		if (roll < 0.3) return endMs + random.int(-2 * HOUR, HOUR);
		return startMs + random.int(-span / 4, span + span / 8);
	};
	const messages = [];
	let sends = 0;
	for (let c = 0; c < conversations; c++) {
		const channel = random.pick(channels);
		const created = Math.min(now - DAY, someTime() - random.int(0, 3 * HOUR));
		const { id } = await client.control('POST', '/conversations', { app_id: appId, channel_id: channel.id, created_at: iso(created) });
		let at = created;
		const count = random.int(1, 14);
		const episode = () => Array.from({ length: 16 }, () => '0123456789abcdef'[random.int(0, 15)]).join('');
		for (let k = 0; k < count; k++) {
			// Gaps from nothing (the same millisecond) to hours.
			at += random.chance(0.1) ? 0 : random.chance(0.6) ? random.int(1, 20) * MINUTE : random.int(1, 6) * HOUR;
			if (at > now - MINUTE) break;
			const base = { conversation_id: id, created_at: iso(at) };
			const roll = random.next();
			if (roll < 0.4) messages.push({ ...base, from_customer: true, content: 'Question' });
			else if (roll < 0.55) messages.push({ ...base, client_request_id: `n8n_r${seed}-${++sends}`, content: 'Bot', send_state: random.chance(0.1) ? 'failed' : 'sent' });
			else if (roll < 0.62) messages.push({ ...base, as_system: true, content: 'System' });
			else if (roll < 0.8) messages.push({ ...base, from_user_id: random.pick(people), content: 'Person', send_state: random.chance(0.05) ? 'failed' : 'sent' });
			else if (roll < 0.88) messages.push({ ...base, from_customer: true, message_type: 'rating', content: random.pick(RATING_WRITINGS) });
			else {
				const limit = random.chance(0.5) ? `_${random.pick([60, 1800, 3600, 7200])}` : '';
				const mark = episode();
				// A hand-over without a message to the customer is only its note.
				const noteOnly = random.chance(0.25);
				if (!noteOnly) messages.push({ ...base, client_request_id: `n8nhandover1_m_${mark}${limit}`, content: 'Handing over' });
				if (noteOnly || random.chance(0.8)) messages.push({ ...base, created_at: iso(at + random.int(0, 2000)), as_system: true, client_request_id: `n8nhandover1_n_${mark}${limit}`, content: 'Note' });
			}
		}
	}
	if (messages.length > 0) await client.control('POST', '/messages/bulk', { messages });
	return { appId, key, channels };
}

module.exports = { knownDay, randomWorkspace, localMidnight, localDate, localDays, randomDays, offsetOf, prng };
