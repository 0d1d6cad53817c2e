import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequestAllItems, listPage, PER_PAGE_MAX } from '../../../../shared/transport';
import type { RunContext } from '../../../helpers/operation';
import { keyNames } from './contactMatch';
import { KeyLocks } from './personLock';
import type { Place } from './personLock';
import { ContactDirectory } from './directory';
import { RunPersons } from './persons';
import type { Row } from './row';
import { AUTO_MIN_ROWS, readAllPays } from './strategy';

/** Request options of a row: its item index and the node's throttle. */
export interface RowRequest {
	itemIndex: number;
	maxRequestsPerSecond?: number;
}

/** A contact a row of this run created, for the check after the run (settle.ts). */
export interface CreatedContact {
	row: Row;
	contact: IDataObject;
	/** Every field the run wrote to it, last value wins. */
	wanted: IDataObject;
	/** Date.now() when the row's search before the create was sent, and when the create was answered. */
	searchedAt: number;
	answeredAt: number;
	/** The output of every row that reported this contact, by item index. */
	outputs: Map<number, IDataObject>;
}

/** What the rows of one run share: their place in line per person, the decision to read all contacts first (made once) and the contacts they created. */
export class UpsertRun {
	readonly created = new Map<string, CreatedContact>();

	private readonly persons = new RunPersons();

	private readonly rows: Row[] = [];

	private places: Map<number, Place> | undefined;

	private loading: Promise<ContactDirectory | undefined> | undefined;

	/** Adds a checked row, before any row runs. */
	add(row: Row): void {
		this.rows.push(row);
		this.persons.add(row);
	}

	/** The row with the keys its person lends it (persons.ts). */
	asPerson(row: Row): Row {
		return { ...row, keys: this.persons.keysOf(row) };
	}

	/** The row's place in line: a person's rows run in row order; every place is taken when the first row starts. */
	placeOf(row: Row): Place {
		if (!this.places) {
			const line = new KeyLocks();
			this.places = new Map(this.rows.map((one) => [one.itemIndex, line.reserve(keyNames(this.persons.keysOf(one)))]));
		}
		return this.places.get(row.itemIndex) as Place;
	}

	/** The contacts read first, or undefined when the run searches each row. */
	async directory(context: IExecuteFunctions, request: RowRequest): Promise<ContactDirectory | undefined> {
		this.loading ??= this.load(context, request);
		return await this.loading;
	}

	/** Notes a row's output; an update of a contact the run created adds to what the run wants it to hold. */
	reported(itemIndex: number, output: IDataObject, written?: IDataObject): void {
		const created = this.created.get(String(output.id));
		if (!created) return;
		created.outputs.set(itemIndex, output);
		if (written) Object.assign(created.wanted, written);
	}

	private async load(context: IExecuteFunctions, request: RowRequest): Promise<ContactDirectory | undefined> {
		const auto = this.rows.filter((row) => row.strategy === 'auto').length;
		const readAll = this.rows.filter((row) => row.strategy === 'readAll').length;
		if (readAll === 0 && auto < AUTO_MIN_ROWS) return undefined;
		const first = await listPage.call(context, '/contacts', {}, 1, PER_PAGE_MAX, request);
		const total = Number(first.total ?? first.data.length);
		if (readAll === 0 && !readAllPays(auto, total)) {
			hint(context, `Searched the API once per row: ${auto} rows against ${total} contacts (Find Contacts By: Automatic).`);
			return undefined;
		}
		const contacts = await apiRequestAllItems.call(context, '/contacts', {}, { ...request, firstPage: first });
		const pages = Math.max(1, Math.ceil(total / PER_PAGE_MAX));
		hint(context, `Read the workspace's ${contacts.length} contacts first (${pages} request${pages === 1 ? '' : 's'}) and matched the rows against them.`);
		return new ContactDirectory(contacts);
	}
}

/** Says in the node's output panel what the run decided; n8n versions without execution hints skip it. */
function hint(context: IExecuteFunctions, message: string): void {
	if (typeof context.addExecutionHints === 'function') context.addExecutionHints({ message, location: 'outputPane' });
}

const runs = new WeakMap<RunContext, UpsertRun>();

/** The run's shared state (one per execution of the node: the router's RunContext). */
export function upsertRun(run: RunContext): UpsertRun {
	let state = runs.get(run);
	if (!state) {
		state = new UpsertRun();
		runs.set(run, state);
	}
	return state;
}
