import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { checkName, contactBody } from '../fields';
import { emailKey, looksLikeEmail, MATCH_BY, phoneKey } from './contactMatch';
import type { MatchBy, RowKeys } from './contactMatch';
import { collection } from '../../../helpers/parameters';
import type { ItemValidator } from '../../../helpers/validation';

/** How a run finds its rows' contacts (Options > Find Contacts By). */
export type Strategy = 'auto' | 'readAll' | 'searchEachRow';

export const STRATEGIES: readonly Strategy[] = ['auto', 'readAll', 'searchEachRow'];

/** What an empty cell of a row does to the stored value (Options > Empty Values). */
export type EmptyValues = 'keep' | 'clear';

/** One input item of Contact > Create or Update, read and checked. */
export interface Row {
	itemIndex: number;
	matchBy: MatchBy;
	keys: RowKeys;
	/** The fields the row writes, in the API's names; `name` only when given. */
	body: IDataObject;
	defaultCountryCode: string;
	ifSeveralMatch: 'updateNewest' | 'fail';
	strategy: Strategy;
}

/** Without its empty fields: with Empty Values > Keep Stored Value, an empty cell leaves the contact's value as it is. */
function withoutEmptyValues(body: IDataObject): IDataObject {
	return Object.fromEntries(Object.entries(body).filter(([, value]) => String(value).trim() !== ''));
}

/** Reads and checks the row, making no request: a bad row fails naming the field and the item. */
export function readRow(context: IExecuteFunctions, validator: ItemValidator): Row {
	const itemIndex = validator.itemIndex;
	const matchBy = validator.oneOf('Match By', context.getNodeParameter('matchBy', itemIndex, 'email'), MATCH_BY);
	const options = collection(context, itemIndex, 'options');
	const defaultCountryCode = String(options.defaultCountryCode ?? '').trim().replace(/^\+/, '');
	if (defaultCountryCode !== '' && !/^[1-9]\d{0,2}$/.test(defaultCountryCode)) {
		validator.fail('Default Country Calling Code', `"${defaultCountryCode}" is not a country calling code`, 'Enter 1 to 3 digits, such as 49 or 1.', '1 to 3 digits');
	}
	const ifSeveralMatch = validator.oneOf('If Several Match', options.ifSeveralMatch ?? 'updateNewest', ['updateNewest', 'fail'] as const);
	const emptyValues = validator.oneOf('Empty Values', options.emptyValues ?? 'keep', ['keep', 'clear'] as const);
	const strategy = validator.oneOf('Find Contacts By', options.strategy ?? 'auto', STRATEGIES);

	const text = (parameter: string) => String(context.getNodeParameter(parameter, itemIndex, '') ?? '').trim();
	const email = text('email');
	const phone = text('phone');
	const written = contactBody(validator, { ...collection(context, itemIndex, 'additionalFields'), ...(email && { email }), ...(phone && { phone }) });
	const body = emptyValues === 'keep' ? withoutEmptyValues(written) : written;
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
	return { itemIndex, matchBy, keys, body, defaultCountryCode, ifSeveralMatch, strategy };
}
