import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode } from 'n8n-workflow';

import { newestFirst, sameEmail, samePhone } from './contactMatch';
import type { Row } from './row';

type Field = 'email' | 'phone';

/** The contacts that are a row's person, the value that found them, and the row's own field that led there. */
export interface Matches {
	contacts: IDataObject[];
	/** The value searched: the row's own, or one its person lends it. */
	by: Field;
	/** `by` when the row carries it; else the row's other field, which ties it to the row that lent the value (docs/operations.md, `matchedBy`). */
	matchedBy: Field;
}

const found = (row: Row, contacts: IDataObject[], by: Field): Matches => ({
	contacts,
	by,
	matchedBy: row.keys.lent === by ? (by === 'email' ? 'phone' : 'email') : by,
});

/** Where a row's candidates come from (the API's search, a superset: docs/api-assumptions.md, "Contact search"); the rules then compare exactly, whatever the source. */
export interface ContactSource {
	withEmail(email: string): Promise<IDataObject[]>;
	withPhone(phone: string): Promise<IDataObject[]>;
}

/** The row's person: the contacts with its email, else with its phone (with Email Then Phone, not those holding another email). */
export async function findPerson(row: Row, source: ContactSource): Promise<Matches> {
	const { email, phone } = row.keys;
	if (email !== undefined) {
		const contacts = (await source.withEmail(email)).filter(sameEmail(email));
		if (contacts.length > 0 || phone === undefined) return found(row, contacts, 'email');
	}
	const rowEmail = row.matchBy === 'emailThenPhone' ? email : undefined;
	const contacts = (await source.withPhone(phone as string)).filter(samePhone(phone as string, row.defaultCountryCode, rowEmail));
	return found(row, contacts, 'phone');
}

/** The contact a row updates when several match: the most recently updated, or an error with If Several Match > Fail the Item. */
export function pickContact(node: INode, row: Row, matches: Matches, writtenAt?: (contact: IDataObject) => number): IDataObject {
	const sorted = newestFirst(matches.contacts, writtenAt);
	if (sorted.length > 1 && row.ifSeveralMatch === 'fail') {
		throw new NodeOperationError(
			node,
			`${sorted.length} contacts have this ${matches.by}: ${sorted.map((contact) => String(contact.id)).join(', ')} [item ${row.itemIndex}]`,
			{
				itemIndex: row.itemIndex,
				description: "Merge them (Contact > Merge), or set 'Options > If Several Match' to update the most recently updated one.",
			},
		);
	}
	return sorted[0];
}
