import type { IDataObject } from 'n8n-workflow';

import { phoneKey } from './phoneNumbers';

export { phoneKey, phoneSearchText } from './phoneNumbers';

/**
 * The rules that decide whether a contact of the API is the person of a row
 * (Contact > Create or Update). The API's search narrows the contacts down
 * (docs/api-assumptions.md, "Contact search"); these rules then compare
 * exactly.
 */

export type MatchBy = 'email' | 'phone' | 'emailThenPhone';

export const MATCH_BY: readonly MatchBy[] = ['email', 'phone', 'emailThenPhone'];

/** An email address as compared: trimmed, lower-cased. */
export const emailKey = (email: string): string => email.trim().toLowerCase();

/**
 * Something@something.something with no spaces: enough to catch a column
 * mapped by mistake (a name, a phone) without refusing real addresses.
 */
export const looksLikeEmail = (email: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim());

/** The values a row is matched by, already compared forms. */
export interface RowKeys {
	email?: string;
	phone?: string;
}

/** Names of a row's keys, to group rows of one person and to lock per person. */
export function keyNames(keys: RowKeys): string[] {
	const names: string[] = [];
	if (keys.email !== undefined) names.push(`email:${keys.email}`);
	if (keys.phone !== undefined) names.push(`phone:${keys.phone}`);
	return names;
}

/** Contacts whose email is the row's, compared trimmed and case-insensitive. */
export const sameEmail = (email: string) => (contact: IDataObject) =>
	typeof contact.email === 'string' && contact.email.trim() !== '' && emailKey(contact.email) === email;

/**
 * Contacts whose phone is the row's under phoneKey. With `rowEmail` (Email
 * Then Phone, no contact had the email), a contact holding another email is
 * another person who shares the number (a switchboard) and is left; one that
 * holds the row's own email got it from another writer after the row's email
 * search, and is the row's person.
 */
export const samePhone = (phone: string, defaultCountryCode: string, rowEmail?: string) => (contact: IDataObject) =>
	typeof contact.phone === 'string' &&
	phoneKey(contact.phone, defaultCountryCode) === phone &&
	(rowEmail === undefined || typeof contact.email !== 'string' || contact.email.trim() === '' || emailKey(contact.email) === rowEmail);

const timeOf = (value: unknown): number => Date.parse(String(value ?? '')) || 0;

/**
 * The most recently updated first; ties by id, so the choice never varies.
 * `writtenAt` ranks the contacts this run wrote (newest write first) before
 * the others: the API would give them the newest updated_at, which a run that
 * read its contacts first does not know.
 */
export function newestFirst(contacts: IDataObject[], writtenAt: (contact: IDataObject) => number = () => 0): IDataObject[] {
	return [...contacts].sort(
		(a, b) => writtenAt(b) - writtenAt(a) || timeOf(b.updated_at) - timeOf(a.updated_at) || String(b.id).localeCompare(String(a.id)),
	);
}

/** The first created first; ties by id (code units, not the locale): every writer that compares the same contacts picks the same one. */
export function oldestFirst(contacts: IDataObject[]): IDataObject[] {
	const byId = (a: IDataObject, b: IDataObject) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0);
	return [...contacts].sort((a, b) => timeOf(a.created_at) - timeOf(b.created_at) || byId(a, b));
}

/**
 * The fields of `body` whose value differs from the contact's. An email or
 * phone that is the same under the match rules (case, spaces, `+49` or `0`)
 * is no change: the stored writing stays.
 */
export function changedFields(contact: IDataObject, body: IDataObject, defaultCountryCode: string): string[] {
	return Object.keys(body).filter((field) => {
		const wanted = String(body[field]);
		const current = contact[field] === undefined || contact[field] === null ? '' : String(contact[field]);
		if (field === 'email' && wanted.trim() !== '' && current.trim() !== '') return emailKey(wanted) !== emailKey(current);
		if (field === 'phone' && wanted.trim() !== '' && current.trim() !== '') {
			const key = phoneKey(wanted, defaultCountryCode);
			return key === undefined || key !== phoneKey(current, defaultCountryCode);
		}
		return wanted !== current;
	});
}
