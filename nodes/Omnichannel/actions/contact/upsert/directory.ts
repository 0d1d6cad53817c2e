import type { IDataObject } from 'n8n-workflow';

import { emailKey, phoneKey } from './contactMatch';
import type { ContactSource } from './matches';

type Index = Map<string, IDataObject[]>;

function add(index: Index, key: string | undefined, contact: IDataObject): void {
	if (key === undefined) return;
	const list = index.get(key);
	if (list) list.push(contact);
	else index.set(key, [contact]);
}

function remove(index: Index, key: string | undefined, id: string): void {
	if (key === undefined) return;
	const rest = (index.get(key) ?? []).filter((contact) => String(contact.id) !== id);
	if (rest.length > 0) index.set(key, rest);
	else index.delete(key);
}

const emailOf = (contact: IDataObject): string | undefined =>
	typeof contact.email === 'string' && contact.email.trim() !== '' ? emailKey(contact.email) : undefined;

const phoneOf = (contact: IDataObject, defaultCountryCode: string): string | undefined =>
	typeof contact.phone === 'string' ? phoneKey(contact.phone, defaultCountryCode) : undefined;

/** Contacts indexed by the compared email and phone, kept up to date with the run's writes, so a row finds what an earlier row created or changed. */
export class ContactDirectory {
	private readonly byId = new Map<string, IDataObject>();

	private readonly byEmail: Index = new Map();

	private readonly byPhone = new Map<string, Index>();

	private readonly written = new Map<string, number>();

	private writes = 0;

	constructor(contacts: IDataObject[]) {
		for (const contact of contacts) this.add(contact);
	}

	get size(): number {
		return this.byId.size;
	}

	has(id: string): boolean {
		return this.byId.has(id);
	}

	/** Candidates for a row (the matching rules filter them, as they filter the API's search). */
	source(defaultCountryCode: string): ContactSource {
		return {
			withEmail: async (email) => this.byEmail.get(email) ?? [],
			withPhone: async (phone) => this.phoneIndex(defaultCountryCode).get(phone) ?? [],
		};
	}

	/** The run's writes rank first, newest first (see newestFirst). */
	readonly writtenAt = (contact: IDataObject): number => this.written.get(String(contact.id)) ?? 0;

	/** A contact the run created or wrote, as it now stands. */
	record(contact: IDataObject): void {
		const id = String(contact.id);
		this.forget(id);
		this.add(contact);
		this.written.set(id, ++this.writes);
	}

	/** A contact that is gone (merged into another). */
	forget(id: string): void {
		const old = this.byId.get(id);
		if (!old) return;
		this.byId.delete(id);
		remove(this.byEmail, emailOf(old), id);
		for (const [defaultCountryCode, index] of this.byPhone) remove(index, phoneOf(old, defaultCountryCode), id);
	}

	private add(contact: IDataObject): void {
		const id = String(contact.id);
		if (this.byId.has(id)) return;
		this.byId.set(id, contact);
		add(this.byEmail, emailOf(contact), contact);
		for (const [defaultCountryCode, index] of this.byPhone) add(index, phoneOf(contact, defaultCountryCode), contact);
	}

	private phoneIndex(defaultCountryCode: string): Index {
		let index = this.byPhone.get(defaultCountryCode);
		if (!index) {
			index = new Map();
			for (const contact of this.byId.values()) add(index, phoneOf(contact, defaultCountryCode), contact);
			this.byPhone.set(defaultCountryCode, index);
		}
		return index;
	}
}
