import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ItemValidator } from './validation';

/**
 * The ID held by a resource locator parameter. Also accepts a plain string,
 * as an AI agent or an older workflow may supply.
 */
function locatorValue(raw: unknown): unknown {
	if (raw && typeof raw === 'object' && 'value' in raw) return (raw as IDataObject).value;
	return raw;
}

/** A required resource locator (conversation, contact, ...), checked. */
export function requiredId(
	context: IExecuteFunctions,
	validator: ItemValidator,
	parameter: string,
	field: string,
): string {
	return validator.id(field, locatorValue(context.getNodeParameter(parameter, validator.itemIndex, '')));
}

/** An optional text value, trimmed; undefined when empty. */
export function optionalString(value: unknown): string | undefined {
	if (typeof value === 'number') return String(value);
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** An optional ID, from a resource locator or a string; undefined when empty. */
export function optionalId(value: unknown): string | undefined {
	return optionalString(locatorValue(value));
}

/** A collection parameter (Options, Filters, ...) of the item. */
export function collection(context: IExecuteFunctions, itemIndex: number, parameter: string): IDataObject {
	return context.getNodeParameter(parameter, itemIndex, {}) as IDataObject;
}
