import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { LEAD_STATUSES, leadStatusOptions } from '../../../shared/leadStatuses';
import type { ItemValidator } from '../../helpers/validation';

/** The empty string is no lead status (docs/api-assumptions.md, "Contacts"). */
const LEAD_STATUS_VALUES: readonly string[] = ['', ...LEAD_STATUSES];

/** The API's limit on a name, in code points (docs/api-assumptions.md, "Contacts"). */
export const MAX_NAME_LENGTH = 200;

interface ContactField {
	displayName: string;
	/** Parameter name in n8n. */
	name: string;
	/** Field name in the API. */
	api: string;
	max?: number;
	description: string;
	/** An example value, shown as "e.g. …". */
	example: string;
}

const FIELDS: ContactField[] = [
	{
		displayName: 'Address',
		name: 'address',
		api: 'address',
		max: 500,
		description: 'Postal address',
		example: 'Alexanderplatz 1, 10178 Berlin',
	},
	{ displayName: 'City', name: 'city', api: 'city', max: 100, description: 'City', example: 'Berlin' },
	{
		displayName: 'Comment',
		name: 'comment',
		api: 'comment',
		description: 'Internal note; stored but not returned with the contact',
		example: 'Prefers WhatsApp',
	},
	{ displayName: 'Company', name: 'company', api: 'company', max: 200, description: 'Company name', example: 'Acme Inc.' },
	{ displayName: 'Country', name: 'country', api: 'country', max: 100, description: 'Country', example: 'Germany' },
	{ displayName: 'Email', name: 'email', api: 'email', max: 200, description: 'Email address', example: 'nathan@example.com' },
	{ displayName: 'Job Title', name: 'jobTitle', api: 'job_title', max: 200, description: 'Job title', example: 'Head of Sales' },
	{
		displayName: 'Lead Source',
		name: 'leadSource',
		api: 'lead_source',
		description: 'Where the lead came from',
		example: 'Website',
	},
	{ displayName: 'Phone', name: 'phone', api: 'phone', max: 50, description: 'Phone number', example: '+49 30 1234567' },
];

export const nameProperty: INodeProperties = {
	displayName: 'Name',
	name: 'name',
	type: 'string',
	default: '',
	placeholder: 'e.g. Nathan Smith',
	description: `Full name, 1 to ${MAX_NAME_LENGTH} characters`,
};

/** The optional contact fields as collection options; `withName` adds Name, optional on update. */
export function contactFieldOptions(withName: boolean): INodeProperties[] {
	const fields: INodeProperties[] = FIELDS.map((field) => ({
		displayName: field.displayName,
		name: field.name,
		type: 'string',
		default: '',
		placeholder: `e.g. ${field.example}`,
		description: field.max ? `${field.description}, up to ${field.max} characters` : field.description,
	}));
	fields.push({
		displayName: 'Lead Status',
		name: 'leadStatus',
		type: 'options',
		options: leadStatusOptions,
		default: 'new',
		description: 'Sales stage of the contact',
	});
	if (withName) fields.push(nameProperty);
	return fields.sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** Name: 1 to 200 characters once trimmed, sent trimmed (docs/api-assumptions.md, "Contacts"). */
export function checkName(validator: ItemValidator, value: unknown): string {
	const name = typeof value === 'string' ? value.trim() : value;
	return validator.text('Name', name, 1, MAX_NAME_LENGTH);
}

/** The body of the fields set, and only those: on update an absent field stays as it is and an empty one is cleared (docs/api-assumptions.md, "Contacts"). */
export function contactBody(validator: ItemValidator, values: IDataObject): IDataObject {
	const body: IDataObject = {};
	for (const field of FIELDS) {
		const value = values[field.name];
		if (value === undefined || value === null) continue;
		body[field.api] = validator.text(field.displayName, String(value), 0, field.max ?? Number.MAX_SAFE_INTEGER);
	}
	if (values.leadStatus !== undefined) {
		body.lead_status = validator.oneOf('Lead Status', values.leadStatus, LEAD_STATUS_VALUES);
	}
	if (values.name !== undefined) body.name = checkName(validator, values.name);
	return body;
}
