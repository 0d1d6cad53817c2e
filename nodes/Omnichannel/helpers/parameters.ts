import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { locatorValue } from '../../shared/parameterValues';
import type { ItemValidator } from './validation';

/** A required resource locator (conversation, contact, ...), checked. */
export function requiredId(
	context: IExecuteFunctions,
	validator: ItemValidator,
	parameter: string,
	field: string,
): string {
	return validator.id(field, locatorValue(context.getNodeParameter(parameter, validator.itemIndex, '')));
}

/** A collection parameter (Options, Filters, ...) of the item. */
export function collection(context: IExecuteFunctions, itemIndex: number, parameter: string): IDataObject {
	return context.getNodeParameter(parameter, itemIndex, {}) as IDataObject;
}
