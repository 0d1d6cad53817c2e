import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, listPage, MAX_ATTEMPTS, PER_PAGE_MAX } from '../../../../shared/transport';
import { oldestFirst } from './contactMatch';
import type { OperationCall } from '../../../helpers/operation';
import { UPSERT_FIELD } from '../../../helpers/simplify';
import { ContactDirectory } from './directory';
import { findPerson } from './matches';
import type { Matches } from './matches';
import type { CreatedContact, RowRequest, UpsertRun } from './run';
import { apiSource, nodeError, writeOnto } from './writes';

/** "Once per person" across workflows, which share no lock: a run that created contacts then merges each person's newer contacts into the first created (docs/api-assumptions.md, "The nodes"). */

/** The outcome of the check for one created contact: the contact kept and how it matched the row, or why the check failed. */
type Settled = { kept: IDataObject; merged: string[]; matchedBy: Matches['matchedBy'] } | { error: Error };

const timeOf = (contact: IDataObject): number => Date.parse(String(contact.created_at ?? '')) || 0;

/** The API-time moment before which no search of this run ran: each create's created_at less the row's own wait (a duration, so the clocks need not agree). */
const runStart = (created: CreatedContact[]): number =>
	Math.min(...created.map((one) => timeOf(one.contact) - (one.answeredAt - one.searchedAt)));

/** The contacts created at or after `since`, newest first, each once. */
async function createdSince(context: IExecuteFunctions, since: number, request: RowRequest): Promise<IDataObject[]> {
	const found = new Map<string, IDataObject>();
	for (let page = 1; ; page++) {
		const { data, has_next: hasNext } = await listPage.call(context, '/contacts', {}, page, PER_PAGE_MAX, request);
		for (const contact of data ?? []) if (timeOf(contact) >= since) found.set(String(contact.id), contact);
		const last = data?.[data.length - 1];
		if (!hasNext || !last || timeOf(last) < since) return [...found.values()];
	}
}

const isStatus = (error: unknown, status: number): boolean => error instanceof NodeApiError && Number(error.httpCode) === status;

/** Whether the contact is there (a GET; a 404 says no). */
async function exists(context: IExecuteFunctions, id: string, request: RowRequest): Promise<boolean> {
	try {
		await apiRequest.call(context, 'GET', `/contacts/${encodeURIComponent(id)}`, request);
		return true;
	} catch (error) {
		if (isStatus(error, 404)) return false;
		throw nodeError(context, error, request.itemIndex);
	}
}

/** Merges `secondary` into `primary`; a failed merge (not retried: it may have applied) is checked: a gone secondary was merged, a gone primary gives `false`. */
async function merge(context: IExecuteFunctions, primary: string, secondary: string, request: RowRequest): Promise<IDataObject | false> {
	const read = async () => (await apiRequest.call(context, 'GET', `/contacts/${encodeURIComponent(primary)}`, request)) as IDataObject;
	for (let attempt = 1; ; attempt++) {
		try {
			const body = { primary_id: primary, secondary_id: secondary };
			const answer = (await apiRequest.call(context, 'POST', '/contacts/merge', { ...request, body })) as IDataObject;
			// A merge answers the primary after the merge (docs/api-assumptions.md, "Contacts").
			return (answer.contact as IDataObject | undefined) ?? (await read());
		} catch (error) {
			if (!(await exists(context, secondary, request))) return await read().catch(() => false as const);
			if (!(await exists(context, primary, request))) return false;
			if (attempt >= MAX_ATTEMPTS) throw nodeError(context, error, request.itemIndex);
		}
	}
}

/** Merges the newer contacts of the person into the first created and writes the run's fields onto it; undefined when there is nothing to do. */
async function settle(context: IExecuteFunctions, created: CreatedContact, window: ContactDirectory, since: number, request: RowRequest): Promise<Settled | undefined> {
	const { row } = created;
	const ours = String(created.contact.id);
	let matchedBy: Matches['matchedBy'] = 'email';
	const personIn = async (contacts: ContactDirectory) => {
		const matches = await findPerson(row, contacts.source(row.defaultCountryCode));
		matchedBy = matches.matchedBy;
		return oldestFirst(matches.contacts);
	};
	/** The person as the API has it now, among the contacts created since the run began. */
	const lookUp = async () => new ContactDirectory((await findPerson(row, apiSource(context, request))).contacts.filter((contact) => timeOf(contact) >= since));
	const merged: string[] = [];
	let candidates = window;
	if (window.has(ours)) {
		const person = await personIn(window);
		if (person.length <= 1 || !person.some((contact) => String(contact.id) === ours)) return undefined;
	} else {
		// Gone: the other run merged ours into its contact.
		merged.push(ours);
		candidates = await lookUp();
	}
	for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
		const [first, ...newer] = await personIn(candidates);
		if (!first) return undefined;
		let kept: IDataObject | false = first;
		for (const secondary of newer) {
			kept = await merge(context, String(first.id), String(secondary.id), request);
			if (kept === false) break;
			merged.push(String(secondary.id));
		}
		if (kept !== false) {
			const { written } = await writeOnto(context, request, kept, created.wanted, row.defaultCountryCode);
			return { kept: written, merged, matchedBy };
		}
		// The contact to keep was merged away meanwhile (by the other run, into an older one).
		candidates = await lookUp();
	}
	return {
		error: new NodeOperationError(context.getNode(), `Another contact of this person was created at the same moment, and merging the two kept failing [item ${row.itemIndex}]`, {
			itemIndex: row.itemIndex,
			description: `Merge them with Contact > Merge; this row's contact is ${ours}.`,
		}),
	};
}

/** After every row, the check above per created contact: new calls for the rows whose output changes (merged) or that fail. */
export async function settleCreated(context: IExecuteFunctions, state: UpsertRun, throttle: { maxRequestsPerSecond?: number }): Promise<Map<number, OperationCall>> {
	const calls = new Map<number, OperationCall>();
	const created = [...state.created.values()].sort((a, b) => a.row.itemIndex - b.row.itemIndex);
	if (created.length === 0) return calls;
	const since = runStart(created);
	const request: RowRequest = { itemIndex: created[0].row.itemIndex, ...throttle };
	let window: ContactDirectory;
	try {
		window = new ContactDirectory(await createdSince(context, since, request));
	} catch (error) {
		for (const one of created) calls.set(one.row.itemIndex, async () => await Promise.reject(error));
		return calls;
	}
	// One after another: two contacts of this run may be merged into the same one.
	for (const one of created) {
		const outcome = await settle(context, one, window, since, { ...request, itemIndex: one.row.itemIndex }).catch((error: unknown) => ({ error: error as Error }));
		if (!outcome) continue;
		if ('error' in outcome) {
			calls.set(one.row.itemIndex, async () => await Promise.reject(outcome.error));
			continue;
		}
		const mergedAway = String(outcome.kept.id) !== String(one.contact.id);
		for (const [itemIndex, output] of one.outputs) {
			let upsert: IDataObject = { ...(output[UPSERT_FIELD] as IDataObject), merged: outcome.merged };
			// The person's contact is another row's, or another workflow's, created first: this row's made no new person.
			if (mergedAway && itemIndex === one.row.itemIndex) upsert = { ...upsert, action: 'updated', matchedBy: outcome.matchedBy };
			calls.set(itemIndex, async () => ({ ...outcome.kept, [UPSERT_FIELD]: upsert }));
		}
	}
	return calls;
}
