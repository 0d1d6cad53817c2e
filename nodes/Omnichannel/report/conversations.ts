/**
 * Group By Conversation: one flat item per conversation with activity in
 * the period, from the same pages the figures are read from (never a
 * request per conversation), for a sheet, a CSV or a Data Table.
 * Definitions: docs/operations.md, "Reports".
 */
import type { IDataObject } from 'n8n-workflow';

import type { ReportAggregator } from './aggregate';
import { isoInZone } from './calendar';
import { clockOf } from './clockFields';
import type { ChannelInfo } from './format';
import { minutes } from './format';
import type { ReportPlan } from './plan';
import { SampleKind } from './state';

const QUARTER_HOUR = 15 * 60_000;
const HOUR = 60 * 60_000;

/** "MM:SS." for each second of an hour, and "mmm" for each millisecond: the tails of the items' times, made once. */
const MINUTE_SECONDS = Array.from({ length: 3600 }, (_, second) => `${String(Math.floor(second / 60)).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}.`);
const MILLISECONDS = Array.from({ length: 1000 }, (_, ms) => String(ms).padStart(3, '0'));

/**
 * isoInZone for many times: the zone's offset read once per quarter hour of
 * UTC (offsets change only on that grid, see calendar.ts), since Intl costs
 * about 8 µs a call, and each local hour's "YYYY-MM-DDTHH:" written once;
 * 5,000 items have 20,000 times.
 */
function isoInZoneCached(timeZone: string): (epochMs: number) => string {
	const suffixes = new Map<number, { offsetMs: number; suffix: string }>();
	const hours = new Map<number, string>();
	return (epochMs) => {
		const quarter = Math.floor(epochMs / QUARTER_HOUR);
		let known = suffixes.get(quarter);
		if (!known) {
			const start = quarter * QUARTER_HOUR;
			const iso = isoInZone(start, timeZone);
			const suffix = iso.slice(23);
			known = { suffix, offsetMs: Date.parse(`${iso.slice(0, 23)}Z`) - start };
			suffixes.set(quarter, known);
		}
		const local = epochMs + known.offsetMs;
		const hour = Math.floor(local / HOUR);
		let prefix = hours.get(hour);
		if (prefix === undefined) {
			prefix = new Date(hour * HOUR).toISOString().slice(0, 14);
			hours.set(hour, prefix);
		}
		const inHour = local - hour * HOUR;
		return prefix + MINUTE_SECONDS[Math.floor(inHour / 1000)] + MILLISECONDS[inHour % 1000] + known.suffix;
	};
}

/** The conversation items, by their first message of the period (ties: by id). */
export function conversationItems(aggregator: ReportAggregator, plan: ReportPlan, channels: ChannelInfo[]): IDataObject[] {
	const { team, conversations } = aggregator;
	const channelOf = new Map(channels.map((channel) => [channel.id, channel]));
	const iso = isoInZoneCached(plan.timeZone);
	const [periodStart, periodEnd, clock] = [iso(plan.startMs), iso(plan.endMs), clockOf(plan)];
	const business = plan.businessHours !== undefined;
	const at = (ms: number) => (Number.isNaN(ms) ? null : iso(ms));
	const nameOf = (id: string | undefined) => (id === undefined ? null : (plan.personNames.get(id) ?? null));
	const rows: Array<{ first: number; id: string; index: number }> = [];
	for (const [id, index] of conversations.ids()) if (conversations.active[index]) rows.push({ first: team.firstActivity[index], id, index });
	rows.sort((a, b) => a.first - b.first || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
	return rows.map(({ id, index }) => {
		const channelId = aggregator.channels.ids[conversations.channel[index]];
		const firstCustomer = team.firstCustomer[index];
		// The period's first wait is the one its first customer message opened; answered when the earliest answered wait began there.
		const firstAnswered = !Number.isNaN(firstCustomer) && team.firstAnsweredStart[index] === firstCustomer;
		const firstBy = firstAnswered ? (team.firstAnsweredKind[index] === SampleKind.BotResponse ? 'bot' : 'person') : null;
		const firstPerson = firstBy === 'person' ? team.firstAnsweredPerson[index] : undefined;
		const top = team.topPerson(index);
		const score = team.latestScore[index];
		// One literal of fixed keys: V8 builds it from a template, several times faster than with spreads.
		const row: IDataObject = {
			scope: 'conversation',
			conversationId: id,
			channelId,
			channelName: channelOf.get(channelId)?.name ?? '',
			channelType: aggregator.channels.types[conversations.channel[index]],
			customerId: conversations.customer[index] ?? null,
			periodStart,
			periodEnd,
			timeZone: plan.timeZone,
			clock,
			firstMessageAt: at(team.firstActivity[index]),
			lastMessageAt: at(team.lastActivity[index]),
			firstCustomerMessageAt: at(firstCustomer),
			firstWaitReplyMinutes: firstAnswered ? minutes(team.firstAnsweredMs[index]) : null,
			firstWaitReplyBy: firstBy,
			firstWaitReplyPersonId: firstPerson ?? null,
			firstWaitReplyPersonName: nameOf(firstPerson),
			customerMessages: team.customerMessages[index],
			botMessages: team.botMessages[index],
			personMessages: team.personMessages[index],
			failedMessages: team.failedMessages[index],
			waits: team.waits[index],
			waitsAnswered: team.waitsAnswered[index],
			waitingAtEnd: !Number.isNaN(team.waitingSince[index]),
			waitingSince: at(team.waitingSince[index]),
			topPersonId: top?.id ?? null,
			topPersonName: nameOf(top?.id),
			topPersonReplies: top?.replies ?? 0,
			handOvers: team.handOvers[index],
			handOverOutcome: team.outcomeOf(index),
			botOnly: team.botOnly(index),
			ratings: team.ratings[index],
			latestRatingScore: Number.isNaN(score) ? null : score,
		};
		return business ? withCalendarReply(row, firstAnswered ? minutes(team.firstAnsweredReply[index] - firstCustomer) : null) : row;
	});
}

/** The row with Business Hours' calendarFirstWaitReplyMinutes right after firstWaitReplyMinutes. */
function withCalendarReply(row: IDataObject, calendarMinutes: number | null): IDataObject {
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(row)) {
		out[key] = value;
		if (key === 'firstWaitReplyMinutes') out.calendarFirstWaitReplyMinutes = calendarMinutes;
	}
	return out;
}
