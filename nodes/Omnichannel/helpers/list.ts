import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequestAllItems, apiRequestWindowItems } from '../../shared/transport';
import type { TimeWindow } from '../../shared/transport';
import { isDateGiven, toEpochMs } from './dates';
import type { OperationCall, RunContext } from './operation';
import { ItemValidator } from './validation';

/**
 * The call of a Get Many operation: Return All, or up to Limit records; one
 * output item per record. With a time window, only the pages that reach
 * into it are read (shared/transport/window.ts).
 */
export function listCall(
	context: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
	endpoint: string,
	qs: IDataObject,
	keep?: (record: IDataObject) => boolean,
	window?: TimeWindow,
): OperationCall {
	const returnAll = context.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? undefined
		: Math.floor(
				new ItemValidator(context.getNode(), itemIndex).number(
					'Limit',
					context.getNodeParameter('limit', itemIndex, 50),
					1,
					Number.MAX_SAFE_INTEGER,
				),
			);
	const options = { limit, itemIndex, keep, ...run.throttle };
	if (window && (window.afterMs !== undefined || window.beforeMs !== undefined)) {
		return async () => await apiRequestWindowItems.call(context, endpoint, qs, window, options);
	}
	return async () => await apiRequestAllItems.call(context, endpoint, qs, options);
}

export interface WindowFields {
	/** Display names of the lower and upper bound, as errors name them. */
	after: { field: string; value: unknown };
	before: { field: string; value: unknown };
}

/**
 * A time window from two date parameters (either may be empty), read in the
 * workflow's time zone unless a value carries its own; a lower bound later
 * than the upper one fails the item before any request.
 */
export function timeWindow(
	context: IExecuteFunctions,
	validator: ItemValidator,
	field: TimeWindow['field'],
	{ after, before }: WindowFields,
): TimeWindow {
	const timeZone = context.getTimezone();
	const window: TimeWindow = { field };
	if (isDateGiven(after.value)) window.afterMs = toEpochMs(validator, after.field, after.value, timeZone);
	if (isDateGiven(before.value)) window.beforeMs = toEpochMs(validator, before.field, before.value, timeZone);
	if (window.afterMs !== undefined && window.beforeMs !== undefined && window.afterMs > window.beforeMs) {
		validator.fail(
			after.field,
			`it is later than '${before.field}'`,
			`Pick a time before '${before.field}', or clear one of them.`,
		);
	}
	return window;
}

/** The window of a Get Many's Created After / Created Before filters (`createdWindowFilters`). */
export function createdWindow(context: IExecuteFunctions, validator: ItemValidator, filters: IDataObject): TimeWindow {
	return timeWindow(context, validator, 'created_at', {
		after: { field: 'Created After', value: filters.createdAfter },
		before: { field: 'Created Before', value: filters.createdBefore },
	});
}
