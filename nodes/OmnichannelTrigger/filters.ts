import type { IDataObject } from 'n8n-workflow';

export type MessageDirection = 'customer' | 'agent' | 'system';

export interface EventFilters {
	/** Empty: every direction. */
	directions: MessageDirection[];
	/** Empty: every channel type. */
	channelTypes: string[];
}

/**
 * contract.md §4: `from_customer` is true only for inbound customer messages;
 * `from_user_id` names the agent or owner, and is null for System and for
 * customers.
 */
export function messageDirection(message: IDataObject): MessageDirection {
	if (message.from_customer === true) return 'customer';
	if (typeof message.from_user_id === 'string' && message.from_user_id !== '') return 'agent';
	return 'system';
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
