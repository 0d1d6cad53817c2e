import type { IDataObject } from 'n8n-workflow';

import { matchesMessageFilters } from '../../shared/messageFilters';
import type { MessageFilters } from '../../shared/messageFilters';

/**
 * Whether the event passes the node's filters. Direction and channel belong to
 * messages only: other kinds (contacts, kinds added later) always pass, so a
 * filter never hides an event the user subscribed to and could not filter.
 */
export function passesFilters(eventType: string, data: unknown, filters: MessageFilters): boolean {
	if (eventType !== 'message.created') return true;
	return matchesMessageFilters(data !== null && typeof data === 'object' ? (data as IDataObject) : {}, filters);
}
