import type { IDataObject } from 'n8n-workflow';

import type { ListPage } from '../shared/transport';
import type { Cursor, Keyed } from './cursor';
import { isCovered } from './cursor';

export interface ListSource {
	/** Page `page` (1-based) of the list, newest first (transport's listPage). */
	fetchPage(page: number): Promise<ListPage>;
	/** The record's id and key (ms); throws when the record has none. */
	identify(record: IDataObject): { id: string; key: number };
}

export interface Scan {
	/** Every record after the cursor, once each (its newest version). */
	records: Keyed[];
	requests: number;
	passes: number;
	/** False when the list changed during every pass: the records are then not complete. */
	settled: boolean;
}

/** Passes over the list in one poll before giving up (the next poll tries again). */
export const MAX_PASSES = 6;

interface Pass {
	pages: number;
	/** Records were added or moved above the part already read: some may be above page 1 now. */
	grew: boolean;
	/** Records were removed above the part already read: some may have slid onto pages already read. */
	shrank: boolean;
}

/** Reads the list from the newest record down to the cursor, checking what changes while it pages: page numbers are no snapshot (docs/api-assumptions.md, "Lists and pagination"). */
export async function scanAfter(source: ListSource, cursor: Cursor): Promise<Scan> {
	const found = new Map<string, Keyed>();
	let requests = 0;
	let topUp = false;
	for (let pass = 1; pass <= MAX_PASSES; pass++) {
		const known = new Map<string, number>([...found.values()].map((one) => [one.id, one.key]));
		const result = await readPass(source, cursor, found, topUp ? known : undefined, () => requests++);
		if (result.shrank) {
			topUp = false;
			continue;
		}
		if (result.grew && result.pages > 1) {
			topUp = true;
			continue;
		}
		return { records: [...found.values()], requests, passes: pass, settled: true };
	}
	return { records: [...found.values()], requests, passes: MAX_PASSES, settled: false };
}

async function readPass(
	source: ListSource,
	cursor: Cursor,
	found: Map<string, Keyed>,
	stopAtKnown: Map<string, number> | undefined,
	counted: () => void,
): Promise<Pass> {
	const inPass = new Set<string>();
	const pass: Pass = { pages: 0, grew: false, shrank: false };
	let previousTotal: number | undefined;
	for (let pageNumber = 1; ; pageNumber++) {
		const page = await source.fetchPage(pageNumber);
		counted();
		pass.pages++;
		const data = Array.isArray(page.data) ? page.data : [];
		if (typeof page.total === 'number') {
			if (previousTotal !== undefined && page.total < previousTotal) pass.shrank = true;
			if (previousTotal !== undefined && page.total > previousTotal) pass.grew = true;
			previousTotal = page.total;
		}
		let reachedCursor = false;
		let reachedKnown = false;
		for (const record of data) {
			const { id, key } = source.identify(record);
			if (cursor.at !== null && key < cursor.at) {
				reachedCursor = true;
				continue;
			}
			if (isCovered(cursor, key, id)) continue;
			if (inPass.has(id)) pass.grew = true;
			inPass.add(id);
			if (stopAtKnown?.get(id) === key) reachedKnown = true;
			const held = found.get(id);
			if (!held || key > held.key) found.set(id, { id, key, record });
		}
		if (pass.shrank || reachedCursor || reachedKnown || page.has_next !== true || data.length === 0) return pass;
	}
}
