/**
 * The report's first phase: its parameters, checked before any request
 * (docs/operations.md, "Reports"). The period is read in the workflow's
 * time zone; a bad value fails the item naming its field.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { CHANNEL_TYPE_LABELS } from '../../shared/channelTypes';
import { isDateGiven, localTime, toEpochMs } from '../helpers/dates';
import { collection } from '../helpers/parameters';
import { ItemValidator } from '../helpers/validation';
import { businessClockOf } from './businessHours';
import { COMPARE_FIELD, COMPARE_WITH, previousWindow } from './compare';
import type { CompareWith, PreviousWindow } from './compare';
import { FIELD_DEFINITIONS_VERSION } from './firstResponse';
import type { BusinessClock } from './businessHours';
import { addDays, addLocalDays, bucketStarts, startOfDate } from './calendar';
import type { BucketUnit } from './calendar';
import { personNamesOf } from './people';

/** The longest period: 31 days (a month's report; an hour per bucket is 744 items). */
export const MAX_PERIOD_DAYS = 31;
export const MAX_PERIOD_HOURS = MAX_PERIOD_DAYS * 24;
export const DEFAULT_TARGET_MINUTES = 15;
/** A week: a longer first-response target is not a target. */
export const MAX_TARGET_MINUTES = 7 * 24 * 60;
export const CHANNEL_TYPES = Object.keys(CHANNEL_TYPE_LABELS);

export type PeriodKind = 'previousDays' | 'lastHours' | 'custom';
export type GroupBy = 'none' | BucketUnit | 'person' | 'conversation';

export interface ReportPlan {
	/** The period, [startMs, endMs) (ms since the epoch); a Before in the future ends at the run's time. */
	startMs: number;
	endMs: number;
	timeZone: string;
	groupBy: GroupBy;
	/** Where each bucket starts (Group By), ascending; empty without buckets. */
	buckets: number[];
	/** Only channels of these types; undefined: every channel. */
	channelTypes?: Set<string>;
	/** The reply-time target: each wait's (version 1 calls it the first response target). */
	targetMinutes: number;
	/** Version 1.1 on: the first response target (per conversation). */
	firstResponseTargetMinutes: number;
	/** Version 1.1 on: the items name first response and reply time as the field does (firstResponse.ts). */
	fieldDefinitions: boolean;
	includeHtml: boolean;
	/** Names for people's ids (Person Names), for the person items and the HTML. */
	personNames: Map<string, string>;
	includeText: boolean;
	/** Compare With: the previous window (compare.ts); undefined: no comparison. */
	previous?: PreviousWindow;
	/** Business Hours: durations count open time only; undefined: the calendar's clock. */
	businessHours?: BusinessClock;
}

/** A positive number up to `max`, decimals allowed. */
function positiveNumber(validator: ItemValidator, field: string, value: unknown, max: number): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0 || number > max) {
		validator.fail(field, `expected a positive number up to ${max}, got ${typeof value === 'string' || typeof value === 'number' ? JSON.stringify(value) : 'nothing'}`, `Enter a number greater than 0 and at most ${max}.`, `a number greater than 0, at most ${max}`);
	}
	return number;
}

function channelTypesOf(validator: ItemValidator, value: unknown): Set<string> | undefined {
	const list = typeof value === 'string' ? value.split(',').map((type) => type.trim()).filter((type) => type !== '') : value;
	if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) return undefined;
	if (!Array.isArray(list)) validator.fail('Channel Types', 'expected a list of channel types', 'Pick channel types from the list, or leave it empty for every channel.');
	return new Set(list.map((type: unknown) => validator.oneOf('Channel Types', type, CHANNEL_TYPES)));
}

