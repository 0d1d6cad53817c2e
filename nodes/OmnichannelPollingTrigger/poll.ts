import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { simplifyRecord } from '../shared/simplifiedRecords';
import { listPage, PER_PAGE_MAX } from '../shared/transport';
import { isCovered, moveCursor, newestPoint, oldestFirst, takeOldest, timestampMs } from './cursor';
import type { Cursor, Keyed } from './cursor';
import { eventList } from './events';
import type { EventList } from './events';
import { readConfig } from './parameters';
import type { PollConfig } from './parameters';
import { scanAfter } from './scan';
import type { ListSource } from './scan';
import { exclusive, pollKey, readState, rememberEmittedFrom, sameCursor, savePending, stateFingerprint, writeState } from './state';
import type { PollState } from './state';

/** Fetch Test Event looks at most this many pages for a record that passes the node's filters. */
const TEST_EVENT_PAGES = 3;

/** The event's list as the scan, the first poll and Fetch Test Event read it: pages from the transport's listPage. */
function listSource(context: IPollFunctions, list: EventList, qs: IDataObject, perPage = PER_PAGE_MAX): ListSource {
	const node = context.getNode();
	return {
		fetchPage: async (page) => await listPage.call(context, list.endpoint, qs, page, perPage),
		identify: (record) => {
			const id = record?.id;
			const key = timestampMs(record?.[list.keyField]);
			if (typeof id !== 'string' || id === '' || key === undefined) {
				throw new NodeApiError(node, { reason: 'unexpected record' }, {
					message: `The Omnichannel API listed a ${list.noun} without an id or a valid ${list.keyField}`,
					description: `The trigger orders ${list.noun}s by ${list.keyField} and cannot place this one. Try again later; if it persists, contact Omnichannel support.`,
				});
			}
			return { id, key };
		},
	};
}

function output(records: IDataObject[], config: PollConfig, list: EventList): INodeExecutionData[][] {
	return [records.map((record) => ({ json: config.simplify ? simplifyRecord(record, list.record) : record }))];
}

export async function poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const config = readConfig(this);
	const list = eventList(config);
	if (this.getMode() === 'manual') return output([await newestRecord(this, config, list)], config, list);

	const key = pollKey(this.getWorkflow().id, this.getNode());
	const outcome = await exclusive(key, async () => {
		const staticData = this.getWorkflowStaticData('node');
		const read = stateFingerprint(staticData);
		// n8n has not yet saved what the last poll of this node wrote: it would emit the same records.
		if (savePending(key, read)) return null;
		const state = readState(staticData, list.scope);
		if (!state) {
			// The first poll only records where to start.
			writeState(staticData, await baseline(this, list));
			return null;
		}
		const { emit, next } = await nextRecords(this, config, list, state);
		if (!sameCursor(next.cursor, state.cursor) || !sameCursor(next.created, state.created)) writeState(staticData, next);
		if (emit.length === 0) return null;
		rememberEmittedFrom(key, read);
		return output(emit, config, list);
	});
	// Another poll of this node was running: it emitted what was new.
	return outcome.ran ? outcome.value : null;
}

/** The newest record's key and the ids that share it; an empty list starts at its beginning. */
async function baseline(context: IPollFunctions, list: EventList): Promise<PollState> {
	const source = listSource(context, list, list.baselineQuery);
	const top: Keyed[] = [];
	for (let page = 1; ; page++) {
		const { data, has_next: hasNext } = await source.fetchPage(page);
		const records = (Array.isArray(data) ? data : []).map((record) => ({ ...source.identify(record), record }));
		const newest = top[0]?.key ?? records[0]?.key;
		top.push(...records.filter((one) => one.key === newest));
		// Usually page 1 holds every record of the newest millisecond.
		if (hasNext !== true || records.length === 0 || records.some((one) => one.key !== newest)) break;
	}
	const cursor = newestPoint(top);
	return list.endpoint === '/conversations' ? { scope: list.scope, cursor, created: cursor } : { scope: list.scope, cursor };
}

