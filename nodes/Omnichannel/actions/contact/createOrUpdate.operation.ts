import { updateDisplayOptions } from 'n8n-workflow';
import type { INodeProperties } from 'n8n-workflow';

import { PER_PAGE_MAX } from '../../../shared/transport';
import { contactFieldOptions, nameProperty } from './fields';
import { simplifyProperty } from '../../helpers/simplify';
import { readRow } from './upsert/row';
import { upsertRun } from './upsert/run';
import { settleCreated } from './upsert/settle';
import { AUTO_MAX_CONTACTS, AUTO_MIN_ROWS, CONTACTS_PER_ROW } from './upsert/strategy';
import { RowWriter } from './upsert/writes';
import { ItemValidator } from '../../helpers/validation';
import type { OperationAfterItems, OperationExecute } from '../../helpers/operation';

const MATCH_FIELDS = ['email', 'phone'];

const properties: INodeProperties[] = [
	{
		displayName: 'Match By',
		name: 'matchBy',
		type: 'options',
		options: [
			{ name: 'Email', value: 'email', description: 'Find the contact by its email address' },
			{
				name: 'Email Then Phone',
				value: 'emailThenPhone',
				description: 'Find the contact by email; when no contact has that email, by phone',
			},
			{ name: 'Phone', value: 'phone', description: 'Find the contact by its phone number' },
		],
		default: 'email',
		description: 'How to tell whether the contact exists already',
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'e.g. nathan@example.com',
		default: '',
		description:
			'Email address of the contact, up to 200 characters. Matched ignoring case and surrounding spaces. Left empty, it is not written.',
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		placeholder: 'e.g. +49 30 1234567',
		default: '',
		description:
			"Phone number of the contact, up to 50 characters. Matched by its digits: +49 30 1234567 and 0049 30 1234567 are the same number, and so is (030) 1234567 with 'Default Country Calling Code' 49. Left empty, it is not written.",
	},
	{
		...nameProperty,
		description:
			'Full name, 1 to 200 characters. Needed when no contact matches and one is created; left empty, a matched contact keeps its name.',
	},
	...simplifyProperty('contact'),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: "Written on create, and on update when they differ from the contact. An empty value keeps the contact's value, or clears it with 'Options > Empty Values' set to Clear.",
		options: contactFieldOptions(false).filter((field) => !MATCH_FIELDS.includes(field.name)),
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Default Country Calling Code',
				name: 'defaultCountryCode',
				type: 'string',
				default: '',
				placeholder: 'e.g. 49',
				description:
					'Country code for numbers written the national way with a leading 0, such as (030) 1234567. Without it, such numbers only match numbers written the same way.',
			},
			{
				displayName: 'Empty Values',
				name: 'emptyValues',
				type: 'options',
				options: [
					{
						name: 'Clear the Stored Value',
						value: 'clear',
						description: "An empty field of the row empties the contact's field",
					},
					{
						name: 'Keep the Stored Value',
						value: 'keep',
						description: 'An empty field of the row (an empty cell of a sheet) leaves the contact\'s field as it is',
					},
				],
				default: 'keep',
				description: 'What an empty Additional Field does to a contact that has a value there. Email, Phone and Name left empty are never written.',
			},
			{
				displayName: 'Find Contacts By',
				name: 'strategy',
				type: 'options',
				options: [
					{
						name: 'Automatic',
						value: 'auto',
						description: `Read all contacts first when that takes fewer requests than searching: from ${AUTO_MIN_ROWS} rows, with at most ${CONTACTS_PER_ROW} contacts in the workspace per row (and at most ${AUTO_MAX_CONTACTS.toLocaleString('en-US')})`,
					},
					{
						name: 'Read All Contacts First',
						value: 'readAll',
						description: `One request per ${PER_PAGE_MAX} contacts of the workspace, then none for a row whose contact is found; a new row searches once more before it is created`,
					},
					{
						name: 'Search Each Row',
						value: 'searchEachRow',
						description: 'One search per row (two with Email Then Phone when the email finds nothing), then the write',
					},
				],
				default: 'auto',
				description: 'How the rows find their contacts. Either way a changed row costs one more request and a new row two.',
				hint: `Reading costs 1 request per ${PER_PAGE_MAX} contacts; searching costs 1 request per row`,
			},
			{
				displayName: 'If Several Match',
				name: 'ifSeveralMatch',
				type: 'options',
				options: [
					{
						name: 'Fail the Item',
						value: 'fail',
						description: 'Stop with an error that lists the IDs of the matching contacts',
					},
					{
						name: 'Update the Most Recently Updated',
						value: 'updateNewest',
						description: 'Update the contact changed last; the others stay as they are',
					},
				],
				default: 'updateNewest',
				description: 'What to do when more than one contact has the email or phone',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['createOrUpdate'] } },
	properties,
);

/** Reads and checks the row (no request); the call waits for its person's earlier rows, then finds the contact and writes (upsert/writes.ts). */
export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const row = readRow(this, validator);
	const state = upsertRun(run);
	state.add(row);
	return async () => {
		const place = state.placeOf(row);
		try {
			await place.wait();
			return await new RowWriter(this, validator, state.asPerson(row), state, run.throttle).run();
		} finally {
			place.done();
		}
	};
};

/** After the rows: what another workflow created at the same moment is merged (upsert/settle.ts). */
export const afterItems: OperationAfterItems = async function (run) {
	return await settleCreated(this, upsertRun(run), run.throttle);
};
