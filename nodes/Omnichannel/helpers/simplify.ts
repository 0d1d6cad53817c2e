import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationCall } from '../actions/operation';

/**
 * The fields Simplify keeps, most used first (n8n's guideline: at most 10).
 * Each set keeps every field that the shipped examples and the E2E workflows
 * read from the node, so switching Simplify on does not break them.
 */
export const SIMPLIFIED_FIELDS = {
	contact: ['id', 'name', 'email', 'phone', 'company', 'lead_status', 'lead_source', 'updated_at'],
	conversation: ['id', 'channel', 'status', 'customer_id', 'updated_at'],
	message: [
		'id',
		'conversation_id',
		'channel',
		'message_type',
		'content',
		'from_customer',
		'from_user_id',
		'send_state',
		'created_at',
		'updated_at',
	],
} as const;

/** The record types that have a simplified shape. */
export type SimplifiedRecord = keyof typeof SIMPLIFIED_FIELDS;

/**
 * The Simplify parameter of an operation that outputs `record`s, twice: for
 * workflows it is off by default (version 1 of the node already ships with
 * full records, and n8n applies a parameter's default to saved workflows that
 * never set it); when the node is used as an AI tool (n8n's `@tool` display
 * condition) it is on by default, since a model pays for every token of a
 * tool's result. n8n shows one or the other, never both.
 */
export function simplifyProperty(record: SimplifiedRecord): INodeProperties[] {
	const description = `Whether to return a simplified version of the response instead of the raw data. The simplified ${record} has only ${SIMPLIFIED_FIELDS[record].join(', ')}.`;
	return [
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: false,
			description,
			displayOptions: { show: { '@tool': [false] } },
		},
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description,
			displayOptions: { show: { '@tool': [true] } },
		},
	];
}

function pickFields(record: IDataObject, fields: readonly string[]): IDataObject {
	const simplified: IDataObject = {};
	for (const field of fields) {
		if (record[field] !== undefined) simplified[field] = record[field];
	}
	return simplified;
}

/** One record with only the fields Simplify keeps for its kind (also the polling trigger's). */
export const simplifyRecord = (record: IDataObject, kind: SimplifiedRecord): IDataObject =>
	pickFields(record, SIMPLIFIED_FIELDS[kind]);

/**
 * The item's call, with its records reduced to the simplified fields when the
 * item's Simplify is on. Operations without Simplify read it as off.
 */
export function applySimplify(
	context: IExecuteFunctions,
	itemIndex: number,
	record: SimplifiedRecord | undefined,
	call: OperationCall,
): OperationCall {
	if (!record || context.getNodeParameter('simplify', itemIndex, false) !== true) return call;
	const fields = SIMPLIFIED_FIELDS[record];
	return async () => {
		const result = await call();
		return Array.isArray(result) ? result.map((one) => pickFields(one, fields)) : pickFields(result, fields);
	};
}
