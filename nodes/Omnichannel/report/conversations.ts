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

/**
 * isoInZone for many times: the zone's offset read once per quarter hour of
 * UTC (offsets change only on that grid, see calendar.ts), since Intl costs
 * about 8 µs a call and 5,000 items have 20,000 times.
 */
function isoInZoneCached(timeZone: string): (epochMs: number) => string {
	const suffixes = new Map<number, { offsetMs: number; suffix: string }>();
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
		return `${new Date(epochMs + known.offsetMs).toISOString().slice(0, 23)}${known.suffix}`;
	};
}

/** The conversation items, by their first message of the period (ties: by id). */
export function conversationItems(aggregator: ReportAggregator, plan: ReportPlan, channels: ChannelInfo[]): IDataObject[] {
	const { team, conversations } = aggregator;
	const channelOf = new Map(channels.map((channel) => [channel.id, channel]));
	const iso = isoInZoneCached(plan.timeZone);
	const period = { periodStart: iso(plan.startMs), periodEnd: iso(plan.endMs), timeZone: plan.timeZone, clock: clockOf(plan) };
	const business = plan.businessHours !== undefined;
	const at = (ms: number) => (Number.isNaN(ms) ? null : iso(ms));
	const nameOf = (id: string | undefined) => (id === undefined ? null : (plan.personNames.get(id) ?? null));
	const rows: Array<{ first: number; id: string; index: number }> = [];
	for (const [id, index] of conversations.ids()) if (conversations.active[index]) rows.push({ first: team.firstActivity[index], id, index });
	rows.sort((a, b) => a.first - b.first || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
	return rows.map(({ id, index }) => {
		const channelId = aggregator.channels.ids[conversations.channel[index]];
		const channel = channelOf.get(channelId);
		const firstCustomer = team.firstCustomer[index];
		// The period's first wait is the one its first customer message opened; answered when the earliest answered wait began there.
		const firstAnswered = !Number.isNaN(firstCustomer) && team.firstAnsweredStart[index] === firstCustomer;
		const firstBy = firstAnswered ? (team.firstAnsweredKind[index] === SampleKind.BotResponse ? 'bot' : 'person') : null;
		const firstPerson = firstBy === 'person' ? team.firstAnsweredPerson[index] : undefined;
		const top = team.topPerson(index);
		const score = team.latestScore[index];
		return {
			scope: 'conversation',
			conversationId: id,
			channelId,
			channelName: channel?.name ?? '',
			channelType: aggregator.channels.types[conversations.channel[index]],
			customerId: conversations.customer[index] ?? null,
			...period,
			firstMessageAt: at(team.firstActivity[index]),
			lastMessageAt: at(team.lastActivity[index]),
			firstCustomerMessageAt: at(firstCustomer),
			firstWaitReplyMinutes: firstAnswered ? minutes(team.firstAnsweredMs[index]) : null,
			...(business ? { calendarFirstWaitReplyMinutes: firstAnswered ? minutes(team.firstAnsweredReply[index] - firstCustomer) : null } : {}),
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
	});
}
