/**
 * The report's second phase: every figure, counted page by page while the
 * period's messages are read newest first (docs/operations.md, "Reports",
 * has each definition with a worked example). Reading backwards in time, a
 * conversation's state says what comes *after* the message at hand: the
 * nearest later reply (which closes the wait this customer message opened)
 * and the nearest later message of a person (who answered a hand-over).
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_HAND_OVER_HOURS, handOverMarkerOf } from '../../shared/handOverToPerson';
import { messageAuthor } from '../../shared/messageAuthors';
import { bucketIndex } from './calendar';
import { FIRST_BY_BOT, FIRST_BY_PERSON, FIRST_METRIC_COUNT, FirstMessages, FirstMetric } from './firstResponse';
import type { ReportPlan } from './plan';
import { ratingScore } from './ratings';
import { Channels, Conversations, Metric, METRIC_COUNT, SampleKind, Samples } from './state';
import { TeamState } from './team';

/** What a message is to the report. */
export type MessageKind = 'customer' | 'rating' | 'bot' | 'person' | 'note' | 'failed';

/**
 * Authors as messageAuthor decides for every part of the package: a
 * customer; the bot (the package's own sends and System); a person of the
 * workspace. A rating is counted as a rating whoever sent it; Hand Over to a
 * Person's note for the team is no reply; a send that failed never reached
 * the customer.
 */
export function messageKind(message: IDataObject): MessageKind {
	if (message.message_type === 'rating') return 'rating';
	const author = messageAuthor(message);
	if (author === 'customer') return 'customer';
	if (handOverMarkerOf(message)?.part === 'note') return 'note';
	if (message.send_state === 'failed') return 'failed';
	return author === 'person' ? 'person' : 'bot';
}

interface HandOver {
	conversation: number;
	/** Its first send in the period (ms). */
	first: number;
	/** Its own limit, when a send carries one (ms). */
	limitMs?: number;
	/** The first message of a person after its first send (NaN: none in the period). */
	personAfter: number;
}

export interface OpenWait {
	conversation: number;
	startMs: number;
}

export const DEFAULT_HAND_OVER_LIMIT_MS = DEFAULT_HAND_OVER_HOURS * 3_600_000;

const timeOf = (record: IDataObject, field: string): number => Date.parse(String(record[field] ?? ''));

export class ReportAggregator {
	readonly conversations = new Conversations();

	readonly channels = new Channels();

	readonly total = new Float64Array(METRIC_COUNT);

	readonly buckets: Float64Array[];

	readonly samples = new Samples();

	readonly openWaits: OpenWait[] = [];

	/** Per person, the bot's own share, per conversation (team.ts). */
	readonly team: TeamState;

	private readonly handOvers = new Map<string, HandOver>();

	/** First responses (firstResponse.ts): per conversation, and counters per channel (by index), in total and per bucket. */
	readonly first = new FirstMessages();

	readonly firstByChannel: Float64Array[] = [];

	readonly firstTotal = new Float64Array(FIRST_METRIC_COUNT);

	readonly firstBuckets: Float64Array[];

	private readonly bucketStarts: Float64Array;

	private readonly targetMs: number;

	private finished = false;

	constructor(private readonly plan: ReportPlan) {
		this.bucketStarts = Float64Array.from(plan.buckets);
		this.buckets = plan.buckets.map(() => new Float64Array(METRIC_COUNT));
		this.firstBuckets = plan.buckets.map(() => new Float64Array(FIRST_METRIC_COUNT));
		this.targetMs = plan.targetMinutes * 60_000;
		this.team = new TeamState(this.targetMs, { people: plan.groupBy === 'person', conversations: plan.groupBy === 'conversation' });
	}

	private bucketOf(epochMs: number): number {
		return this.bucketStarts.length === 0 ? -1 : bucketIndex(this.bucketStarts, epochMs);
	}

	/** Adds `by` to a figure of the channel, the total and the bucket. */
	private count(metric: Metric, channel: number, bucket: number, by = 1): void {
		this.channels.counters[channel][metric] += by;
		this.total[metric] += by;
		if (bucket >= 0) this.buckets[bucket][metric] += by;
	}

	private longest(channel: number, bucket: number, waitedMs: number, metric = Metric.LongestWaitMs): void {
		const raise = (counters: Float64Array) => {
			counters[metric] = Math.max(counters[metric], waitedMs);
		};
		raise(this.channels.counters[channel]);
		raise(this.total);
		if (bucket >= 0) raise(this.buckets[bucket]);
	}

	private included(type: unknown): boolean {
		return !this.plan.channelTypes || this.plan.channelTypes.has(String(type ?? ''));
	}

	/** The conversation's index, with its channel. */
	private conversationOf(id: unknown, channelId: unknown, channelType: unknown): number {
		const conversation = this.conversations.of(String(id ?? ''));
		if (this.conversations.channel[conversation] < 0) {
			this.conversations.channel[conversation] = this.channels.of(String(channelId ?? ''), String(channelType ?? ''));
		}
		return conversation;
	}

