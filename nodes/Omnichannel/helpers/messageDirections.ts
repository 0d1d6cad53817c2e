import type { INodePropertyOptions } from 'n8n-workflow';

/**
 * The directions a message can be sent in, as both triggers offer them as a
 * filter. Which direction a message has is decided by `messageDirection` of
 * the webhook trigger's filters (contract.md §4: from_customer, from_user_id).
 */
export const MESSAGE_DIRECTION_OPTIONS: INodePropertyOptions[] = [
	{ name: 'From Agent', value: 'agent', description: 'Sent by an agent or owner of the workspace' },
	{ name: 'From Customer', value: 'customer', description: 'Written by a customer' },
	{ name: 'From System', value: 'system', description: 'Sent as the workspace System' },
];
