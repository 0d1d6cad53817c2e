'use strict';
// A reference for Report > Get, written from the definitions in
// docs/operations.md ("Reports") alone, without the node's code: it takes
// every message, conversation and channel of the workspace (read whole) and
// goes through each conversation's messages of the period forwards in time.
// The operation reads backwards, page by page; the two must agree.

const PACKAGE_PREFIXES = ['n8nwait1_', 'n8nreprompt_', 'n8nhandover1_', 'n8n_'];
const MARK = /^n8nhandover1_([mn])_([0-9a-f]{16})(?:_([1-9][0-9]{0,5}))?$/;
const DEFAULT_LIMIT_MS = 24 * 3600_000;
const WAITING_LISTED = 100;

/** Definitions: "Who wrote a message". */
function kindOf(message) {
	if (message.message_type === 'rating') return 'rating';
	if (message.from_customer === true) return 'customer';
	const key = typeof message.client_request_id === 'string' ? message.client_request_id : '';
	const mark = MARK.exec(key);
	if (mark && mark[1] === 'n') return 'note';
	if (message.send_state === 'failed') return 'failed';
	const ours = PACKAGE_PREFIXES.some((prefix) => key.startsWith(prefix));
	if (!ours && typeof message.from_user_id === 'string' && message.from_user_id !== '') return 'person';
	return 'bot';
}

/** Definitions: "Ratings", the accepted writings on a scale of 1 to 5. */
function scoreOf(content) {
	if (typeof content !== 'string') return undefined;
	const text = content.trim().replace(/\uFE0F/g, '');
	let match = /^(\d(?:[.,]\d+)?)(?:\s*(?:\/|of|out of)\s*5|\s*stars?)?$/i.exec(text);
	let score;
	if (match) score = Number(match[1].replace(',', '.'));
	else if ((match = /^([★⭐]+)(☆*)$/u.exec(text))) {
		const filled = [...match[1]].length;
		const empty = [...match[2]].length;
		score = empty > 0 && filled + empty !== 5 ? undefined : filled;
	}
	return score !== undefined && score >= 1 && score <= 5 ? score : undefined;
}

/** Nearest rank: the value at rank ceil(p × n) of the ascending list. */
function percentile(values, p) {
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1];
}

const minutes = (ms) => (ms === null ? null : Math.round(ms / 600) / 100);