	/** A page of conversations updated since the period began: new conversations, and each one's customer. */
	addConversations(page: IDataObject[]): void {
		for (const record of page) {
			if (!this.included(record.channel)) continue;
			const conversation = this.conversationOf(record.id, record.channel_id, record.channel);
			if (this.conversations.listed[conversation]) continue;
			this.conversations.listed[conversation] = 1;
			this.conversations.customer[conversation] = String(record.customer_id ?? '');
			const created = timeOf(record, 'created_at');
			if (created >= this.plan.startMs && created < this.plan.endMs) {
				this.first.created(conversation);
				this.count(Metric.NewConversations, this.conversations.channel[conversation], this.bucketOf(created));
			}
		}
	}

	/** A page of the period's messages, newest first, in the list's order after the pages before. */
	addMessages(page: IDataObject[]): void {
		const state = this.conversations;
		for (const message of page) {
			if (!this.included(message.channel)) continue;
			const kind = messageKind(message);
			const time = timeOf(message, 'created_at');
			const conversation = this.conversationOf(message.conversation_id, message.channel_id, message.channel);
			const channel = state.channel[conversation];
			const bucket = this.bucketOf(time);
			if (kind !== 'note') this.countActivity(conversation, channel, bucket);
			switch (kind) {
				case 'customer':
					this.count(Metric.CustomerMessages, channel, bucket);
					// Going back in time: the earliest customer message since the last reply opened the wait.
					state.waitStart[conversation] = time;
					this.first.customerMessage(conversation, time, state.laterReply[conversation], state.laterReplyKind[conversation]);
					break;
				case 'rating': {
					this.count(Metric.Ratings, channel, bucket);
					const score = ratingScore(message.content);
					if (score !== undefined) {
						this.count(Metric.RatingsScored, channel, bucket);
						this.count(Metric.RatingSum, channel, bucket, score);
					}
					break;
				}
				case 'failed':
					this.count(Metric.FailedMessages, channel, bucket);
					break;
				case 'bot':
				case 'person': {
					this.count(kind === 'bot' ? Metric.BotMessages : Metric.PersonMessages, channel, bucket);
					if (!Number.isNaN(state.waitStart[conversation])) this.closeWait(conversation);
					state.laterReply[conversation] = time;
					state.laterReplyKind[conversation] = kind === 'bot' ? SampleKind.BotResponse : SampleKind.PersonResponse;
					if (kind === 'person') state.laterPerson[conversation] = time;
					break;
				}
				default:
					break;
			}
			const marker = handOverMarkerOf(message);
			if (marker) {
				const known = this.handOvers.get(marker.episode);
				// Each earlier send of the episode replaces the first send seen so far.
				this.handOvers.set(marker.episode, {
					conversation,
					first: time,
					limitMs: marker.limitSeconds !== undefined ? marker.limitSeconds * 1000 : known?.limitMs,
					personAfter: state.laterPerson[conversation],
				});
				this.team.handOverSend(marker.episode, conversation);
			}
			this.team.message(conversation, kind, time, message);
		}
	}

	private countActivity(conversation: number, channel: number, bucket: number): void {
		const state = this.conversations;
		if (!state.active[conversation]) {
			state.active[conversation] = 1;
			this.channels.counters[channel][Metric.ConversationsWithActivity]++;
			this.total[Metric.ConversationsWithActivity]++;
		}
		if (bucket >= 0 && state.activeBucket[conversation] !== bucket + 1) {
			state.activeBucket[conversation] = bucket + 1;
			this.buckets[bucket][Metric.ConversationsWithActivity]++;
		}
	}

	/** The wait that began at the conversation's waitStart ends at its nearest later reply, or is still open at the period's end. */
	private closeWait(conversation: number): void {
		const state = this.conversations;
		const start = state.waitStart[conversation];
		state.waitStart[conversation] = NaN;
		const channel = state.channel[conversation];
		const bucket = this.bucketOf(start);
		const reply = state.laterReply[conversation];
		if (Number.isNaN(reply)) {
			const waited = this.duration(start, this.plan.endMs);
			this.count(Metric.WaitingAtEnd, channel, bucket);
			if (waited > this.targetMs) this.count(Metric.WaitsDecided, channel, bucket);
			this.longest(channel, bucket, waited);
			this.calendarWait(channel, bucket, this.plan.endMs - start, false);
			this.openWaits.push({ conversation, startMs: start });
			this.team.waitOpen(conversation, start);
			return;
		}
		const responseMs = this.duration(start, reply);
		const kind = state.laterReplyKind[conversation] as SampleKind;
		this.count(Metric.FirstResponses, channel, bucket);
		this.count(kind === SampleKind.BotResponse ? Metric.BotFirstResponses : Metric.PersonFirstResponses, channel, bucket);
		this.count(Metric.WaitsDecided, channel, bucket);
		if (responseMs <= this.targetMs) this.count(Metric.AnsweredWithinTarget, channel, bucket);
		this.longest(channel, bucket, responseMs);
		this.calendarWait(channel, bucket, reply - start, true);
		this.samples.add(kind, responseMs, channel, bucket, reply - start);
		this.team.waitAnswered(conversation, start, reply, kind, responseMs);
	}

