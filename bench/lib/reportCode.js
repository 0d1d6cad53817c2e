'use strict';
// What an experienced n8n user writes in a Code node to get the report's
// figures from Get Many's items: the definitions of docs/operations.md
// ("Reports"), over every message, conversation and channel handed to it.
// `computeReport` runs inside n8n's Code node (its source is the node's
// code), so it is self-contained: no imports, no closures.

function computeReport(messages, conversations, channels, { start, end, targetMinutes }) {
	const PREFIXES = ['n8nwait1_', 'n8nreprompt_', 'n8nhandover1_', 'n8n_'];
	const MARK = /^n8nhandover1_([mn])_([0-9a-f]{16})(?:_([1-9][0-9]{0,5}))?$/;
	const targetMs = targetMinutes * 60000;
	const time = (value) => Date.parse(value);
	const kindOf = (m) => {
		if (m.message_type === 'rating') return 'rating';
		if (m.from_customer === true) return 'customer';
		const key = m.client_request_id || '';
		const mark = MARK.exec(key);
		if (mark && mark[1] === 'n') return 'note';
		if (m.send_state === 'failed') return 'failed';
		if (!PREFIXES.some((p) => key.startsWith(p)) && m.from_user_id) return 'person';
		return 'bot';
	};
	const score = (content) => {
		const text = String(content || '').trim().replace(/\uFE0F/g, '');
		let m = /^(\d(?:[.,]\d+)?)(?:\s*(?:\/|of|out of)\s*5|\s*stars?)?$/i.exec(text);
		let s;
		if (m) s = Number(m[1].replace(',', '.'));
		else if ((m = /^([★⭐]+)(☆*)$/u.exec(text))) s = m[2].length > 0 && [...m[1]].length + [...m[2]].length !== 5 ? undefined : [...m[1]].length;
		return s >= 1 && s <= 5 ? s : undefined;
	};
	const rank = (values, p) => {
		if (values.length === 0) return null;
		const sorted = [...values].sort((a, b) => a - b);
		return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1];
	};
	const min = (ms) => (ms === null ? null : Math.round(ms / 600) / 100);
	const blank = () => ({ active: new Set(), created: 0, customer: 0, bot: 0, person: 0, failed: 0, botTimes: [], personTimes: [], within: 0, decided: 0, waiting: 0, longest: null, handOvers: 0, answered: 0, toPerson: [], expired: 0, ratings: 0, scores: [] });
	const scopes = new Map(channels.map((c) => [c.id, blank()]));
	const total = blank();
	const at = (channelId) => {
		if (!scopes.has(channelId)) scopes.set(channelId, blank());
		return [scopes.get(channelId), total];
	};
	for (const c of conversations) if (time(c.created_at) >= start && time(c.created_at) < end) for (const f of at(c.channel_id)) f.created++;
	const byConversation = new Map();
	for (const m of messages) {
		const t = time(m.created_at);
		if (t < start || t >= end) continue;
		if (!byConversation.has(m.conversation_id)) byConversation.set(m.conversation_id, []);
		byConversation.get(m.conversation_id).push(m);
	}
	for (const [id, list] of byConversation) {
		list.sort((a, b) => time(a.created_at) - time(b.created_at) || (a.id < b.id ? -1 : 1));
		let open = null;
		const handOvers = new Map();
		for (const m of list) {
			const t = time(m.created_at);
			const kind = kindOf(m);
			const fs = at(m.channel_id);
			if (kind !== 'note') for (const f of fs) f.active.add(id);
			const mark = MARK.exec(m.client_request_id || '');
			if (mark && m.from_customer !== true) {
				const h = handOvers.get(mark[2]) || { first: m };
				if (mark[3]) h.limit = Number(mark[3]) * 1000;
				handOvers.set(mark[2], h);
			}
			if (kind === 'customer') {
				for (const f of fs) f.customer++;
				if (!open) open = m;
			} else if (kind === 'rating') {
				const s = score(m.content);
				for (const f of fs) {
					f.ratings++;
					if (s !== undefined) f.scores.push(s);
				}
			} else if (kind === 'failed') for (const f of fs) f.failed++;
			else if (kind === 'bot' || kind === 'person') {
				for (const f of fs) f[kind]++;
				if (open) {
					const r = t - time(open.created_at);
					for (const f of fs) {
						f[kind === 'bot' ? 'botTimes' : 'personTimes'].push(r);
						f.decided++;
						if (r <= targetMs) f.within++;
						f.longest = Math.max(f.longest || 0, r);
					}
					open = null;
				}
			}
		}
		if (open) {
			const w = end - time(open.created_at);
			for (const f of at(open.channel_id)) {
				f.waiting++;
				if (w > targetMs) f.decided++;
				f.longest = Math.max(f.longest || 0, w);
			}
		}
		for (const h of handOvers.values()) {
			const sent = time(h.first.created_at);
			const until = sent + (h.limit || 86400000);
			const person = list.find((m) => (time(m.created_at) > sent || (m.created_at === h.first.created_at && m.id > h.first.id)) && kindOf(m) === 'person');
			for (const f of at(h.first.channel_id)) {
				f.handOvers++;
				if (person && time(person.created_at) < until) {
					f.answered++;
					f.toPerson.push(time(person.created_at) - sent);
				} else if (until <= end) f.expired++;
			}
		}
	}
	const figures = (f) => {
		const all = [...f.botTimes, ...f.personTimes];
		return {
			conversationsWithActivity: f.active.size,
			newConversations: f.created,
			customerMessages: f.customer,
			botMessages: f.bot,
			personMessages: f.person,
			failedMessages: f.failed,
			firstResponses: all.length,
			botFirstResponses: f.botTimes.length,
			personFirstResponses: f.personTimes.length,
			firstResponseMedianMinutes: min(rank(all, 0.5)),
			firstResponseP90Minutes: min(rank(all, 0.9)),
			botFirstResponseMedianMinutes: min(rank(f.botTimes, 0.5)),
			botFirstResponseP90Minutes: min(rank(f.botTimes, 0.9)),
			personFirstResponseMedianMinutes: min(rank(f.personTimes, 0.5)),
			personFirstResponseP90Minutes: min(rank(f.personTimes, 0.9)),
			targetMinutes,
			answeredWithinTarget: f.within,
			answeredWithinTargetShare: f.decided === 0 ? null : Math.round((f.within / f.decided) * 10000) / 10000,
			waitingAtEnd: f.waiting,
			longestWaitMinutes: min(f.longest),
			handOvers: f.handOvers,
			handOversAnswered: f.answered,
			handOverMedianMinutesToPerson: min(rank(f.toPerson, 0.5)),
			handOversExpired: f.expired,
			ratings: f.ratings,
			ratingsScored: f.scores.length,
			ratingMean: f.scores.length === 0 ? null : Math.round((f.scores.reduce((a, b) => a + b, 0) / f.scores.length) * 100) / 100,
		};
	};
	return [...[...scopes].map(([channelId, f]) => ({ scope: 'channel', channelId, ...figures(f) })), { scope: 'total', channelId: null, ...figures(total) }];
}

/** The Code node's code: the function, then its call on the flow's items. */
function codeNodeSource({ start, end, targetMinutes }) {
	return [
		computeReport.toString(),
		"const messages = $('Messages').all().map((item) => item.json);",
		"const conversations = $('Conversations').all().map((item) => item.json);",
		"const channels = $('Channels').all().map((item) => item.json);",
		`return computeReport(messages, conversations, channels, ${JSON.stringify({ start, end, targetMinutes })}).map((json) => ({ json }));`,
	].join('\n');
}

module.exports = { computeReport, codeNodeSource };
