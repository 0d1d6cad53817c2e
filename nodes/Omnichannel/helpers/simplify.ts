import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { SIMPLIFIED_FIELDS, pickFields, simplifyDescription } from '../../shared/simplifiedRecords';
import type { SimplifiedRecord } from '../../shared/simplifiedRecords';
import type { OperationCall } from './operation';

/** Simplify, twice: off by default in workflows (version 1 shipped full records), on for an AI tool (`@tool`), whose model pays per token. */
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

/** What Create or Update reports beside the contact: Simplify keeps it, as the operation's answer, not a field of the record. */
export const UPSERT_FIELD = '_upsert';

/** The item's call, its records reduced to the simplified fields when the item's Simplify is on (off for operations without it). */
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
