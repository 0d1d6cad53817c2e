import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiRequest, apiRequestAllItems, MAX_ATTEMPTS } from '../../../shared/transport';
import { checkName, contactBody, contactFieldOptions, nameProperty } from '../../helpers/contactFields';
import {
	changedFields,
	emailKey,
	keyNames,
	looksLikeEmail,
	MATCH_BY,
	newestFirst,
	phoneKey,
	phoneSearchText,
	sameEmail,
	samePhone,
} from '../../helpers/contactMatch';
import type { MatchBy, RowKeys } from '../../helpers/contactMatch';
import { KeyLocks, whilePersonLocked } from '../../helpers/personLock';
import { collection } from '../../helpers/parameters';
import { simplifyProperty, UPSERT_FIELD } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import type { OperationExecute, RunContext } from '../../helpers/operation';

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
		description: 'Written on create, and on update when they differ from the contact; an empty value clears the field',
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

/** The rows of one run of the node, in line per person (rows that share an email or phone). */
const personsOfRun = new WeakMap<RunContext, KeyLocks>();

interface Row {
	matchBy: MatchBy;
	keys: RowKeys;
	/** The fields the row writes, in the API's names; `name` only when given. */
	body: IDataObject;
	defaultCountryCode: string;
	ifSeveralMatch: 'updateNewest' | 'fail';
}

interface Matches {
	contacts: IDataObject[];
	by: 'email' | 'phone';
}

/** Reads and checks the row, making no request. */
function readRow(context: IExecuteFunctions, validator: ItemValidator): Row {
	const itemIndex = validator.itemIndex;
	const matchBy = validator.oneOf('Match By', context.getNodeParameter('matchBy', itemIndex, 'email'), MATCH_BY);
	const options = collection(context, itemIndex, 'options');
	const defaultCountryCode = String(options.defaultCountryCode ?? '').trim().replace(/^\+/, '');
	if (defaultCountryCode !== '' && !/^[1-9]\d{0,2}$/.test(defaultCountryCode)) {
		validator.fail('Default Country Calling Code', `"${defaultCountryCode}" is not a country calling code`, 'Enter 1 to 3 digits, such as 49 or 1.', '1 to 3 digits');
	}
	const ifSeveralMatch = validator.oneOf('If Several Match', options.ifSeveralMatch ?? 'updateNewest', ['updateNewest', 'fail'] as const);

	const text = (parameter: string) => String(context.getNodeParameter(parameter, itemIndex, '') ?? '').trim();
	const email = text('email');
	const phone = text('phone');
	const body = contactBody(validator, { ...collection(context, itemIndex, 'additionalFields'), ...(email && { email }), ...(phone && { phone }) });
	const keys: RowKeys = {};
	if (email) {
		if (!looksLikeEmail(email)) {
			validator.fail('Email', `"${email}" is not an email address`, 'Enter an address such as nathan@example.com, or map the column that holds one.', 'an email address');
		}
		if (matchBy !== 'phone') keys.email = emailKey(email);
	}
	if (phone) {
		const key = phoneKey(phone, defaultCountryCode);
		if (key === undefined) {
			validator.fail('Phone', `"${phone}" has no digit`, 'Enter a phone number such as +49 30 1234567.', 'a phone number');
		}
		if (matchBy !== 'email') keys.phone = key;
	}
	if (matchBy === 'email' && !keys.email) {
		validator.fail('Email', "it is empty, and 'Match By' is Email", 'Enter the email address to find the contact by, or change Match By.', 'an email address');
	}
	if (matchBy === 'phone' && !keys.phone) {
		validator.fail('Phone', "it is empty, and 'Match By' is Phone", 'Enter the phone number to find the contact by, or change Match By.', 'a phone number');
	}
	if (matchBy === 'emailThenPhone' && !keys.email && !keys.phone) {
		validator.fail('Email', "it and 'Phone' are both empty: there is nothing to match by", 'Enter an email address or a phone number (or both).', 'an email address');
	}
	const name = text('name');
	if (name) body.name = checkName(validator, name);
	return { matchBy, keys, body, defaultCountryCode, ifSeveralMatch };
}

/**
 * Whether a create that failed with `status` (NaN: no answer) and whose
 * contact the search then did not find may be sent again. Only the API's own
 * 500 or 503 says it has finished with the request, so the search shows
 * whether it created the contact; after 502 or 504 (a gateway's) or a
 * dropped connection the API may still be creating it, and the item fails
 * instead. Searched and sent under the person's lock, a second send cannot
 * make a second contact of this workflow's (docs/api-assumptions.md,
 * "A failed contact create").
 */
