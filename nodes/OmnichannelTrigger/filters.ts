import type { IDataObject } from 'n8n-workflow';

import { messageDirection } from '../shared/messageDirections';
import type { MessageDirection } from '../shared/messageDirections';

export interface EventFilters {
	/** Empty: every direction. */
	directions: MessageDirection[];
	/** Empty: every channel type. */
	channelTypes: string[];
}

/**
 * Whether the event passes the node's filters. Direction and channel belong to
 * messages only: other kinds (contacts, kinds added later) always pass, so a
 * filter never hides an event the user subscribed to and could not filter.
 */
export function passesFilters(eventType: string, data: unknown, filters: EventFilters): boolean {
	if (eventType !== 'message.created') return true;
	const message = data !== null && typeof data === 'object' ? (data as IDataObject) : {};
	if (filters.directions.length > 0 && !filters.directions.includes(messageDirection(message))) {
		return false;
	}
	if (filters.channelTypes.length > 0) {
		return typeof message.channel === 'string' && filters.channelTypes.includes(message.channel);
	}
	return true;
}
