import type { INodeProperties } from 'n8n-workflow';

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

/**
 * Created After / Created Before of a Get Many whose list comes newest first
 * by creation (messages, contacts): n8n reads only the pages that reach into
 * the window (docs/operations.md, "Time windows").
 */
export function createdWindowFilters(records: string): INodeProperties[] {
	return [
		{
			displayName: 'Created After',
			name: 'createdAfter',
			type: 'dateTime',
			default: '',
			description: `Only ${records} created at or after this time, in the workflow time zone unless the value carries its own. The API has no such filter; it lists ${records} newest first, so reading stops at this time.`,
		},
		{
			displayName: 'Created Before',
			name: 'createdBefore',
			type: 'dateTime',
			default: '',
			description: `Only ${records} created before this time, in the workflow time zone unless the value carries its own. Reading starts at the first page that reaches back to it, found by a search over page numbers, instead of reading the newer pages.`,
		},
	];
}

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

/**
 * Options shared by every send operation (attribution:
 * docs/api-assumptions.md, "Messages").
 */
const sendOptions: INodeProperties[] = [
	{
		displayName: 'Client Request ID',
		name: 'clientRequestId',
		type: 'string',
		default: '',
		placeholder: 'e.g. order-1042-confirmation',
		description:
			"Key that makes the send happen only once: a second send with the same key returns the first message instead of sending again. Leave empty to derive it from the execution, the node and the item, so that a retry of the same execution never sends twice. Set it to an upstream record's ID (expression) to send once per record across executions. As an AI tool, let the model define it, so that a retried call with the same key sends once. The message carries it with the prefix n8n_ (added when missing), which tells n8n's own sends from a person's.",
	},
	{
		displayName: 'From User ID',
		name: 'fromUserId',
		type: 'string',
		default: '',
		placeholder: 'e.g. usr_2LmQ8vX4kT0bR7nW5cZp',
		description:
			"ID of the agent or owner of the workspace the message is attributed to. When empty, the message is attributed to the user who created the API key. Hidden and not sent when 'Send As System' is on: Send As System wins over From User ID.",
		// Send As System takes precedence
		// (docs/api-assumptions.md, "Messages"), so the field is hidden while
		// it is on; readSendFields drops a stored value too.
		displayOptions: { hide: { sendAsSystem: [true] } },
	},
	{
		displayName: 'Reply To Message ID',
		name: 'replyToMessageId',
		type: 'string',
		default: '',
		placeholder: 'e.g. msg_6YpR1dK9sV3mB8qX0tNw',
		description: 'ID of a message of the same conversation that this message answers',
	},
	{
		displayName: 'Send As System',
		name: 'sendAsSystem',
		type: 'boolean',
		default: false,
		description:
			"Whether to attribute the message to the workspace System (no read receipts). Send As System wins over From User ID: with it on, 'From User ID' is hidden and not sent.",
	},
];

/**
 * The Options collection of a send: the send options plus the operation's
 * own, in the alphabetical order n8n lists them.
 */
export function sendOptionsCollection(extra: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...sendOptions, ...extra].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}
