import type { IDataObject } from 'n8n-workflow';

/** The ID held by a resource locator parameter. */
export function locatorValue(raw: unknown): unknown {
	if (raw && typeof raw === 'object' && 'value' in raw) return (raw as IDataObject).value;
	return raw;
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
