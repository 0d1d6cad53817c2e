/**
 * The report's third phase: its output items. One per channel of the
 * workspace (every channel GET /channels lists, with no activity or
 * inactive too, of the Channel Types asked for), one total, then one per
 * bucket (Group By). Every item has the same flat fields, so a sheet takes
 * them as rows; the total adds the list of customers still waiting (and the
 * HTML when asked for).
 */
import type { IDataObject } from 'n8n-workflow';

import type { ReportAggregator } from './aggregate';
import { isoInZone } from './calendar';
import { calendarCounters, calendarFields, clockOf } from './clockFields';
import { calendarFirstCounters, FIRST_BY_BOT, FIRST_BY_PERSON, FIRST_METRIC_COUNT, FIRST_RESPONSE_CLOCK_FIELDS, firstResponseFigures, withFieldDefinitions } from './firstResponse';
import type { FirstSamples } from './firstResponse';
import type { ReportPlan } from './plan';
import { Metric, nearestRank, SampleKind } from './state';

/** The waiting list on the total item holds at most this many, longest first; `waitingAtEnd` has the count. */
export const WAITING_LISTED = 100;

export const minutes = (ms: number | null): number | null => (ms === null ? null : Math.round(ms / 600) / 100);
export const ratio = (part: number, whole: number, digits: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 10 ** digits) / 10 ** digits);

export interface ChannelInfo {
	id: string;
	name: string;
	type: string;
	active: boolean | null;
}

/** A scope's response times by kind, sorted ascending. */
interface ScopeSamples {
	responses: Float64Array;
	bot: Float64Array;
	person: Float64Array;
	toPerson: Float64Array;
}

const NO_SAMPLES: ScopeSamples = { responses: new Float64Array(0), bot: new Float64Array(0), person: new Float64Array(0), toPerson: new Float64Array(0) };

/** Every scope's samples of one grouping, computed once (a sort per group). */
function samplesBy(aggregator: ReportAggregator, by: 'channel' | 'bucket' | 'all', groups: number, clock: 'report' | 'calendar' = 'report'): ScopeSamples[] {
	const { samples } = aggregator;
	const responses = samples.grouped([SampleKind.BotResponse, SampleKind.PersonResponse], by, groups, clock);
	const bot = samples.grouped([SampleKind.BotResponse], by, groups, clock);
	const person = samples.grouped([SampleKind.PersonResponse], by, groups, clock);
	const toPerson = samples.grouped([SampleKind.HandOverToPerson], by, groups, clock);
	return responses.map((_, group) => ({ responses: responses[group], bot: bot[group], person: person[group], toPerson: toPerson[group] }));
}

function firstSamplesBy(aggregator: ReportAggregator, by: 'channel' | 'bucket' | 'all', groups: number, clock: 'report' | 'calendar'): FirstSamples[] {
	const { samples } = aggregator;
	const all = samples.grouped([FIRST_BY_BOT, FIRST_BY_PERSON], by, groups, clock);
	const bot = samples.grouped([FIRST_BY_BOT], by, groups, clock);
	const person = samples.grouped([FIRST_BY_PERSON], by, groups, clock);
	return all.map((_, group) => ({ all: all[group], bot: bot[group], person: person[group] }));
}

/** A scope's samples: by the report's clock, with Business Hours by the calendar's, and (version 1.1) the first responses' alike. */
interface Clocked {
	samples: ScopeSamples;
	calendar?: ScopeSamples;
	first?: FirstSamples;
	firstCalendar?: FirstSamples;
}

function clockedSamplesBy(aggregator: ReportAggregator, plan: ReportPlan, by: 'channel' | 'bucket' | 'all', groups: number): Clocked[] {
	const report = samplesBy(aggregator, by, groups);
	const calendar = plan.businessHours ? samplesBy(aggregator, by, groups, 'calendar') : undefined;
	const first = plan.fieldDefinitions ? firstSamplesBy(aggregator, by, groups, 'report') : undefined;
	const firstCalendar = plan.fieldDefinitions && plan.businessHours ? firstSamplesBy(aggregator, by, groups, 'calendar') : undefined;
	return report.map((samples, group) => ({ samples, calendar: calendar?.[group], first: first?.[group], firstCalendar: firstCalendar?.[group] }));
}