/** Reads and checks the item's report parameters, making no request. */
export function reportPlan(context: IExecuteFunctions, itemIndex: number, now = Date.now()): ReportPlan {
	const validator = new ItemValidator(context.getNode(), itemIndex);
	const timeZone = context.getTimezone();
	const kind = validator.oneOf<PeriodKind>('Period', context.getNodeParameter('period', itemIndex, 'previousDays'), ['previousDays', 'lastHours', 'custom']);
	let startMs: number;
	let endMs: number;
	let days: number | undefined;
	if (kind === 'previousDays') {
		days = validator.number('Days', context.getNodeParameter('days', itemIndex, 1), 1, MAX_PERIOD_DAYS);
		if (!Number.isInteger(days)) validator.fail('Days', `${days} is not a whole number`, `Enter a whole number of days from 1 to ${MAX_PERIOD_DAYS}; 1 is yesterday.`);
		const today = localTime(now, timeZone);
		startMs = startOfDate(addDays(today, -days), timeZone);
		endMs = startOfDate(today, timeZone);
	} else if (kind === 'lastHours') {
		const hours = positiveNumber(validator, 'Hours', context.getNodeParameter('hours', itemIndex, 24), MAX_PERIOD_HOURS);
		endMs = now;
		startMs = now - Math.round(hours * 3_600_000);
	} else {
		const after = context.getNodeParameter('after', itemIndex, '') as unknown;
		const before = context.getNodeParameter('before', itemIndex, '') as unknown;
		if (!isDateGiven(after)) validator.fail('After', 'it is empty', 'Pick the date and time the period starts at.');
		if (!isDateGiven(before)) validator.fail('Before', 'it is empty', 'Pick the date and time the period ends at (not included).');
		startMs = toEpochMs(validator, 'After', after, timeZone);
		endMs = toEpochMs(validator, 'Before', before, timeZone);
		if (startMs > endMs) validator.fail('After', "it is later than 'Before'", "Pick a time before 'Before'.");
		if (endMs > addLocalDays(startMs, MAX_PERIOD_DAYS, timeZone)) {
			validator.fail('Before', `the period from 'After' is longer than ${MAX_PERIOD_DAYS} days`, `Pick a 'Before' at most ${MAX_PERIOD_DAYS} days after 'After', or make one report per month.`);
		}
		// What has not happened yet cannot be read: the period ends at the run's time.
		endMs = Math.max(startMs, Math.min(endMs, now));
	}
	const groupBy = validator.oneOf<GroupBy>('Group By', context.getNodeParameter('groupBy', itemIndex, 'none'), ['none', 'day', 'hour', 'person', 'conversation']);
	const options = collection(context, itemIndex, 'options');
	const targetOption = (field: string, value: unknown) => (value === undefined ? DEFAULT_TARGET_MINUTES : positiveNumber(validator, field, value, MAX_TARGET_MINUTES));
	const firstResponseTargetMinutes = targetOption('First Response Target (Minutes)', options.targetMinutes);
	const fieldDefinitions = context.getNode().typeVersion >= FIELD_DEFINITIONS_VERSION;
	// Version 1 measures each wait against the First Response Target.
	const targetMinutes = fieldDefinitions ? targetOption('Reply Time Target (Minutes)', options.replyTargetMinutes) : firstResponseTargetMinutes;
	const compareWith = validator.oneOf<CompareWith>(COMPARE_FIELD, options.compareWith ?? 'none', COMPARE_WITH);
	const previous = previousWindow(validator, compareWith, { startMs, endMs, timeZone, days, now });
	return {
		startMs,
		endMs,
		timeZone,
		groupBy,
		buckets: (groupBy !== 'day' && groupBy !== 'hour') || endMs <= startMs ? [] : bucketStarts(startMs, endMs, groupBy, timeZone),
		channelTypes: channelTypesOf(validator, options.channelTypes),
		targetMinutes,
		firstResponseTargetMinutes,
		fieldDefinitions,
		includeHtml: context.getNodeParameter('includeHtml', itemIndex, false) === true,
		personNames: personNamesOf(validator, options.personNames),
		includeText: context.getNodeParameter('includeText', itemIndex, false) === true,
		previous,
		businessHours: businessClockOf(validator, options, timeZone, Math.min(startMs, previous?.startMs ?? startMs), endMs, [startMs, endMs]),
	};
}
