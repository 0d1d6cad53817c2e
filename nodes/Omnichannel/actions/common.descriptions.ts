import type { INodeProperties } from 'n8n-workflow';

function resourceLocator(
	name: string,
	displayName: string,
	searchListMethod: string,
	placeholder: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder,
			},
		],
	};
}

export const conversationLocator = (name = 'conversationId', displayName = 'Conversation'): INodeProperties =>
	resourceLocator(name, displayName, 'searchConversations', 'conv_…', 'The conversation to use');

export const contactLocator = (name = 'contactId', displayName = 'Contact'): INodeProperties =>
	resourceLocator(name, displayName, 'searchContacts', 'ct_…', 'The contact to use');

export const channelLocator = (name = 'channelId', displayName = 'Channel'): INodeProperties =>
	resourceLocator(name, displayName, 'searchChannels', 'ch_…', 'The channel to use');

/** Return All / Limit of every Get Many operation. */
export const returnAllOrLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/** The Filters collection of a Get Many operation. */
export function filtersCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options,
	};
}

/** Options shared by every send operation (api.md §4 attribution rules). */
export const sendOptions: INodeProperties[] = [
	{
		displayName: 'Client Request ID',
		name: 'clientRequestId',
		type: 'string',
		default: '',
		description:
			"Idempotency key: a second send with the same key returns the first message instead of sending again. Leave empty to derive it from the execution, the node and the item, so that a retry of the same execution never sends twice. Set it to an upstream record's ID (expression) to send once per record across executions.",
	},
	{
		displayName: 'From User ID',
		name: 'fromUserId',
		type: 'string',
		default: '',
		placeholder: 'usr_…',
		description:
			'ID of the agent or owner of the workspace the message is attributed to. Ignored when Send As System is on. When empty, the message is attributed to the user who created the API key.',
		displayOptions: { hide: { sendAsSystem: [true] } },
	},
	{
		displayName: 'Reply To Message ID',
		name: 'replyToMessageId',
		type: 'string',
		default: '',
		placeholder: 'msg_…',
		description: 'ID of a message of the same conversation that this message answers',
	},
	{
		displayName: 'Send As System',
		name: 'sendAsSystem',
		type: 'boolean',
		default: false,
		description:
			'Whether to attribute the message to the workspace System (no read receipts). Takes precedence over From User ID.',
	},
];

/** The send options plus an operation's own, in the alphabetical order n8n lists them. */
export function sendOptionsWith(extra: INodeProperties[]): INodeProperties[] {
	return [...sendOptions, ...extra].sort((a, b) => a.displayName.localeCompare(b.displayName));
}
