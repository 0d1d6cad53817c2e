import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

/**
 * Checks that run before any request, so a bad item costs nothing and the
 * message names the field (by its display name) and the item.
 */
export class ItemValidator {
	constructor(
		private readonly node: INode,
		readonly itemIndex: number,
	) {}

	fail(field: string, problem: string, description?: string): never {
		throw new NodeOperationError(this.node, `Invalid "${field}" in item ${this.itemIndex}: ${problem}`, {
			itemIndex: this.itemIndex,
			description,
		});
	}

	/** Lengths are counted in Unicode code points, as the API does (contract.md §4). */
	text(field: string, value: unknown, min: number, max: number): string {
		if (typeof value !== 'string') this.fail(field, `expected text, got ${describe(value)}`);
		const length = codePointLength(value);
		if (length < min) this.fail(field, min === 1 ? 'it is empty' : `it needs at least ${min} characters`);
		if (length > max) this.fail(field, `it has ${length} characters; the most allowed is ${max}`);
		return value;
	}

	/** A required identifier (conversation, contact, ...). */
	id(field: string, value: unknown): string {
		const id = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
		if (!id) this.fail(field, 'it is empty', 'Pick a record from the list or enter its ID.');
		return id;
	}

	number(field: string, value: unknown, min: number, max: number): number {
		const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof number !== 'number' || !Number.isFinite(number)) {
			this.fail(field, `expected a number, got ${describe(value)}`);
		}
		if (number < min || number > max) this.fail(field, `${number} is outside ${min} to ${max}`);
		return number;
	}

	oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
		if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
			this.fail(field, `${describe(value)} is not one of ${allowed.map((option) => `"${option}"`).join(', ')}`);
		}
		return value as T;
	}
}

export function codePointLength(value: string): number {
	return Array.from(value).length;
}

function describe(value: unknown): string {
	if (value === undefined || value === null || value === '') return 'nothing';
	if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
	return typeof value;
}
