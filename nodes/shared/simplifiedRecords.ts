import type { IDataObject } from 'n8n-workflow';

/** The fields Simplify keeps, most used first (n8n's guideline: at most 10). */
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

/** The description of a Simplify parameter, naming the fields it keeps. */
export function simplifyDescription(record: SimplifiedRecord): string {
	return `Whether to return a simplified version of the response instead of the raw data. The simplified ${record} has only ${SIMPLIFIED_FIELDS[record].join(', ')}.`;
}

/** The record with only `fields`; a field the record lacks stays absent. */
export function pickFields(record: IDataObject, fields: readonly string[]): IDataObject {
	const simplified: IDataObject = {};
	for (const field of fields) {
		if (record[field] !== undefined) simplified[field] = record[field];
	}
	return simplified;
}

/** One record with only the fields Simplify keeps for its kind. */
export const simplifyRecord = (record: IDataObject, kind: SimplifiedRecord): IDataObject =>
	pickFields(record, SIMPLIFIED_FIELDS[kind]);