const NO_FIRST_SAMPLES: FirstSamples = { all: new Float64Array(0), bot: new Float64Array(0), person: new Float64Array(0) };

/** A scope's figures by one clock: version 1's, or from version 1.1 first response and reply time as the field names them. */
function scopeFigures(plan: ReportPlan, counters: Float64Array, samples: ScopeSamples, firstCounters: Float64Array, first: FirstSamples | undefined): IDataObject {
	const perWait = figures(plan, counters, samples);
	return plan.fieldDefinitions ? withFieldDefinitions(perWait, firstResponseFigures(firstCounters, first ?? NO_FIRST_SAMPLES, plan.firstResponseTargetMinutes)) : perWait;
}

/** A scope's figures with the clock they use, and with Business Hours the calendar's beside them. */
function clockedFigures(plan: ReportPlan, counters: Float64Array, clocked: Clocked, firstCounters: Float64Array = new Float64Array(FIRST_METRIC_COUNT)): IDataObject {
	const own = { clock: clockOf(plan), ...scopeFigures(plan, counters, clocked.samples, firstCounters, clocked.first) };
	if (!clocked.calendar) return own;
	const calendar = scopeFigures(plan, calendarCounters(counters), clocked.calendar, calendarFirstCounters(firstCounters), clocked.firstCalendar);
	return { ...own, ...calendarFields(calendar, plan.fieldDefinitions ? FIRST_RESPONSE_CLOCK_FIELDS : undefined) };
}

/** The figures of one scope (a channel, the total, a bucket). */
function figures(plan: ReportPlan, counters: Float64Array, { responses, bot, person, toPerson }: ScopeSamples): IDataObject {
	const count = (metric: Metric) => counters[metric];
	return {
		conversationsWithActivity: count(Metric.ConversationsWithActivity),
		newConversations: count(Metric.NewConversations),
		customerMessages: count(Metric.CustomerMessages),
		botMessages: count(Metric.BotMessages),
		personMessages: count(Metric.PersonMessages),
		failedMessages: count(Metric.FailedMessages),
		firstResponses: count(Metric.FirstResponses),
		botFirstResponses: count(Metric.BotFirstResponses),
		personFirstResponses: count(Metric.PersonFirstResponses),
		firstResponseMedianMinutes: minutes(nearestRank(responses, 0.5)),
		firstResponseP90Minutes: minutes(nearestRank(responses, 0.9)),
		botFirstResponseMedianMinutes: minutes(nearestRank(bot, 0.5)),
		botFirstResponseP90Minutes: minutes(nearestRank(bot, 0.9)),
		personFirstResponseMedianMinutes: minutes(nearestRank(person, 0.5)),
		personFirstResponseP90Minutes: minutes(nearestRank(person, 0.9)),
		targetMinutes: plan.targetMinutes,
		answeredWithinTarget: count(Metric.AnsweredWithinTarget),
		answeredWithinTargetShare: ratio(count(Metric.AnsweredWithinTarget), count(Metric.WaitsDecided), 4),
		waitingAtEnd: count(Metric.WaitingAtEnd),
		longestWaitMinutes: count(Metric.FirstResponses) + count(Metric.WaitingAtEnd) === 0 ? null : minutes(count(Metric.LongestWaitMs)),
		handOvers: count(Metric.HandOvers),
		handOversAnswered: count(Metric.HandOversAnswered),
		handOverMedianMinutesToPerson: minutes(nearestRank(toPerson, 0.5)),
		handOversExpired: count(Metric.HandOversExpired),
		ratings: count(Metric.Ratings),
		ratingsScored: count(Metric.RatingsScored),
		ratingMean: ratio(count(Metric.RatingSum), count(Metric.RatingsScored), 2),
	};
}

