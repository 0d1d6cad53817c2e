import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequestAllItems } from '../../shared/transport';
import type { OperationCall, RunContext } from './operation';
import { ItemValidator } from './validation';

/**
 * The call of a Get Many operation: Return All, or up to Limit records; one
 * output item per record.
 */
export function listCall(
	context: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
	endpoint: string,
	qs: IDataObject,
	keep?: (record: IDataObject) => boolean,
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
	return async () =>
		await apiRequestAllItems.call(context, endpoint, qs, { limit, itemIndex, keep, ...run.throttle });
}
