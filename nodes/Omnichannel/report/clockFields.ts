/**
 * Which clock an item's durations use, and with Business Hours the same
 * figures by the calendar's clock beside them, each named `calendar` + the
 * field (docs/operations.md, "Reports", "Business hours").
 */
import type { IDataObject } from 'n8n-workflow';

import type { ReportPlan } from './plan';
import { Metric } from './state';

export type Clock = 'calendar' | 'businessHours';

export const clockOf = (plan: ReportPlan): Clock => (plan.businessHours ? 'businessHours' : 'calendar');

/** The figures that are durations, or counted against the target by a duration. */
export const CLOCK_DEPENDENT_FIELDS = [
	'firstResponseMedianMinutes',
	'firstResponseP90Minutes',
	'botFirstResponseMedianMinutes',
	'botFirstResponseP90Minutes',
	'personFirstResponseMedianMinutes',
	'personFirstResponseP90Minutes',
	'answeredWithinTarget',
	'answeredWithinTargetShare',
	'longestWaitMinutes',
	'handOverMedianMinutesToPerson',
];

export const calendarName = (field: string): string => `calendar${field[0].toUpperCase()}${field.slice(1)}`;

/** A scope's counters with the calendar's clock-dependent figures in the places of the report clock's. */
export function calendarCounters(counters: Float64Array): Float64Array {
	const copy = Float64Array.from(counters);
	copy[Metric.AnsweredWithinTarget] = counters[Metric.CalendarAnsweredWithinTarget];
	copy[Metric.WaitsDecided] = counters[Metric.CalendarWaitsDecided];
	copy[Metric.LongestWaitMs] = counters[Metric.CalendarLongestWaitMs];
	return copy;
}

/** The clock-dependent fields of figures by the calendar's clock, renamed. */
export function calendarFields(figures: IDataObject, fields = CLOCK_DEPENDENT_FIELDS): IDataObject {
	return Object.fromEntries(fields.map((field) => [calendarName(field), figures[field]]));
}
