import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

/** What an invalid item's error was made of, so tool mode can word it for a model (see the router). */
export interface InvalidItem {
	/** The field's display name. */
	field: string;
	problem: string;
	howToFix: string;
	/** What the field accepts, e.g. "text of 1 to 4000 characters"; absent for checks across fields. */
	expected?: string;
}

/** The details of each error ItemValidator threw, kept out of the error itself (which n8n serializes). */
export const invalidItems = new WeakMap<Error, InvalidItem>();

/** Checks before any request, so a bad item costs nothing: a failure names the field and the item, and says how to fix it, for a person and a model alike. */
export class ItemValidator {
	constructor(
		private readonly node: INode,
		readonly itemIndex: number,
	) {}

	fail(field: string, problem: string, howToFix: string, expected?: string): never {
		const error = new NodeOperationError(this.node, `Invalid '${field}': ${problem} [item ${this.itemIndex}]`, {
			itemIndex: this.itemIndex,
			description: howToFix,
		});
		invalidItems.set(error, { field, problem, howToFix, expected });
		throw error;
	}

	/** Lengths in Unicode code points, as the API counts (docs/api-assumptions.md, "Messages"). */
	text(field: string, value: unknown, min: number, max: number): string {
		const fix = `Enter ${lengthRange(min, max)}.`;
		const range = lengthRange(min, max);
		const expected = range === 'text' ? 'text' : `text of ${range}`;
		if (typeof value !== 'string') this.fail(field, `expected text, got ${describe(value)}`, fix, expected);
		const length = codePointLength(value);
		if (length < min) {
			this.fail(field, min === 1 ? 'it is empty' : `it needs at least ${min} characters`, fix, expected);
		}
		if (length > max) this.fail(field, `it has ${length} characters; the most allowed is ${max}`, fix, expected);
		return value;
	}

	/** A required identifier (conversation, contact, ...). */
	id(field: string, value: unknown): string {
		const id = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
		if (!id) {
			this.fail(field, 'it is empty', 'Pick a record from the list or enter its ID.', 'the ID of an existing record');
		}
		return id;
	}

	number(field: string, value: unknown, min: number, max: number): number {
		const fix = `Enter ${numberRange(min, max)}.`;
		const expected = numberRange(min, max);
		const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof number !== 'number' || !Number.isFinite(number)) {
			this.fail(field, `expected a number, got ${describe(value)}`, fix, expected);
		}
		if (number < min || number > max) this.fail(field, `${number} is out of range`, fix, expected);
		return number;
	}

	oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
		if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
			const choices = allowed.map((option) => `"${option}"`).join(', ');
			this.fail(
				field,
				`${describe(value)} is not one of ${choices}`,
				'Choose a value from the list, or make the expression return one of those values exactly.',
				`exactly one of ${choices}`,
			);
		}
		return value as T;
	}
}

/** "1 to 200 characters", or "at least 1 character" when there is no real upper limit. */
function lengthRange(min: number, max: number): string {
	if (max >= Number.MAX_SAFE_INTEGER) return min === 0 ? 'text' : `at least ${min} character${min === 1 ? '' : 's'}`;
	return min === 0 ? `at most ${max} characters` : `${min} to ${max} characters`;
}

function numberRange(min: number, max: number): string {
	return max >= Number.MAX_SAFE_INTEGER ? `a number of at least ${min}` : `a number from ${min} to ${max}`;
}

export function codePointLength(value: string): number {
	return Array.from(value).length;
}

function describe(value: unknown): string {
	if (value === undefined || value === null || value === '') return 'nothing';
	if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
	return typeof value;
}