/** The channels to report: the workspace's (of the types asked for), then any only the messages named. */
export function reportedChannels(aggregator: ReportAggregator, plan: ReportPlan, listed: IDataObject[]): ChannelInfo[] {
	const channels: ChannelInfo[] = listed
		.filter((channel) => !plan.channelTypes || plan.channelTypes.has(String(channel.type)))
		.map((channel) => ({ id: String(channel.id), name: String(channel.name ?? ''), type: String(channel.type ?? ''), active: channel.is_active === true }));
	const known = new Set(channels.map((channel) => channel.id));
	aggregator.channels.ids.forEach((id, index) => {
		if (!known.has(id)) channels.push({ id, name: '', type: aggregator.channels.types[index], active: null });
	});
	return channels;
}

export function reportItems(aggregator: ReportAggregator, plan: ReportPlan, channels: ChannelInfo[]): { channels: IDataObject[]; total: IDataObject; buckets: IDataObject[] } {
	const period = { periodStart: isoInZone(plan.startMs, plan.timeZone), periodEnd: isoInZone(plan.endMs, plan.timeZone), timeZone: plan.timeZone };
	const none = { channelId: null, channelName: null, channelType: null, channelActive: null };
	const empty = new Float64Array(aggregator.total.length);
	const byChannel = clockedSamplesBy(aggregator, plan, 'channel', aggregator.channels.ids.length);
	const noSamples: Clocked = { samples: NO_SAMPLES, calendar: plan.businessHours ? NO_SAMPLES : undefined };
	const channelItems = channels.map((channel) => {
		const index = aggregator.channels.find(channel.id);
		return {
			scope: 'channel',
			channelId: channel.id,
			channelName: channel.name,
			channelType: channel.type,
			channelActive: channel.active,
			...period,
			...(index === undefined ? clockedFigures(plan, empty, noSamples) : clockedFigures(plan, aggregator.channels.counters[index], byChannel[index], aggregator.firstByChannel[index])),
		};
	});
	const names = new Map(channels.map((channel) => [channel.id, channel.name]));
	const waiting = aggregator.openWaits.slice(0, WAITING_LISTED).map(({ conversation, startMs }) => {
		const channelId = aggregator.channels.ids[aggregator.conversations.channel[conversation]];
		return {
			conversationId: conversationIdAt(aggregator, conversation),
			channelId,
			channelName: names.get(channelId) ?? '',
			customerId: aggregator.conversations.customer[conversation] ?? null,
			since: isoInZone(startMs, plan.timeZone),
			minutesWaited: minutes(aggregator.duration(startMs, plan.endMs)),
			...(plan.businessHours ? { calendarMinutesWaited: minutes(plan.endMs - startMs) } : {}),
		};
	});
	const total = { scope: 'total', ...none, ...period, ...clockedFigures(plan, aggregator.total, clockedSamplesBy(aggregator, plan, 'all', 1)[0], aggregator.firstTotal), waiting };
	const byBucket = plan.buckets.length === 0 ? [] : clockedSamplesBy(aggregator, plan, 'bucket', plan.buckets.length);
	const buckets = plan.buckets.map((start, index) => ({
		scope: plan.groupBy,
		...none,
		periodStart: isoInZone(start, plan.timeZone),
		periodEnd: isoInZone(plan.buckets[index + 1] ?? plan.endMs, plan.timeZone),
		timeZone: plan.timeZone,
		...clockedFigures(plan, aggregator.buckets[index], byBucket[index], aggregator.firstBuckets[index]),
	}));
	return { channels: channelItems, total, buckets };
}

/** Conversation ids by index, built once for the waiting list. */
const idsByIndex = new WeakMap<ReportAggregator, string[]>();

function conversationIdAt(aggregator: ReportAggregator, index: number): string {
	let ids = idsByIndex.get(aggregator);
	if (!ids) {
		ids = [];
		for (const [id, at] of aggregator.conversations.ids()) ids[at] = id;
		idsByIndex.set(aggregator, ids);
	}
	return ids[index];
}
