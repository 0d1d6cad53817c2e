/**
 * First response as Chatwoot, Zendesk and Intercom define it (from version
 * 1.1 of the node; docs/operations.md, "Reports", "First response and reply
 * time"): per conversation created in the period, from its first customer
 * message to the first answer by the bot or a person. Every wait's time
 * (the version 1 "first response") is the reply time, under names of its
 * own. Reading newest first, the earliest customer message of a
 * conversation is the last one seen: each customer message overwrites what
 * the previous (later) one wrote.
 */
import type { IDataObject } from 'n8n-workflow';

import { grown, nearestRank } from './state';
import type { SampleKind } from './state';

/** The node version whose items name first response and reply time as the field does. */
export const FIELD_DEFINITIONS_VERSION = 1.1;

/** Figures counted per scope, in counters of their own (beside state.ts's Metric). */
export enum FirstMetric {
	Answered,
	ByBot,
	ByPerson,
	WithinTarget,
	Decided,
	Awaiting,
	CalendarWithinTarget,
	CalendarDecided,
}
export const FIRST_METRIC_COUNT = FirstMetric.CalendarDecided + 1;

export const FIRST_BY_BOT = 4 as SampleKind;
export const FIRST_BY_PERSON = 5 as SampleKind;

/** Per conversation: its earliest customer message of the period and the first answer after it. */
export class FirstMessages {
	customer = new Float64Array(256).fill(NaN);

	answer = new Float64Array(256).fill(NaN);

	answerKind = new Uint8Array(256);

	/** 1 when the conversations list gave a created_at inside the period. */
	createdInPeriod = new Uint8Array(256);

	private ensure(index: number): void {
		if (index < this.customer.length) return;
		let size = this.customer.length;
		while (size <= index) size *= 2;
		this.customer = grown(this.customer, size, NaN);
		this.answer = grown(this.answer, size, NaN);
		this.answerKind = grown(this.answerKind, size);
		this.createdInPeriod = grown(this.createdInPeriod, size);
	}

	/** A customer message, with the nearest later reply of its conversation (NaN: none yet). */
	customerMessage(conversation: number, timeMs: number, laterReply: number, laterReplyKind: number): void {
		this.ensure(conversation);
		this.customer[conversation] = timeMs;
		this.answer[conversation] = laterReply;
		this.answerKind[conversation] = laterReplyKind;
	}

	created(conversation: number): void {
		this.ensure(conversation);
		this.createdInPeriod[conversation] = 1;
	}
}

const minutes = (ms: number | null): number | null => (ms === null ? null : Math.round(ms / 600) / 100);
const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

/** A scope's first response times, sorted ascending. */
export interface FirstSamples {
	all: Float64Array;
	bot: Float64Array;
	person: Float64Array;
}

/** The first-response fields of a scope (version 1.1). */
export function firstResponseFigures(counters: Float64Array, { all, bot, person }: FirstSamples, targetMinutes: number): IDataObject {
	return {
		firstResponses: counters[FirstMetric.Answered],
		botFirstResponses: counters[FirstMetric.ByBot],
		personFirstResponses: counters[FirstMetric.ByPerson],
		firstResponseMedianMinutes: minutes(nearestRank(all, 0.5)),
		firstResponseP90Minutes: minutes(nearestRank(all, 0.9)),
		botFirstResponseMedianMinutes: minutes(nearestRank(bot, 0.5)),
		botFirstResponseP90Minutes: minutes(nearestRank(bot, 0.9)),
		personFirstResponseMedianMinutes: minutes(nearestRank(person, 0.5)),
		personFirstResponseP90Minutes: minutes(nearestRank(person, 0.9)),
		firstResponseTargetMinutes: targetMinutes,
		firstResponsesWithinTarget: counters[FirstMetric.WithinTarget],
		firstResponsesWithinTargetShare: ratio(counters[FirstMetric.WithinTarget], counters[FirstMetric.Decided]),
		awaitingFirstResponse: counters[FirstMetric.Awaiting],
	};
}

/** Version 1's per-wait fields and their names from version 1.1 (the reply time). */
const REPLY_NAMES: Array<[string, string]> = [
	['firstResponses', 'waitsAnswered'],
	['botFirstResponses', 'botWaitsAnswered'],
	['personFirstResponses', 'personWaitsAnswered'],
	['firstResponseMedianMinutes', 'replyTimeMedianMinutes'],
	['firstResponseP90Minutes', 'replyTimeP90Minutes'],
	['botFirstResponseMedianMinutes', 'botReplyTimeMedianMinutes'],
	['botFirstResponseP90Minutes', 'botReplyTimeP90Minutes'],
	['personFirstResponseMedianMinutes', 'personReplyTimeMedianMinutes'],
	['personFirstResponseP90Minutes', 'personReplyTimeP90Minutes'],
	['targetMinutes', 'replyTargetMinutes'],
	['answeredWithinTarget', 'repliedWithinTarget'],
	['answeredWithinTargetShare', 'repliedWithinTargetShare'],
];
const RENAMED = new Map(REPLY_NAMES);

/**
 * Version 1.1's figures from version 1's: the first-response fields where
 * version 1 had its per-wait ones (which follow, renamed), the rest as they
 * were.
 */
export function withFieldDefinitions(perWait: IDataObject, first: IDataObject): IDataObject {
	const result: IDataObject = {};
	for (const [field, value] of Object.entries(perWait)) {
		if (field === 'firstResponses') Object.assign(result, first);
		if (field === 'waitingAtEnd') for (const [from, to] of REPLY_NAMES) result[to] = perWait[from];
		if (!RENAMED.has(field)) result[field] = value;
	}
	return result;
}

/** Version 1.1's clock-dependent fields. */
export const FIRST_RESPONSE_CLOCK_FIELDS = [
	'firstResponseMedianMinutes',
	'firstResponseP90Minutes',
	'botFirstResponseMedianMinutes',
	'botFirstResponseP90Minutes',
	'personFirstResponseMedianMinutes',
	'personFirstResponseP90Minutes',
	'firstResponsesWithinTarget',
	'firstResponsesWithinTargetShare',
	'replyTimeMedianMinutes',
	'replyTimeP90Minutes',
	'botReplyTimeMedianMinutes',
	'botReplyTimeP90Minutes',
	'personReplyTimeMedianMinutes',
	'personReplyTimeP90Minutes',
	'repliedWithinTarget',
	'repliedWithinTargetShare',
	'longestWaitMinutes',
	'handOverMedianMinutesToPerson',
];

/** The counters with the calendar's first-response figures in the places of the report clock's. */
export function calendarFirstCounters(counters: Float64Array): Float64Array {
	const copy = Float64Array.from(counters);
	copy[FirstMetric.WithinTarget] = counters[FirstMetric.CalendarWithinTarget];
	copy[FirstMetric.Decided] = counters[FirstMetric.CalendarDecided];
	return copy;
}