	/** The time from one instant to another by the report's clock: the calendar's, or the open time of Business Hours. */
	duration(fromMs: number, toMs: number): number {
		return this.plan.businessHours ? this.plan.businessHours.between(fromMs, toMs) : toMs - fromMs;
	}

	/** With Business Hours, the clock-dependent figures of a wait by the calendar's clock too. */
	private calendarWait(channel: number, bucket: number, calendarMs: number, answered: boolean): void {
		if (!this.plan.businessHours) return;
		if (answered || calendarMs > this.targetMs) this.count(Metric.CalendarWaitsDecided, channel, bucket);
		if (answered && calendarMs <= this.targetMs) this.count(Metric.CalendarAnsweredWithinTarget, channel, bucket);
		this.longest(channel, bucket, calendarMs, Metric.CalendarLongestWaitMs);
	}

	private countFirst(metric: FirstMetric, channel: number, bucket: number): void {
		while (this.firstByChannel.length <= channel) this.firstByChannel.push(new Float64Array(FIRST_METRIC_COUNT));
		this.firstByChannel[channel][metric]++;
		this.firstTotal[metric]++;
		if (bucket >= 0) this.firstBuckets[bucket][metric]++;
	}

	/** Each conversation created in the period: its first customer message answered (by whom, how fast) or still awaiting an answer. */
	private countFirstResponses(): void {
		const { first } = this;
		const targetMs = this.plan.firstResponseTargetMinutes * 60_000;
		const business = this.plan.businessHours !== undefined;
		for (let conversation = 0; conversation < this.conversations.count; conversation++) {
			const start = first.customer[conversation];
			if (first.createdInPeriod[conversation] !== 1 || Number.isNaN(start)) continue;
			const channel = this.conversations.channel[conversation];
			const bucket = this.bucketOf(start);
			const answer = first.answer[conversation];
			if (Number.isNaN(answer)) {
				this.countFirst(FirstMetric.Awaiting, channel, bucket);
				if (this.duration(start, this.plan.endMs) > targetMs) this.countFirst(FirstMetric.Decided, channel, bucket);
				if (business && this.plan.endMs - start > targetMs) this.countFirst(FirstMetric.CalendarDecided, channel, bucket);
				continue;
			}
			const responseMs = this.duration(start, answer);
			const byBot = first.answerKind[conversation] === SampleKind.BotResponse;
			this.countFirst(FirstMetric.Answered, channel, bucket);
			this.countFirst(byBot ? FirstMetric.ByBot : FirstMetric.ByPerson, channel, bucket);
			this.countFirst(FirstMetric.Decided, channel, bucket);
			if (responseMs <= targetMs) this.countFirst(FirstMetric.WithinTarget, channel, bucket);
			if (business) {
				this.countFirst(FirstMetric.CalendarDecided, channel, bucket);
				if (answer - start <= targetMs) this.countFirst(FirstMetric.CalendarWithinTarget, channel, bucket);
			}
			this.samples.add(byBot ? FIRST_BY_BOT : FIRST_BY_PERSON, responseMs, channel, bucket, answer - start);
		}
	}

	/** Conversations a message of the period showed that the conversations list did not give (moved while it was read). */
	unlisted(): string[] {
		const missing: string[] = [];
		for (const [id, index] of this.conversations.ids()) {
			if (this.conversations.active[index] && !this.conversations.listed[index]) missing.push(id);
		}
		return missing;
	}

	/** After the last page: the waits still open, and where each hand-over stands at the period's end. */
	finish(): void {
		if (this.finished) return;
		this.finished = true;
		const state = this.conversations;
		for (let conversation = 0; conversation < state.count; conversation++) {
			if (!Number.isNaN(state.waitStart[conversation])) this.closeWait(conversation);
		}
		this.countFirstResponses();
		for (const [episode, handOver] of this.handOvers) {
			const channel = state.channel[handOver.conversation];
			const bucket = this.bucketOf(handOver.first);
			const until = handOver.first + (handOver.limitMs ?? DEFAULT_HAND_OVER_LIMIT_MS);
			this.count(Metric.HandOvers, channel, bucket);
			if (handOver.personAfter < until) {
				this.count(Metric.HandOversAnswered, channel, bucket);
				const toPersonMs = this.duration(handOver.first, handOver.personAfter);
				this.samples.add(SampleKind.HandOverToPerson, toPersonMs, channel, bucket, handOver.personAfter - handOver.first);
				this.team.handOver(episode, handOver.conversation, handOver.first, 'answered', toPersonMs, handOver.personAfter - handOver.first);
			} else if (until <= this.plan.endMs) {
				this.count(Metric.HandOversExpired, channel, bucket);
				this.team.handOver(episode, handOver.conversation, handOver.first, 'expired', NaN);
			} else this.team.handOver(episode, handOver.conversation, handOver.first, 'open', NaN);
		}
		this.openWaits.sort((a, b) => a.startMs - b.startMs || a.conversation - b.conversation);
	}
}
