import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

export type MessageDirection = 'customer' | 'agent' | 'system';

/**
 * `from_customer` is true only for inbound customer messages; `from_user_id`
 * names the agent or owner, and is null for System and for customers
 * (docs/api-assumptions.md, "Messages").
 */
export function messageDirection(message: IDataObject): MessageDirection {
	if (message.from_customer === true) return 'customer';
	if (typeof message.from_user_id === 'string' && message.from_user_id !== '') return 'agent';
	return 'system';
}

/**
 * The directions a message can be sent in, as both triggers offer them as a
 * filter; `messageDirection` tells which one a message has.
 */
export const MESSAGE_DIRECTION_OPTIONS: INodePropertyOptions[] = [
	{ name: 'From Agent', value: 'agent', description: 'Sent by an agent or owner of the workspace' },
	{ name: 'From Customer', value: 'customer', description: 'Written by a customer' },
	{ name: 'From System', value: 'system', description: 'Sent as the workspace System' },
];
