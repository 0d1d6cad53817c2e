import type { IDataObject } from 'n8n-workflow';

import { matchesMessageFilters, onChannelTypes } from '../shared/messageFilters';
import type { SimplifiedRecord } from '../shared/simplifiedRecords';
import type { Cursor } from './cursor';
import type { PollConfig } from './parameters';

/** How one event reads its list (each list's order: docs/api-assumptions.md, "Lists and pagination") and filters it. */
export interface EventList {
	endpoint: '/messages' | '/conversations' | '/contacts';
	/** The timestamp the list is ordered by, newest first. */
	keyField: 'created_at' | 'updated_at';
	/** Query of the scan: the API's own filters, and delta sync for conversations. */
	query(cursor: Cursor): IDataObject;
	/** Query of the first poll; for contacts the whole list, as a lead status filter would make contacts moved to that status later look new. */
	baselineQuery: IDataObject;
	/** Filters the API does not have, applied by the node. */
	matches(record: IDataObject): boolean;
	record: SimplifiedRecord;
	/** Names the records in messages, e.g. "message". */
	noun: string;
	/** The list the cursor belongs to: a changed event or API filter starts over; node-side filters, Simplify and Max Items keep the cursor. */
	scope: string;
}

export function eventList(config: PollConfig): EventList {
	if (config.event === 'newMessage') {
		const qs: IDataObject = config.conversationId ? { conversation_id: config.conversationId } : {};
		return {
			endpoint: '/messages',
			keyField: 'created_at',
			query: () => ({ ...qs }),
			baselineQuery: { ...qs },
			matches: (record) => matchesMessageFilters(record, config),
			record: 'message',
			noun: 'message',
			scope: `newMessage|${config.conversationId ?? ''}`,
		};
	}
	if (config.event === 'conversation') {
		return {
			endpoint: '/conversations',
			keyField: 'updated_at',
			// Whole UNIX seconds, updated_at >= last_updated_at (docs/api-assumptions.md, "Lists and pagination"): the cursor's ids hold that second's handled records.
			query: (cursor) => (cursor.at === null ? {} : { last_updated_at: Math.floor(cursor.at / 1000) }),
			baselineQuery: {},
			matches: (record) => onChannelTypes(record, config.channelTypes),
			record: 'conversation',
			noun: 'conversation',
			scope: `conversation|${config.newOnly ? 'newOnly' : 'newAndUpdated'}`,
		};
	}
	const qs: IDataObject = config.leadStatus ? { lead_status: config.leadStatus } : {};
	return {
		endpoint: '/contacts',
		keyField: 'created_at',
		query: () => ({ ...qs }),
		baselineQuery: {},
		matches: () => true,
		record: 'contact',
		noun: 'contact',
		scope: `newContact|${config.leadStatus ?? ''}`,
	};
}
