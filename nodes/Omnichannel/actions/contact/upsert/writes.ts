import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, apiRequestAllItems, MAX_ATTEMPTS } from '../../../../shared/transport';
import { changedFields, keyNames, phoneSearchText } from './contactMatch';
import { whilePersonLocked } from './personLock';
import { UPSERT_FIELD } from '../../../helpers/simplify';
import type { ItemValidator } from '../../../helpers/validation';
import type { ContactDirectory } from './directory';
import { findPerson, pickContact } from './matches';
import type { ContactSource, Matches } from './matches';
import type { Row } from './row';
import type { RowRequest, UpsertRun } from './run';

/** Whether a failed create the search then did not find may be sent again: only after the API's own 500 or 503, which says it is done (docs/api-assumptions.md, "The nodes"). */
export const createMaySendAgain = (status: number): boolean => status === 500 || status === 503;

/** Comment is stored but never returned (docs/api-assumptions.md, "Contacts"): it cannot be compared. */
const COMPARED = (field: string) => field !== 'comment';

/** The row's output: the contact and what the row did to it. */
export function report(contact: IDataObject, action: string, fields: string[], matchedBy: Matches['matchedBy'] | null): IDataObject {
	return { ...contact, [UPSERT_FIELD]: { action, changedFields: fields, matchedBy } };
}

/** The API's candidates for a row: its search (docs/api-assumptions.md, "Contact search"). */
export function apiSource(context: IExecuteFunctions, request: RowRequest): ContactSource {
	const search = async (text: string) => await apiRequestAllItems.call(context, '/contacts', { search: text }, request);
	return { withEmail: search, withPhone: async (phone) => await search(phoneSearchText(phone)) };
}

/** Writes only the fields that differ (another writing of an email or phone is no change), Comment only along with a real change; `patch` is undefined when nothing changed. */
export async function writeOnto(
	context: IExecuteFunctions,
	request: RowRequest,
	contact: IDataObject,
	wanted: IDataObject,
	defaultCountryCode: string,
): Promise<{ written: IDataObject; changed: string[]; patch?: IDataObject }> {
	const changed = changedFields(contact, wanted, defaultCountryCode).filter(COMPARED);
	if (changed.length === 0) return { written: contact, changed };
	const patch: IDataObject = Object.fromEntries(changed.map((field) => [field, wanted[field]]));
	if (wanted.comment !== undefined) patch.comment = wanted.comment;
	// The API requires a name on every update (docs/api-assumptions.md, "Contacts").
	patch.name ??= contact.name;
	await apiRequest.call(context, 'PATCH', `/contacts/${encodeURIComponent(String(contact.id))}`, { ...request, body: patch });
	// The API answers an update bare and changes only the fields sent (docs/api-assumptions.md, "Contacts"): the contact as written, no extra read.
	const written: IDataObject = { ...contact, ...patch };
	delete written.updated_at;
	delete written.comment;
	return { written, changed, patch };
}

const isNotFound = (error: unknown): boolean => error instanceof NodeApiError && Number(error.httpCode) === 404;

/** An error as the node raises it: the transport's NodeApiError, or anything else wrapped with the item. */
export function nodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/** One row of a run: finds its contact, then updates or creates it. */
export class RowWriter {
	private readonly request: RowRequest;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly validator: ItemValidator,
		private readonly row: Row,
		private readonly state: UpsertRun,
		throttle: { maxRequestsPerSecond?: number },
	) {
		this.request = { itemIndex: row.itemIndex, ...throttle };
	}

	/** A row found among the contacts read first is updated there; otherwise (or when that contact is gone) it searches under the person's lock before it creates. */
	async run(): Promise<IDataObject> {
		const directory = this.row.strategy === 'searchEachRow' ? undefined : await this.state.directory(this.context, this.request);
		if (directory) {
			const matches = await findPerson(this.row, directory.source(this.row.defaultCountryCode));
			if (matches.contacts.length > 0) {
				const output = await this.update(matches, directory, true);
				if (output) return output;
			}
		}
		// Searched under the lock: no other execution of this node creates the person between this search and the create.
		return await whilePersonLocked(this.context, this.row.itemIndex, keyNames(this.row.keys), async (held) => {
			const searchedAt = Date.now();
			const matches = await findPerson(this.row, apiSource(this.context, this.request));
			const output = matches.contacts.length > 0 ? await this.update(matches, directory, false) : undefined;
			return output ?? (await this.create(held, searchedAt, directory));
		});
	}

	/** Undefined when the contact, read before the rows ran, is gone since (merged into another): the row then searches. */
	private async update(matches: Matches, directory: ContactDirectory | undefined, readFirst: boolean): Promise<IDataObject | undefined> {
		const contact = pickContact(this.context.getNode(), this.row, matches, directory?.writtenAt);
		let outcome: Awaited<ReturnType<typeof writeOnto>>;
		try {
			outcome = await writeOnto(this.context, this.request, contact, this.row.body, this.row.defaultCountryCode);
		} catch (error) {
			if (!readFirst || !isNotFound(error)) throw nodeError(this.context, error, this.row.itemIndex);
			directory?.forget(String(contact.id));
			return undefined;
		}
		const { written, changed, patch } = outcome;
		if (patch) directory?.record(written);
		const output = report(written, patch ? 'updated' : 'unchanged', changed, matches.matchedBy);
		this.state.reported(this.row.itemIndex, output, patch);
		return output;
	}

	private async create(held: () => boolean, searchedAt: number, directory: ContactDirectory | undefined): Promise<IDataObject> {
		const { row, context } = this;
		if (row.body.name === undefined) {
			this.validator.fail('Name', 'it is empty, and no contact matches: a new contact needs a name', "Enter the contact's name, or map the column that holds it.", 'text of 1 to 200 characters');
		}
		const fields = Object.keys(row.body).filter(COMPARED);
		const created = (contact: IDataObject): IDataObject => {
			directory?.record(contact);
			this.state.created.set(String(contact.id), { row, contact, wanted: { ...row.body }, searchedAt, answeredAt: Date.now(), outputs: new Map() });
			const output = report(contact, 'created', fields, null);
			this.state.reported(row.itemIndex, output);
			return output;
		};
		for (let attempt = 1; ; attempt++) {
			if (!held()) {
				throw new NodeOperationError(context.getNode(), `Another n8n process took over the lock that keeps contacts from being created twice [item ${row.itemIndex}]`, {
					itemIndex: row.itemIndex,
					description: 'This process was out of touch with the database for too long. Nothing was created for this item; run it again.',
				});
			}
			try {
				return created((await apiRequest.call(context, 'POST', '/contacts', { ...this.request, body: row.body })) as IDataObject);
			} catch (error) {
				const failure = nodeError(context, error, row.itemIndex);
				// A create that may have reached the API (a 5xx, a dropped connection) is looked for before the item fails.
				const status = failure instanceof NodeApiError ? Number(failure.httpCode) : NaN;
				if (status >= 400 && status < 500) throw failure;
				const again = await findPerson(row, apiSource(context, this.request));
				if (again.contacts.length > 0) return created(pickContact(context.getNode(), row, again));
				if (!createMaySendAgain(status) || attempt >= MAX_ATTEMPTS) throw failure;
			}
		}
	}
}