/** Response times by whom answered: counts, median and p90 of all, the bot's and people's (the docs' "first response" figures of either definition). */
function responseFigures(bot, person) {
	const all = [...bot, ...person];
	return {
		firstResponses: all.length,
		botFirstResponses: bot.length,
		personFirstResponses: person.length,
		firstResponseMedianMinutes: minutes(percentile(all, 0.5)),
		firstResponseP90Minutes: minutes(percentile(all, 0.9)),
		botFirstResponseMedianMinutes: minutes(percentile(bot, 0.5)),
		botFirstResponseP90Minutes: minutes(percentile(bot, 0.9)),
		personFirstResponseMedianMinutes: minutes(percentile(person, 0.5)),
		personFirstResponseP90Minutes: minutes(percentile(person, 0.9)),
	};
}
const share = (part, whole, digits) => (whole === 0 ? null : Math.round((part / whole) * 10 ** digits) / 10 ** digits);
const time = (value) => Date.parse(value);
const chronological = (a, b) => time(a.created_at) - time(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The bucket an instant is in: its local date, or its local hour with the offset (an hour the clock repeats is two). */
function bucketKey(ms, unit, timeZone) {
	const parts = Object.fromEntries(
		new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', timeZoneName: 'longOffset' })
			.formatToParts(new Date(ms))
			.map((part) => [part.type, part.value]),
	);
	const date = `${parts.year}-${parts.month}-${parts.day}`;
	if (unit === 'day') return date;
	const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.replace('GMT', '');
	return `${date}T${parts.hour}${offset}`;
}

/** The same key from a bucket item's periodStart (ISO with its offset). */
const keyOfItem = (item, unit) => (unit === 'day' ? item.periodStart.slice(0, 10) : `${item.periodStart.slice(0, 13)}${item.periodStart.slice(-6)}`);

function emptyFigures() {
	return {
		conversations: new Set(),
		newConversations: 0,
		customerMessages: 0,
		botMessages: 0,
		personMessages: 0,
		failedMessages: 0,
		bot: [],
		person: [],
		within: 0,
		decided: 0,
		waitingAtEnd: 0,
		longest: null,
		handOvers: 0,
		handOversAnswered: 0,
		toPerson: [],
		handOversExpired: 0,
		ratings: 0,
		scores: [],
	};
}

function figuresOf(f, targetMinutes) {
	return {
		conversationsWithActivity: f.conversations.size,
		newConversations: f.newConversations,
		customerMessages: f.customerMessages,
		botMessages: f.botMessages,
		personMessages: f.personMessages,
		failedMessages: f.failedMessages,
		...responseFigures(f.bot, f.person),
		targetMinutes,
		answeredWithinTarget: f.within,
		answeredWithinTargetShare: share(f.within, f.decided, 4),
		waitingAtEnd: f.waitingAtEnd,
		longestWaitMinutes: minutes(f.longest),
		handOvers: f.handOvers,
		handOversAnswered: f.handOversAnswered,
		handOverMedianMinutesToPerson: minutes(percentile(f.toPerson, 0.5)),
		handOversExpired: f.handOversExpired,
		ratings: f.ratings,
		ratingsScored: f.scores.length,
		ratingMean: f.scores.length === 0 ? null : Math.round((f.scores.reduce((a, b) => a + b, 0) / f.scores.length) * 100) / 100,
	};
}

/**
 * The report's figures from the whole workspace.
 * @param {{ messages: object[], conversations: object[], channels: object[] }} workspace
 * @param {{ start: number, end: number, timeZone: string, targetMinutes?: number, channelTypes?: string[], groupBy?: 'none'|'day'|'hour' }} period
 * @returns {{ channels: Map<string, object>, total: object, waiting: object[], buckets: Map<string, object> }}
 */
function referenceReport({ messages, conversations, channels }, { start, end, timeZone, targetMinutes = 15, channelTypes, groupBy = 'none', duration = (from, to) => to - from }) {
	const targetMs = targetMinutes * 60_000;
	const wanted = (type) => !channelTypes || channelTypes.length === 0 || channelTypes.includes(type);
	const scopes = { total: emptyFigures(), channels: new Map(), buckets: new Map() };
	for (const channel of channels) if (wanted(channel.type)) scopes.channels.set(channel.id, emptyFigures());
	const channelOf = new Map(conversations.map((c) => [c.id, c.channel_id]));
	const customerOf = new Map(conversations.map((c) => [c.id, c.customer_id]));
	const unit = groupBy === 'none' ? undefined : groupBy;
	/** Every figure an event adds to: its channel, the total, its bucket. */
	const at = (channelId, ms) => {
		if (!scopes.channels.has(channelId)) scopes.channels.set(channelId, emptyFigures());
		const list = [scopes.channels.get(channelId), scopes.total];
		if (unit) {
			const key = bucketKey(ms, unit, timeZone);
			if (!scopes.buckets.has(key)) scopes.buckets.set(key, emptyFigures());
			list.push(scopes.buckets.get(key));
		}
		return list;
	};
	const inPeriod = (ms) => ms >= start && ms < end;

	// New conversations.
	for (const conversation of conversations) {
		if (wanted(conversation.channel) && inPeriod(time(conversation.created_at))) {
			for (const f of at(conversation.channel_id, time(conversation.created_at))) f.newConversations++;
		}
	}

	// The period's messages, per conversation, forwards.
	const byConversation = new Map();
	for (const message of messages) {
		if (!wanted(message.channel) || !inPeriod(time(message.created_at))) continue;
		if (!byConversation.has(message.conversation_id)) byConversation.set(message.conversation_id, []);
		byConversation.get(message.conversation_id).push(message);
	}
	const waiting = [];
	for (const [conversationId, list] of byConversation) {
		list.sort(chronological);
		let open = null;
		const handOvers = new Map();
		for (const message of list) {
			const ms = time(message.created_at);
			const kind = kindOf(message);
			const channelId = message.channel_id;
			if (kind !== 'note') for (const f of at(channelId, ms)) f.conversations.add(conversationId);
			const mark = MARK.exec(message.client_request_id ?? '');
			if (mark && message.from_customer !== true) {
				const handOver = handOvers.get(mark[2]) ?? { first: message, limitMs: undefined };
				if (mark[3] !== undefined) handOver.limitMs = Number(mark[3]) * 1000;
				handOvers.set(mark[2], handOver);
			}
			if (kind === 'customer') {
				for (const f of at(channelId, ms)) f.customerMessages++;
				if (!open) open = message;
			} else if (kind === 'rating') {
				const score = scoreOf(message.content);
				for (const f of at(channelId, ms)) {
					f.ratings++;
					if (score !== undefined) f.scores.push(score);
				}
			} else if (kind === 'failed') {
				for (const f of at(channelId, ms)) f.failedMessages++;
			} else if (kind === 'bot' || kind === 'person') {
				for (const f of at(channelId, ms)) f[kind === 'bot' ? 'botMessages' : 'personMessages']++;
				if (open) {
					const opened = time(open.created_at);
					const response = duration(opened, ms);
					for (const f of at(channelOf.get(conversationId) ?? channelId, opened)) {
						f[kind].push(response);
						f.decided++;
						if (response <= targetMs) f.within++;
						f.longest = Math.max(f.longest ?? 0, response);
					}
					open = null;
				}
			}
		}
		if (open) {
			const opened = time(open.created_at);
			const waited = duration(opened, end);
			for (const f of at(open.channel_id, opened)) {
				f.waitingAtEnd++;
				if (waited > targetMs) f.decided++;
				f.longest = Math.max(f.longest ?? 0, waited);
			}
			waiting.push({ conversationId, channelId: open.channel_id, customerId: customerOf.get(conversationId) ?? null, sinceMs: opened, minutesWaited: minutes(waited) });
		}
		for (const { first, limitMs } of handOvers.values()) {
			const sent = time(first.created_at);
			const until = sent + (limitMs ?? DEFAULT_LIMIT_MS);
			const person = list.find((message) => chronological(message, first) > 0 && kindOf(message) === 'person');
			for (const f of at(first.channel_id, sent)) {
				f.handOvers++;
				if (person && time(person.created_at) < until) {
					f.handOversAnswered++;
					f.toPerson.push(duration(sent, time(person.created_at)));
				} else if (until <= end) f.handOversExpired++;
			}
		}
	}
	waiting.sort((a, b) => a.sinceMs - b.sinceMs);
	return {
		channels: new Map([...scopes.channels].map(([id, f]) => [id, figuresOf(f, targetMinutes)])),
		total: figuresOf(scopes.total, targetMinutes),
		waiting: waiting.slice(0, WAITING_LISTED),
		buckets: new Map([...scopes.buckets].map(([key, f]) => [key, figuresOf(f, targetMinutes)])),
	};
}

const FIGURES = Object.keys(figuresOf(emptyFigures(), 0));

/**
 * Definitions: "Business hours". The schedule: parts separated by ";" or a
 * new line, each its weekdays (Mon to Sun or their full names; a range
 * "Mon-Fri", a list "Mon, Wed") then its intervals "HH:MM-HH:MM" separated by
 * ","; closed dates YYYY-MM-DD. An instant is open when its wall clock in
 * the zone (date, time of day) is inside an interval of its weekday and its
 * date is not closed. Returns the open ms between two instants, summed
 * minute by minute (offsets and interval edges are whole minutes).
 */
function referenceBusinessClock(schedule, closedDates, timeZone) {
	const names = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
	const dayIndex = (word) => names.indexOf(word.trim().toLowerCase().slice(0, 3));
	const open = names.map(() => []);
	for (const part of schedule.split(/;|\n/)) {
		if (part.trim() === '') continue;
		const [, daysText, intervalsText] = /^([^0-9]+?)\s*([0-9].*)$/.exec(part.trim());
		const days = [];
		for (const item of daysText.replace(/,\s*$/, '').split(',')) {
			const [a, b = a] = item.split('-').map(dayIndex);
			for (let d = a; ; d = (d + 1) % 7) {
				days.push(d);
				if (d === b) break;
			}
		}
		for (const interval of intervalsText.split(',')) {
			const [from, to] = interval.trim().split('-').map((t) => Number(t.trim().slice(0, 2)) * 60 + Number(t.trim().slice(3, 5)));
			for (const d of days) open[d].push([from, to]);
		}
	}
	const closed = new Set(String(closedDates ?? '').split(/[,;\s]+/).filter((d) => d !== ''));
	const format = new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', weekday: 'short', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
	const cache = new Map();
	const isOpen = (minuteMs) => {
		if (cache.has(minuteMs)) return cache.get(minuteMs);
		const p = Object.fromEntries(format.formatToParts(new Date(minuteMs)).map((part) => [part.type, part.value]));
		const minuteOfDay = Number(p.hour) * 60 + Number(p.minute);
		const result = !closed.has(`${p.year}-${p.month}-${p.day}`) && open[dayIndex(p.weekday)].some(([from, to]) => minuteOfDay >= from && minuteOfDay < to);
		cache.set(minuteMs, result);
		return result;
	};
	return (from, to) => {
		let sum = 0;
		for (let minute = Math.floor(from / 60_000) * 60_000; minute < to; minute += 60_000) {
			if (isOpen(minute)) sum += Math.min(to, minute + 60_000) - Math.max(from, minute);
		}
		return sum;
	};
}

/** Definitions: "Business hours": the fields whose values depend on the clock; with Business Hours each is also given by the calendar, as calendar + its name. */
const CLOCK_DEPENDENT = [
	'firstResponseMedianMinutes', 'firstResponseP90Minutes', 'botFirstResponseMedianMinutes', 'botFirstResponseP90Minutes',
	'personFirstResponseMedianMinutes', 'personFirstResponseP90Minutes', 'answeredWithinTarget', 'answeredWithinTargetShare',
	'longestWaitMinutes', 'handOverMedianMinutesToPerson',
];
const calendarName = (field) => `calendar${field[0].toUpperCase()}${field.slice(1)}`;

/**
 * The report with its clock: without `businessHours` the calendar's
 * (clock "calendar"); with it, every duration in open time (clock
 * "businessHours") and the clock-dependent figures by the calendar beside.
 * @param {object} workspace as for referenceReport
 * @param {object} period as for referenceReport, plus businessHours and closedDates (the options' texts)
 */
function referenceReportWithClock(workspace, period) {
	const calendar = referenceReport(workspace, period);
	if (!period.businessHours) {
		const withClock = (figures) => ({ clock: 'calendar', ...figures });
		return { ...calendar, channels: new Map([...calendar.channels].map(([id, f]) => [id, withClock(f)])), total: withClock(calendar.total), buckets: new Map([...calendar.buckets].map(([key, f]) => [key, withClock(f)])) };
	}
	const duration = referenceBusinessClock(period.businessHours, period.closedDates, period.timeZone);
	const business = referenceReport(workspace, { ...period, duration });
	const merge = (own, cal) => ({ clock: 'businessHours', ...own, ...Object.fromEntries(CLOCK_DEPENDENT.map((field) => [calendarName(field), cal[field]])) });
	const calendarWaits = new Map(calendar.waiting.map((entry) => [entry.conversationId, entry.minutesWaited]));
	return {
		channels: new Map([...business.channels].map(([id, f]) => [id, merge(f, calendar.channels.get(id))])),
		total: merge(business.total, calendar.total),
		waiting: business.waiting.map((entry) => ({ ...entry, calendarMinutesWaited: calendarWaits.get(entry.conversationId) })),
		buckets: new Map([...business.buckets].map(([key, f]) => [key, merge(f, calendar.buckets.get(key))])),
	};
}

/**
 * Definitions: "First response and reply time" (node version 1.1): per
 * conversation created in the period, its first customer message (if that
 * is before the period, or at or after its end, the conversation has no
 * first response of the period) to the first bot or person message after it
 * in the period: answered, by whom, how long; or awaiting an answer at the
 * end, having waited until the end. Counted in the conversation's channel
 * and the bucket of the first customer message.
 */
function referenceFirstResponses({ messages, conversations, channels }, { start, end, timeZone, firstResponseTargetMinutes = 15, channelTypes, groupBy = 'none', duration = (from, to) => to - from }) {
	const targetMs = firstResponseTargetMinutes * 60_000;
	const wanted = (type) => !channelTypes || channelTypes.length === 0 || channelTypes.includes(type);
	const blank = () => ({ bot: [], person: [], within: 0, decided: 0, awaiting: 0 });
	const scopes = { total: blank(), channels: new Map(), buckets: new Map() };
	for (const channel of channels) if (wanted(channel.type)) scopes.channels.set(channel.id, blank());
	const scopesAt = (channelId, ms) => {
		if (!scopes.channels.has(channelId)) scopes.channels.set(channelId, blank());
		const list = [scopes.channels.get(channelId), scopes.total];
		if (groupBy !== 'none') {
			const key = bucketKey(ms, groupBy, timeZone);
			if (!scopes.buckets.has(key)) scopes.buckets.set(key, blank());
			list.push(scopes.buckets.get(key));
		}
		return list;
	};
	for (const conversation of conversations) {
		const created = time(conversation.created_at);
		if (!wanted(conversation.channel) || created < start || created >= end) continue;
		const own = messages.filter((m) => m.conversation_id === conversation.id).sort(chronological);
		const index = own.findIndex((m) => kindOf(m) === 'customer');
		if (index < 0) continue;
		const first = time(own[index].created_at);
		if (first < start || first >= end) continue;
		const answer = own.slice(index + 1).find((m) => (kindOf(m) === 'bot' || kindOf(m) === 'person') && time(m.created_at) < end);
		for (const f of scopesAt(conversation.channel_id, first)) {
			if (answer) {
				const took = duration(first, time(answer.created_at));
				f[kindOf(answer)].push(took);
				f.decided++;
				if (took <= targetMs) f.within++;
			} else {
				f.awaiting++;
				if (duration(first, end) > targetMs) f.decided++;
			}
		}
	}
	const figures = (f) => {
		return {
			...responseFigures(f.bot, f.person),
			firstResponseTargetMinutes,
			firstResponsesWithinTarget: f.within,
			firstResponsesWithinTargetShare: share(f.within, f.decided, 4),
			awaitingFirstResponse: f.awaiting,
		};
	};
	return {
		channels: new Map([...scopes.channels].map(([id, f]) => [id, figures(f)])),
		total: figures(scopes.total),
		buckets: new Map([...scopes.buckets].map(([key, f]) => [key, figures(f)])),
		empty: figures(blank()),
	};
}

/** Definitions: "First response and reply time": version 1's per-wait fields and their version 1.1 names (reply time). */
const REPLY_FIELDS = {
	firstResponses: 'waitsAnswered', botFirstResponses: 'botWaitsAnswered', personFirstResponses: 'personWaitsAnswered',
	firstResponseMedianMinutes: 'replyTimeMedianMinutes', firstResponseP90Minutes: 'replyTimeP90Minutes',
	botFirstResponseMedianMinutes: 'botReplyTimeMedianMinutes', botFirstResponseP90Minutes: 'botReplyTimeP90Minutes',
	personFirstResponseMedianMinutes: 'personReplyTimeMedianMinutes', personFirstResponseP90Minutes: 'personReplyTimeP90Minutes',
	targetMinutes: 'replyTargetMinutes', answeredWithinTarget: 'repliedWithinTarget', answeredWithinTargetShare: 'repliedWithinTargetShare',
};
/** Version 1.1's fields that depend on the clock. */
const CLOCK_DEPENDENT_V11 = [
	'firstResponseMedianMinutes', 'firstResponseP90Minutes', 'botFirstResponseMedianMinutes', 'botFirstResponseP90Minutes',
	'personFirstResponseMedianMinutes', 'personFirstResponseP90Minutes', 'firstResponsesWithinTarget', 'firstResponsesWithinTargetShare',
	'replyTimeMedianMinutes', 'replyTimeP90Minutes', 'botReplyTimeMedianMinutes', 'botReplyTimeP90Minutes',
	'personReplyTimeMedianMinutes', 'personReplyTimeP90Minutes', 'repliedWithinTarget', 'repliedWithinTargetShare',
	'longestWaitMinutes', 'handOverMedianMinutesToPerson',
];

/**
 * The report of node version 1.1: version 1's per-wait figures under their
 * reply-time names (with `replyTargetMinutes` as the waits' target), the
 * first responses of referenceFirstResponses, and the clock as
 * referenceReportWithClock gives it.
 * @param {object} period as for referenceReportWithClock, plus replyTargetMinutes and firstResponseTargetMinutes
 */
function referenceReportV11(workspace, period) {
	const waits = { ...period, targetMinutes: period.replyTargetMinutes ?? 15 };
	const convert = (perWait, first) => {
		const out = {};
		for (const [field, value] of Object.entries(perWait)) {
			if (REPLY_FIELDS[field]) out[REPLY_FIELDS[field]] = value;
			else if (!field.startsWith('calendar')) out[field] = value;
		}
		return { ...out, ...first };
	};
	const build = (duration) => {
		const report = referenceReport(workspace, { ...waits, duration });
		const first = referenceFirstResponses(workspace, { ...period, duration });
		const pick = (map, firstMap) => new Map([...map].map(([key, f]) => [key, convert(f, firstMap.get(key) ?? first.empty)]));
		// A bucket or channel with first responses but no other figure is not expected (each first customer message is a message of its scope).
		return { channels: pick(report.channels, first.channels), total: convert(report.total, first.total), buckets: pick(report.buckets, first.buckets), waiting: report.waiting };
	};
	const calendar = build(undefined);
	if (!period.businessHours) {
		const withClock = (f) => ({ clock: 'calendar', ...f });
		return { ...calendar, channels: new Map([...calendar.channels].map(([id, f]) => [id, withClock(f)])), total: withClock(calendar.total), buckets: new Map([...calendar.buckets].map(([key, f]) => [key, withClock(f)])) };
	}
	const business = build(referenceBusinessClock(period.businessHours, period.closedDates, period.timeZone));
	const merge = (own, cal) => ({ clock: 'businessHours', ...own, ...Object.fromEntries(CLOCK_DEPENDENT_V11.map((field) => [calendarName(field), cal[field]])) });
	const calendarWaits = new Map(calendar.waiting.map((entry) => [entry.conversationId, entry.minutesWaited]));
	return {
		channels: new Map([...business.channels].map(([id, f]) => [id, merge(f, calendar.channels.get(id))])),
		total: merge(business.total, calendar.total),
		waiting: business.waiting.map((entry) => ({ ...entry, calendarMinutesWaited: calendarWaits.get(entry.conversationId) })),
		buckets: new Map([...business.buckets].map(([key, f]) => [key, merge(f, calendar.buckets.get(key))])),
	};
}

/**
 * Definitions: "Compare with a previous period": the report of the
 * previous window by the same definitions; on each channel item and the
 * total, for every figure that is a number or null (not the targets), the
 * previous value as previous + its name and the change (current − previous,
 * rounded to 4 decimals; null when either is null) as change + its name.
 * @param {(period: object) => object} reportOf the reference for one window (referenceReportWithClock or referenceReportV11, bound to the workspace)
 * @param {object} period the current window's period
 * @param {{ kind: string, start: number, end: number }} previous the previous window
 */
function referenceComparison(reportOf, period, previous) {
	const current = reportOf(period);
	const before = reportOf({ ...period, start: previous.start, end: previous.end });
	// The figures of a scope without activity: the report of an empty window's total.
	const quiet = reportOf({ ...period, start: 0, end: 0, groupBy: 'none' }).total;
	const capital = (field) => field[0].toUpperCase() + field.slice(1);
	const withPrevious = (now, then) => {
		const out = { ...now, comparedWith: previous.kind };
		for (const [field, value] of Object.entries(now)) {
			if (field === 'clock' || /^targetMinutes$|TargetMinutes$/.test(field)) continue;
			const old = then ? then[field] : null;
			out[`previous${capital(field)}`] = old;
			out[`change${capital(field)}`] = typeof value === 'number' && typeof old === 'number' ? Math.round((value - old) * 10_000) / 10_000 : null;
		}
		return out;
	};
	// Buckets by position: the k-th day or hour of this window against the k-th of the previous one (none: nothing to compare).
	const keysOf = (start, end) => {
		const keys = [];
		if (period.groupBy === 'none' || !period.groupBy) return keys;
		for (let at = start; at < end; at += 60_000) {
			const key = bucketKey(at, period.groupBy, period.timeZone);
			if (keys[keys.length - 1] !== key) keys.push(key);
		}
		return keys;
	};
	const previousKeys = keysOf(previous.start, previous.end);
	const buckets = new Map(
		keysOf(period.start, period.end).map((key, index) => {
			const earlier = previousKeys[index];
			return [key, withPrevious(current.buckets.get(key) ?? quiet, earlier === undefined ? undefined : (before.buckets.get(earlier) ?? quiet))];
		}),
	);
	return {
		...current,
		channels: new Map([...current.channels].map(([id, f]) => [id, withPrevious(f, before.channels.get(id))])),
		total: withPrevious(current.total, before.total),
		buckets,
	};
}

/** The figures of an output item, without its scope and period fields: every figure of FIGURES and those the reference adds (`extra`). */
const figuresOfItem = (item, extra = []) => Object.fromEntries([...FIGURES, ...extra].map((field) => [field, item[field]]));

/**
 * Compares the operation's items with the reference: the same channels, the
 * same figures everywhere, the same waiting list (order and content), and
 * every bucket with activity the reference saw (the others all zero).
 * Returns a list of differences (empty when they agree).
 */
function compareWithReference(items, reference, groupBy = 'none') {
	const differences = [];
	const same = (what, actual, expected) => {
		if (JSON.stringify(actual) !== JSON.stringify(expected)) differences.push({ what, actual, expected });
	};
	const extra = Object.keys(reference.total).filter((field) => !FIGURES.includes(field));
	const channelItems = items.filter((item) => item.scope === 'channel');
	same('channel ids', channelItems.map((item) => item.channelId).sort(), [...reference.channels.keys()].sort());
	for (const item of channelItems) same(`channel ${item.channelId}`, figuresOfItem(item, extra), reference.channels.has(item.channelId) ? figuresOfItem(reference.channels.get(item.channelId), extra) : undefined);
	const [total] = items.filter((item) => item.scope === 'total');
	same('total', figuresOfItem(total, extra), figuresOfItem(reference.total, extra));
	same(
		'waiting',
		total.waiting.map((entry) => [entry.conversationId, entry.channelId, entry.customerId, Date.parse(entry.since), entry.minutesWaited, entry.calendarMinutesWaited]),
		reference.waiting.map((entry) => [entry.conversationId, entry.channelId, entry.customerId, entry.sinceMs, entry.minutesWaited, entry.calendarMinutesWaited]),
	);
	if (groupBy !== 'none') {
		const zero = figuresOfItem(Object.fromEntries([...FIGURES, ...extra].map((field) => [field, 0])), extra);
		const bucketItems = items.filter((item) => item.scope === groupBy);
		const keys = new Set(bucketItems.map((item) => keyOfItem(item, groupBy)));
		for (const key of reference.buckets.keys()) if (!keys.has(key)) differences.push({ what: `bucket ${key} missing` });
		for (const item of bucketItems) {
			const expected = reference.buckets.get(keyOfItem(item, groupBy));
			if (expected) same(`bucket ${keyOfItem(item, groupBy)}`, figuresOfItem(item, extra), figuresOfItem(expected, extra));
			else {
				const quiet = figuresOfItem(item, extra);
				const nonzero = Object.entries(quiet).filter(([field, value]) => value !== null && value !== undefined && value !== 0 && !/^targetMinutes$|TargetMinutes$/.test(field) && field !== 'clock');
				if (nonzero.length > 0) differences.push({ what: `bucket ${keyOfItem(item, groupBy)} should be empty`, actual: Object.fromEntries(nonzero), expected: zero });
			}
		}
	}
	return differences;
}


// Issue 52's figures, from the same definitions ("Reports": the bot's own
// share, people, conversations), each in a function of its own.

/** A person's id when the message is a person's: a `person` message, or a failed send attributed to a user (not a send of the package). */
function personOf(message) {
	const kind = kindOf(message);
	if (kind === 'person') return message.from_user_id;
	if (kind !== 'failed') return undefined;
	const key = typeof message.client_request_id === 'string' ? message.client_request_id : '';
	const ours = PACKAGE_PREFIXES.some((prefix) => key.startsWith(prefix));
	return !ours && typeof message.from_user_id === 'string' && message.from_user_id !== '' ? message.from_user_id : undefined;
}

/**
 * Each conversation with activity in the period, read forwards: its waits
 * (start, reply, by whom), its hand-overs (first send, outcome, the person
 * who took it) and its counts.
 */
function conversationFacts({ messages, conversations, channels }, { start, end, channelTypes }) {
	const wanted = (type) => !channelTypes || channelTypes.length === 0 || channelTypes.includes(type);
	const inPeriod = (ms) => ms >= start && ms < end;
	const conversation = new Map(conversations.map((c) => [c.id, c]));
	const channelNames = new Map(channels.filter((ch) => wanted(ch.type)).map((ch) => [ch.id, ch.name ?? '']));
	const byConversation = new Map();
	for (const message of messages) {
		if (!wanted(message.channel) || !inPeriod(time(message.created_at))) continue;
		if (!byConversation.has(message.conversation_id)) byConversation.set(message.conversation_id, []);
		byConversation.get(message.conversation_id).push(message);
	}
	const facts = [];
	for (const [id, list] of byConversation) {
		list.sort(chronological);
		const active = list.filter((message) => kindOf(message) !== 'note');
		if (active.length === 0) continue;
		const waits = [];
		let open = null;
		for (const message of list) {
			const kind = kindOf(message);
			if (kind === 'customer' && !open) open = message;
			if ((kind === 'bot' || kind === 'person') && open) {
				waits.push({ start: time(open.created_at), reply: time(message.created_at), by: kind, personId: kind === 'person' ? message.from_user_id : undefined });
				open = null;
			}
		}
		if (open) waits.push({ start: time(open.created_at), reply: null });
		const episodes = new Map();
		for (const message of list) {
			const mark = MARK.exec(message.client_request_id ?? '');
			if (!mark || message.from_customer === true) continue;
			const episode = episodes.get(mark[2]) ?? { episode: mark[2], first: message, limitMs: undefined };
			if (mark[3] !== undefined) episode.limitMs = Number(mark[3]) * 1000;
			episodes.set(mark[2], episode);
		}
		const handOvers = [...episodes.values()].map(({ episode, first, limitMs }) => {
			const sent = time(first.created_at);
			const until = sent + (limitMs ?? DEFAULT_LIMIT_MS);
			const person = list.find((message) => chronological(message, first) > 0 && kindOf(message) === 'person');
			if (person && time(person.created_at) < until) return { episode, sent, outcome: 'answered', personId: person.from_user_id, personMs: time(person.created_at) };
			return { episode, sent, outcome: until <= end ? 'expired' : 'open' };
		});
		const count = (kind) => list.filter((message) => kindOf(message) === kind).length;
		const personWrote = list.some((message) => personOf(message) !== undefined);
		const answered = waits.filter((wait) => wait.reply !== null);
		const first = active[0];
		facts.push({
			id,
			list,
			channelId: conversation.get(id)?.channel_id ?? first.channel_id,
			channelType: first.channel,
			channelName: channelNames.get(conversation.get(id)?.channel_id ?? first.channel_id) ?? '',
			customerId: conversation.get(id)?.customer_id ?? null,
			firstMs: time(first.created_at),
			lastMs: time(active[active.length - 1].created_at),
			waits,
			answered,
			handOvers,
			counts: { customer: count('customer'), bot: count('bot'), person: count('person'), failed: count('failed'), rating: count('rating') },
			botOnly: answered.length > 0 && !personWrote && handOvers.length === 0,
		});
	}
	return facts;
}

/**
 * The bot's own share: per channel, in total and per bucket (by its first
 * answered wait's start), the conversations that got an answer and those the
 * bot answered alone.
 * @returns {{ channels: Map<string, object>, total: object, buckets: Map<string, object> }}
 */
function referenceBotShare(workspace, { start, end, timeZone, channelTypes, groupBy = 'none' }) {
	const of = (answered, botOnly) => ({ conversationsAnswered: answered, botOnlyConversations: botOnly, botOnlyShare: share(botOnly, answered, 4) });
	const tally = new Map();
	const add = (key, fact) => {
		const [answered, alone] = tally.get(key) ?? [0, 0];
		tally.set(key, [answered + 1, alone + (fact.botOnly ? 1 : 0)]);
	};
	for (const fact of conversationFacts(workspace, { start, end, channelTypes })) {
		if (fact.answered.length === 0) continue;
		add(`channel ${fact.channelId}`, fact);
		add('total', fact);
		if (groupBy === 'day' || groupBy === 'hour') add(`bucket ${bucketKey(fact.answered[0].start, groupBy, timeZone)}`, fact);
	}
	const pick = (prefix) => new Map([...tally].filter(([key]) => key.startsWith(prefix)).map(([key, [a, b]]) => [key.slice(prefix.length), of(a, b)]));
	const [answered, alone] = tally.get('total') ?? [0, 0];
	return { channels: pick('channel '), total: of(answered, alone), buckets: pick('bucket '), zero: of(0, 0) };
}

/**
 * Group By Person: one entry per person who wrote in the period (a person
 * message or a failed send of a person), most replies first, then by id.
 * Every time by `duration` (the report's clock); version 1.1 names the
 * target figures as the total's reply time figures.
 */
function referencePeople(workspace, { start, end, channelTypes, targetMinutes = 15, replyTargetMinutes = 15, personNames = {}, version = 1, duration = (from, to) => to - from }) {
	const people = new Map();
	const person = (id) => {
		if (!people.has(id)) people.set(id, { replies: 0, failedReplies: 0, responses: [], taken: [] });
		return people.get(id);
	};
	for (const fact of conversationFacts(workspace, { start, end, channelTypes })) {
		for (const message of fact.list) {
			const id = personOf(message);
			if (id !== undefined) person(id)[kindOf(message) === 'person' ? 'replies' : 'failedReplies']++;
		}
		for (const wait of fact.answered) if (wait.by === 'person') person(wait.personId).responses.push(duration(wait.start, wait.reply));
		for (const handOver of fact.handOvers) if (handOver.outcome === 'answered') person(handOver.personId).taken.push(duration(handOver.sent, handOver.personMs));
	}
	const target = version === 1 ? targetMinutes : replyTargetMinutes;
	const [targetName, withinName, shareName] = version === 1 ? ['targetMinutes', 'withinTarget', 'withinTargetShare'] : ['replyTargetMinutes', 'repliedWithinTarget', 'repliedWithinTargetShare'];
	return [...people]
		.sort(([a, x], [b, y]) => y.replies - x.replies || (a < b ? -1 : 1))
		.map(([id, p]) => {
			const within = p.responses.filter((ms) => ms <= target * 60_000).length;
			return {
				personId: id,
				personName: personNames[id] ?? null,
				replies: p.replies,
				failedReplies: p.failedReplies,
				waitsAnswered: p.responses.length,
				replyTimeMedianMinutes: minutes(percentile(p.responses, 0.5)),
				replyTimeP90Minutes: minutes(percentile(p.responses, 0.9)),
				[targetName]: target,
				[withinName]: within,
				[shareName]: share(within, p.responses.length, 4),
				handOversTaken: p.taken.length,
				handOverMedianMinutesToPerson: minutes(percentile(p.taken, 0.5)),
			};
		});
}

/** Group By Conversation: one entry per conversation with activity, by its first message of the period, then by id. */
function referenceConversations(workspace, { start, end, channelTypes, personNames = {}, duration = (from, to) => to - from }) {
	const name = (id) => (id === undefined || id === null ? null : (personNames[id] ?? null));
	return conversationFacts(workspace, { start, end, channelTypes })
		.sort((a, b) => a.firstMs - b.firstMs || (a.id < b.id ? -1 : 1))
		.map((fact) => {
			const firstWait = fact.waits[0];
			const answeredFirst = firstWait && firstWait.reply !== null ? firstWait : undefined;
			const replies = new Map();
			for (const message of fact.list) if (kindOf(message) === 'person') replies.set(message.from_user_id, (replies.get(message.from_user_id) ?? 0) + 1);
			const [top] = [...replies].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
			const openWait = fact.waits.find((wait) => wait.reply === null);
			const [firstHandOver] = [...fact.handOvers].sort((a, b) => a.sent - b.sent || (a.episode < b.episode ? -1 : 1));
			const scores = fact.list.filter((message) => kindOf(message) === 'rating').map((message) => scoreOf(message.content)).filter((score) => score !== undefined);
			return {
				conversationId: fact.id,
				channelId: fact.channelId,
				channelName: fact.channelName,
				channelType: fact.channelType,
				customerId: fact.customerId,
				firstMessageMs: fact.firstMs,
				lastMessageMs: fact.lastMs,
				firstCustomerMessageMs: firstWait ? firstWait.start : null,
				firstWaitReplyMinutes: answeredFirst ? minutes(duration(answeredFirst.start, answeredFirst.reply)) : null,
				firstWaitReplyBy: answeredFirst ? answeredFirst.by : null,
				firstWaitReplyPersonId: answeredFirst?.personId ?? null,
				firstWaitReplyPersonName: name(answeredFirst?.personId),
				customerMessages: fact.counts.customer,
				botMessages: fact.counts.bot,
				personMessages: fact.counts.person,
				failedMessages: fact.counts.failed,
				waits: fact.waits.length,
				waitsAnswered: fact.answered.length,
				waitingAtEnd: openWait !== undefined,
				waitingSinceMs: openWait ? openWait.start : null,
				topPersonId: top ? top[0] : null,
				topPersonName: name(top?.[0]),
				topPersonReplies: top ? top[1] : 0,
				handOvers: fact.handOvers.length,
				handOverOutcome: firstHandOver ? firstHandOver.outcome : null,
				botOnly: fact.botOnly,
				ratings: fact.counts.rating,
				latestRatingScore: scores.length === 0 ? null : scores[scores.length - 1],
			};
		});
}

/**
 * A report of `reportOf` (any version or clock) with the bot's own share
 * (referenceBotShare) on every channel, the total and every bucket: what
 * the node's channel, total and bucket items carry, so a comparison of
 * windows (referenceComparison) covers it too.
 */
function withBotShare(workspace, reportOf) {
	return (period) => {
		const report = reportOf(period);
		const botShare = referenceBotShare(workspace, period);
		const add = (figures, shareOf) => new Map([...figures].map(([key, f]) => [key, { ...f, ...(shareOf.get(key) ?? botShare.zero) }]));
		return { ...report, channels: add(report.channels, botShare.channels), total: { ...report.total, ...botShare.total }, buckets: add(report.buckets, botShare.buckets) };
	};
}

/**
 * Person or conversation entries with their clock: without `businessHours`
 * the calendar's; with it, every time in open time and, beside, the times
 * by the calendar (calendar + the field's name) of the fields that differ
 * by clock.
 */
function withTeamClock(referenceOf, workspace, period, clockFields) {
	if (!period.businessHours) return referenceOf(workspace, period).map((entry) => ({ ...entry, clock: 'calendar' }));
	const calendar = referenceOf(workspace, period);
	const duration = referenceBusinessClock(period.businessHours, period.closedDates, period.timeZone);
	return referenceOf(workspace, { ...period, duration }).map((entry, index) => ({
		...entry,
		clock: 'businessHours',
		...Object.fromEntries(clockFields.filter((field) => field in entry).map((field) => [calendarName(field), calendar[index][field]])),
	}));
}
const PERSON_CLOCK_FIELDS = ['replyTimeMedianMinutes', 'replyTimeP90Minutes', 'withinTarget', 'withinTargetShare', 'repliedWithinTarget', 'repliedWithinTargetShare', 'handOverMedianMinutesToPerson'];
const CONVERSATION_CLOCK_FIELDS = ['firstWaitReplyMinutes'];

const BOT_SHARE_FIELDS = ['conversationsAnswered', 'botOnlyConversations', 'botOnlyShare'];
const msOf = (iso) => (iso === null ? null : Date.parse(iso));

/**
 * Issue 52's items and fields against their references: the bot's share on
 * every channel, total and bucket item; with Group By Person or
 * Conversation, those items in order, field by field, by the report's clock
 * (`businessHours`, `closedDates`) and names of its version (`version`).
 * Returns differences.
 */
function compareTeamWithReference(items, workspace, period) {
	const differences = [];
	const same = (what, actual, expected) => {
		if (JSON.stringify(actual) !== JSON.stringify(expected)) differences.push({ what, actual, expected });
	};
	const groupBy = period.groupBy ?? 'none';
	const botShare = referenceBotShare(workspace, period);
	const fieldsOf = (item, fields) => Object.fromEntries(fields.map((field) => [field, item[field]]));
	for (const item of items.filter((candidate) => candidate.scope === 'channel')) same(`bot share of channel ${item.channelId}`, fieldsOf(item, BOT_SHARE_FIELDS), botShare.channels.get(item.channelId) ?? botShare.zero);
	same('bot share of the total', fieldsOf(items.find((item) => item.scope === 'total'), BOT_SHARE_FIELDS), botShare.total);
	if (groupBy === 'day' || groupBy === 'hour') {
		for (const item of items.filter((candidate) => candidate.scope === groupBy)) {
			const key = keyOfItem(item, groupBy);
			same(`bot share of bucket ${key}`, fieldsOf(item, BOT_SHARE_FIELDS), botShare.buckets.get(key) ?? botShare.zero);
		}
	}
	const people = items.filter((item) => item.scope === 'person');
	const expectedPeople = groupBy === 'person' ? withTeamClock(referencePeople, workspace, period, PERSON_CLOCK_FIELDS) : [];
	same('person items', people.length, expectedPeople.length);
	people.forEach((item, index) => {
		const { scope, periodStart, periodEnd, timeZone, ...rest } = item;
		const expected = expectedPeople[index] ?? {};
		same(`person item ${index} (${item.personId})`, Object.fromEntries(Object.keys(expected).map((field) => [field, rest[field]])), expected);
		const extra = Object.keys(rest).filter((field) => !(field in expected));
		if (extra.length > 0) differences.push({ what: `person item ${index}: fields the reference does not define`, actual: extra });
	});
	const rows = items.filter((item) => item.scope === 'conversation');
	const expectedRows = groupBy === 'conversation' ? withTeamClock(referenceConversations, workspace, period, CONVERSATION_CLOCK_FIELDS) : [];
	same('conversation items', rows.length, expectedRows.length);
	rows.forEach((row, index) => {
		const { firstMessageAt, lastMessageAt, firstCustomerMessageAt, waitingSince, scope, periodStart, periodEnd, timeZone, ...rest } = row;
		const actual = { ...rest, firstMessageMs: msOf(firstMessageAt), lastMessageMs: msOf(lastMessageAt), firstCustomerMessageMs: msOf(firstCustomerMessageAt), waitingSinceMs: msOf(waitingSince) };
		const expected = expectedRows[index] ?? {};
		same(`conversation item ${index} (${row.conversationId})`, Object.fromEntries(Object.keys(expected).map((field) => [field, actual[field]])), expected);
		const extra = Object.keys(actual).filter((field) => !(field in expected));
		if (extra.length > 0) differences.push({ what: `conversation item ${index}: fields the reference does not define`, actual: extra });
	});
	return differences;
}

module.exports = {
	referenceComparison,
	referenceReport,
	referenceReportWithClock,
	referenceReportV11,
	referenceFirstResponses,
	referenceBusinessClock,
	compareWithReference,
	kindOf,
	scoreOf,
	bucketKey,
	FIGURES,
	referenceBotShare,
	withBotShare,
	referencePeople,
	referenceConversations,
	compareTeamWithReference,
};
