import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { SIMPLIFIED_FIELDS, pickFields, simplifyDescription } from '../../shared/simplifiedRecords';
import type { SimplifiedRecord } from '../../shared/simplifiedRecords';
import type { OperationCall } from './operation';

/**
 * The Simplify parameter of an operation that outputs `record`s, twice: for
 * workflows it is off by default (version 1 of the node already ships with
 * full records, and n8n applies a parameter's default to saved workflows that
 * never set it); when the node is used as an AI tool (n8n's `@tool` display
 * condition) it is on by default, since a model pays for every token of a
 * tool's result. n8n shows one or the other, never both.
 */
export function simplifyProperty(record: SimplifiedRecord): INodeProperties[] {
	const description = simplifyDescription(record);
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

/**
 * What Contact > Create or Update reports beside the contact (action and
 * changed fields). Simplify keeps it: it is the operation's answer, not a
 * field of the record.
 */
export const UPSERT_FIELD = '_upsert';

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
	const fields = [...SIMPLIFIED_FIELDS[record], UPSERT_FIELD];
	return async () => {
		const result = await call();
		return Array.isArray(result) ? result.map((one) => pickFields(one, fields)) : pickFields(result, fields);
	};
}