async function scan(context: IPollFunctions, list: EventList, cursor: Cursor): Promise<Keyed[]> {
	const result = await scanAfter(listSource(context, list, list.query(cursor)), cursor);
	if (result.settled) return result.records;
	throw new NodeOperationError(context.getNode(), `The ${list.noun}s kept changing while n8n read them`, {
		description: `Records were added, moved or removed on the pages being read during each of ${result.passes} passes. Nothing was emitted; the next poll tries again.`,
	});
}

async function nextRecords(
	context: IPollFunctions,
	config: PollConfig,
	list: EventList,
	state: PollState,
): Promise<{ emit: IDataObject[]; next: PollState }> {
	const records = await scan(context, list, state.cursor);
	if (!config.newOnly) {
		const taken = takeOldest(records, state.cursor, config.maxItems, list.matches);
		return { emit: taken.emit.map((one) => one.record), next: { ...state, cursor: taken.cursor } };
	}
	return newConversations(records, config, list, state);
}

/** "New Only" conversations: those created after `created`, oldest first; when Max Items leaves some, only `created` moves, otherwise both cursors move to the newest read. */
function newConversations(
	records: Keyed[],
	config: PollConfig,
	list: EventList,
	state: PollState,
): { emit: IDataObject[]; next: PollState } {
	const created = state.created ?? state.cursor;
	const fresh: Keyed[] = [];
	for (const one of records) {
		const createdAt = timestampMs(one.record.created_at);
		if (createdAt === undefined || isCovered(created, createdAt, one.id) || !list.matches(one.record)) continue;
		fresh.push({ id: one.id, key: createdAt, record: one.record });
	}
	fresh.sort(oldestFirst);
	if (fresh.length > config.maxItems) {
		const emit = fresh.slice(0, config.maxItems);
		const nextCreated = emit.reduce(moveCursor, created);
		return { emit: emit.map((one) => one.record), next: { ...state, created: nextCreated } };
	}
	const cursor = takeOldest(records, state.cursor, Number.POSITIVE_INFINITY, () => true).cursor;
	return { emit: fresh.map((one) => one.record), next: { ...state, cursor, created: laterOf(cursor, created) } };
}

function laterOf(a: Cursor, b: Cursor): Cursor {
	if (a.at === null) return b;
	if (b.at === null || a.at > b.at) return a;
	if (b.at > a.at) return b;
	return { at: a.at, ids: [...new Set([...b.ids, ...a.ids])] };
}

/** Fetch Test Event: the newest record that passes the node's filters, read without touching the poll's state. */
async function newestRecord(context: IPollFunctions, config: PollConfig, list: EventList): Promise<IDataObject> {
	const nodeFilters = config.directions.length > 0 || config.channelTypes.length > 0;
	const source = listSource(context, list, list.query({ at: null, ids: [] }), nodeFilters ? PER_PAGE_MAX : 1);
	const pages = nodeFilters ? TEST_EVENT_PAGES : 1;
	let read = 0;
	for (let page = 1; page <= pages; page++) {
		const { data, has_next: hasNext } = await source.fetchPage(page);
		const records = Array.isArray(data) ? data : [];
		read += records.length;
		const matching = records.filter(list.matches);
		if (config.newOnly && matching.length > 0) {
			// Ordered by activity: the newest started conversation is the one created last.
			return matching.reduce((newest, one) =>
				(timestampMs(one.created_at) ?? 0) > (timestampMs(newest.created_at) ?? 0) ? one : newest,
			);
		}
		if (matching.length > 0) return matching[0];
		if (hasNext !== true) break;
	}
	const where = config.conversationId ? ` in conversation ${config.conversationId}` : '';
	throw new NodeOperationError(context.getNode(), `No ${list.noun} to show yet${where}`, {
		description: nodeFilters
			? `None of the newest ${read} ${list.noun}s passes the node's filters. Create one that does (or widen the filters), then fetch again.`
			: `The API lists no ${list.noun}${config.leadStatus ? ` with lead status "${config.leadStatus}"` : ''}. Create one, then fetch again.`,
	});
}
