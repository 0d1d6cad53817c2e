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

/** A message sent one of the directions (any, when none is chosen). */
export function inDirections(message: IDataObject, directions: MessageDirection[]): boolean {
	return directions.length === 0 || directions.includes(messageDirection(message));
}

/** A message sent one of the chosen ways, on one of the chosen channel types. */
export function matchesMessageFilters(message: IDataObject, filters: MessageFilters): boolean {
	return inDirections(message, filters.directions) && onChannelTypes(message, filters.channelTypes);
}
