import type { IDataObject } from 'n8n-workflow';

import { messageDirection } from './messageAuthors';
import type { MessageDirection } from './messageAuthors';

/** The filters both triggers apply themselves, for want of them in the API. */
export interface MessageFilters {
	/** Empty: every direction. */
	directions: MessageDirection[];
	/** Empty: every channel type. */
	channelTypes: string[];
}

/** A message or conversation on one of the channel types (any, when none is chosen). */
export function onChannelTypes(record: IDataObject, channelTypes: string[]): boolean {
	return channelTypes.length === 0 || (typeof record.channel === 'string' && channelTypes.includes(record.channel));
}

/** A message sent one of the chosen ways, on one of the chosen channel types. */
export function matchesMessageFilters(message: IDataObject, filters: MessageFilters): boolean {
	if (filters.directions.length > 0 && !filters.directions.includes(messageDirection(message))) return false;
	return onChannelTypes(message, filters.channelTypes);
}