export const createMaySendAgain = (status: number): boolean => status === 500 || status === 503;

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const row = readRow(this, validator);
	const request = { itemIndex, ...run.throttle };
	const keys = keyNames(row.keys);

	const search = async (text: string, keep: (contact: IDataObject) => boolean) =>
		await apiRequestAllItems.call(this, '/contacts', { search: text }, { ...request, keep });

	/** The contacts that are the row's person (docs/api-assumptions.md, "Contact search"). */
	const findMatches = async (): Promise<Matches> => {
		const { email, phone } = row.keys;
		if (email !== undefined) {
			const contacts = await search(email, sameEmail(email));
			if (contacts.length > 0 || phone === undefined) return { contacts, by: 'email' };
		}
		const rowHasEmail = row.matchBy === 'emailThenPhone' && row.body.email !== undefined;
		const contacts = await search(phoneSearchText(phone as string), samePhone(phone as string, row.defaultCountryCode, rowHasEmail));
		return { contacts, by: 'phone' };
	};

	const report = (contact: IDataObject, action: string, fields: string[], by: Matches['by'] | null): IDataObject => ({
		...contact,
		[UPSERT_FIELD]: { action, changedFields: fields, matchedBy: by },
	});

	const pick = (matches: Matches): IDataObject => {
		const sorted = newestFirst(matches.contacts);
		if (sorted.length > 1 && row.ifSeveralMatch === 'fail') {
			throw new NodeOperationError(
				this.getNode(),
				`${sorted.length} contacts have this ${matches.by}: ${sorted.map((contact) => String(contact.id)).join(', ')} [item ${itemIndex}]`,
				{
					itemIndex,
					description: "Merge them (Contact > Merge), or set 'Options > If Several Match' to update the most recently updated one.",
				},
			);
		}
		return sorted[0];
	};

	const update = async (matches: Matches): Promise<IDataObject> => {
		const contact = pick(matches);
		// Comment is stored but never returned (docs/api-assumptions.md, "Contacts"): it cannot be compared, so it goes along with a real change only.
		const changed = changedFields(contact, row.body, row.defaultCountryCode).filter((field) => field !== 'comment');
		if (changed.length === 0) return report(contact, 'unchanged', [], matches.by);
		const patch: IDataObject = Object.fromEntries(changed.map((field) => [field, row.body[field]]));
		if (row.body.comment !== undefined) patch.comment = row.body.comment;
		// The API requires a name on every update (docs/api-assumptions.md, "Contacts").
		patch.name ??= contact.name;
		const path = `/contacts/${encodeURIComponent(String(contact.id))}`;
		await apiRequest.call(this, 'PATCH', path, { ...request, body: patch });
		// The API answers an update with a bare confirmation, and changes only
		// the fields sent (docs/api-assumptions.md, "Contacts"): the contact as
		// written, without the updated_at only the API knows (no extra read).
		const written: IDataObject = { ...contact, ...patch };
		delete written.updated_at;
		delete written.comment;
		return report(written, 'updated', changed, matches.by);
	};

	const create = async (held: () => boolean): Promise<IDataObject> => {
		if (row.body.name === undefined) {
			validator.fail('Name', 'it is empty, and no contact matches: a new contact needs a name', "Enter the contact's name, or map the column that holds it.", 'text of 1 to 200 characters');
		}
		const fields = Object.keys(row.body).filter((field) => field !== 'comment');
		for (let attempt = 1; ; attempt++) {
			if (!held()) {
				throw new NodeOperationError(this.getNode(), `Another n8n process took over the lock that keeps contacts from being created twice [item ${itemIndex}]`, {
					itemIndex,
					description: 'This process was out of touch with the database for too long. Nothing was created for this item; run it again.',
				});
			}
			try {
				const contact = (await apiRequest.call(this, 'POST', '/contacts', { ...request, body: row.body })) as IDataObject;
				return report(contact, 'created', fields, null);
			} catch (error) {
				const failure = error instanceof NodeApiError ? error : new NodeOperationError(this.getNode(), error as Error, { itemIndex });
				// A create that failed after it may have reached the API (a 5xx, a
				// dropped connection) is looked for before the item fails.
				const status = failure instanceof NodeApiError ? Number(failure.httpCode) : NaN;
				if (status >= 400 && status < 500) throw failure;
				const again = await findMatches();
				if (again.contacts.length > 0) return report(pick(again), 'created', fields, null);
				if (!createMaySendAgain(status) || attempt >= MAX_ATTEMPTS) throw failure;
			}
		}
	};

	const runPersons = personsOfRun.get(run) ?? new KeyLocks();
	personsOfRun.set(run, runPersons);
	// Reserved now, in item order: the rows of one person run one after another.
	const place = runPersons.reserve(keys);
	return async () => {
		try {
			await place.wait();
			// Searched under the lock: no other execution creates the person between this search and the create.
			return await whilePersonLocked(this, itemIndex, keys, async (held) => {
				const matches = await findMatches();
				return matches.contacts.length > 0 ? await update(matches) : await create(held);
			});
		} finally {
			place.done();
		}
	};
};
