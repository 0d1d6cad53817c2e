import type { IDataObject } from 'n8n-workflow';

import { phoneKey } from './phoneNumbers';

export { phoneKey, phoneSearchText } from './phoneNumbers';

/** Whether a contact is the person of a row: the API's search narrows down (docs/api-assumptions.md, "Contact search"), these rules compare exactly. */

export type MatchBy = 'email' | 'phone' | 'emailThenPhone';

export const MATCH_BY: readonly MatchBy[] = ['email', 'phone', 'emailThenPhone'];

/** An email address as compared: trimmed, lower-cased. */
export const emailKey = (email: string): string => email.trim().toLowerCase();

/** Something@something.something: catches a column mapped by mistake without refusing real addresses. */
export const looksLikeEmail = (email: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim());

/** The values a row is matched by, already compared forms. */
export interface RowKeys {
	email?: string;
	phone?: string;
	/** The key the row lacks and its person lends it (persons.ts). */
	lent?: 'email' | 'phone';
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

/** Contacts whose phone is the row's; with `rowEmail`, one holding another email is another person sharing the number (a switchboard). */
export const samePhone = (phone: string, defaultCountryCode: string, rowEmail?: string) => (contact: IDataObject) =>
	typeof contact.phone === 'string' &&
	phoneKey(contact.phone, defaultCountryCode) === phone &&
	(rowEmail === undefined || typeof contact.email !== 'string' || contact.email.trim() === '' || emailKey(contact.email) === rowEmail);

const timeOf = (value: unknown): number => Date.parse(String(value ?? '')) || 0;

/** Most recently updated first, ties by id; the run's own writes (`writtenAt`) first, as the API would date them newest. */
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

/** The fields of `body` that differ from the contact's; an email or phone equal under the match rules is no change. */
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
