/**
 * Group By Conversation: one flat item per conversation with activity in
 * the period, from the same pages the figures are read from (never a
 * request per conversation), for a sheet, a CSV or a Data Table.
 * Definitions: docs/operations.md, "Reports".
 */
import type { IDataObject } from 'n8n-workflow';

import type { ReportAggregator } from './aggregate';
import { isoInZone } from './calendar';
import type { ChannelInfo } from './format';
import { minutes } from './format';
import type { ReportPlan } from './plan';
import { SampleKind } from './state';

/** The conversation items, by their first message of the period (ties: by id). */
export function conversationItems(aggregator: ReportAggregator, plan: ReportPlan, channels: ChannelInfo[]): IDataObject[] {
	const { team, conversations } = aggregator;
	const channelOf = new Map(channels.map((channel) => [channel.id, channel]));
	const at = (ms: number) => (Number.isNaN(ms) ? null : isoInZone(ms, plan.timeZone));
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
			periodStart: isoInZone(plan.startMs, plan.timeZone),
			periodEnd: isoInZone(plan.endMs, plan.timeZone),
			timeZone: plan.timeZone,
			firstMessageAt: at(team.firstActivity[index]),
			lastMessageAt: at(team.lastActivity[index]),
			firstCustomerMessageAt: at(firstCustomer),
			firstWaitReplyMinutes: firstAnswered ? minutes(team.firstAnsweredReply[index] - firstCustomer) : null,
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
