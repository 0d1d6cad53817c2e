import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

import { OWN_SEND_PREFIXES } from './sendKeys';

/** Who wrote a message, decided here for the whole package: customer, package (a prefix of sendKeys.ts), person or system (docs/api-assumptions.md, "Messages"). */
export type MessageAuthor = 'customer' | 'person' | 'system' | 'package';

const attributedToUser = (message: IDataObject): boolean =>
	typeof message.from_user_id === 'string' && message.from_user_id !== '';

export function isOwnSend(message: IDataObject): boolean {
	const key = message.client_request_id;
	return typeof key === 'string' && OWN_SEND_PREFIXES.some((prefix) => key.startsWith(prefix));
}

export function messageAuthor(message: IDataObject): MessageAuthor {
	if (message.from_customer === true) return 'customer';
	if (isOwnSend(message)) return 'package';
	return attributedToUser(message) ? 'person' : 'system';
}

/** The attribution the API shows, which the triggers' direction filter matches: a send of this package counts as the agent or System it is attributed to, as in the inbox. */
export type MessageDirection = 'customer' | 'agent' | 'system';

export function messageDirection(message: IDataObject): MessageDirection {
	const author = messageAuthor(message);
	if (author === 'customer') return 'customer';
	if (author === 'person') return 'agent';
	if (author === 'system') return 'system';
	return attributedToUser(message) ? 'agent' : 'system';
}

/** The directions both triggers offer as a filter. */
export const MESSAGE_DIRECTION_OPTIONS: INodePropertyOptions[] = [
	{ name: 'From Agent', value: 'agent', description: 'Sent by an agent or owner of the workspace (or by n8n on their behalf)' },
	{ name: 'From Customer', value: 'customer', description: 'Written by a customer' },
	{ name: 'From System', value: 'system', description: 'Sent as the workspace System' },
];
