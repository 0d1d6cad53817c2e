/**
 * The bot's own share (docs/operations.md, "Reports"): of the conversations
 * that got an answer in the period, those the bot answered alone, with no
 * person writing in them and no hand-over; per channel, in total and per
 * bucket (a conversation counts in the bucket its first answered wait began
 * in). Added to the items format.ts made.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ReportAggregator } from './aggregate';
import { bucketIndex } from './calendar';
import { ratio } from './format';
import type { ReportPlan } from './plan';
import { ANSWERED } from './team';

interface Share {
	answered: number;
	botOnly: number;
}

const fields = ({ answered, botOnly }: Share): IDataObject => ({
	conversationsAnswered: answered,
	botOnlyConversations: botOnly,
	botOnlyShare: ratio(botOnly, answered, 4),
});

/** Adds conversationsAnswered, botOnlyConversations and botOnlyShare to each channel item, the total and each bucket. */
export function addBotShare(aggregator: ReportAggregator, plan: ReportPlan, channels: IDataObject[], total: IDataObject, buckets: IDataObject[]): void {
	const { team, conversations } = aggregator;
	const byChannel = aggregator.channels.ids.map((): Share => ({ answered: 0, botOnly: 0 }));
	const byBucket = plan.buckets.map((): Share => ({ answered: 0, botOnly: 0 }));
	const all: Share = { answered: 0, botOnly: 0 };
	for (let conversation = 0; conversation < conversations.count; conversation++) {
		if (!conversations.active[conversation] || !(team.flags[conversation] & ANSWERED)) continue;
		const alone = team.botOnly(conversation) ? 1 : 0;
		const scopes = [byChannel[conversations.channel[conversation]], all];
		if (byBucket.length > 0) scopes.push(byBucket[bucketIndex(plan.buckets, team.firstAnsweredStart[conversation])]);
		for (const share of scopes) {
			share.answered++;
			share.botOnly += alone;
		}
	}
	for (const item of channels) {
		const index = aggregator.channels.find(String(item.channelId));
		Object.assign(item, fields(index === undefined ? { answered: 0, botOnly: 0 } : byChannel[index]));
	}
	Object.assign(total, fields(all));
	buckets.forEach((item, index) => Object.assign(item, fields(byBucket[index])));
}
