import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { CHANNEL_TYPE_OPTIONS } from '../shared/channelTypes';
import { LEAD_STATUSES, leadStatusOptions } from '../shared/leadStatuses';
import { MESSAGE_DIRECTION_OPTIONS } from '../shared/messageAuthors';
import type { MessageDirection } from '../shared/messageAuthors';
import { optionalId } from '../shared/parameterValues';
import { conversationLocator } from '../shared/resourceLocators';
import { simplifyDescription } from '../shared/simplifiedRecords';
import type { SimplifiedRecord } from '../shared/simplifiedRecords';

export type PollEvent = 'newMessage' | 'conversation' | 'newContact';

export const DEFAULT_MAX_ITEMS = 500;
export const MAX_ITEMS_LIMIT = 5000;


function simplify(event: PollEvent, record: SimplifiedRecord): INodeProperties {
	return {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		description: simplifyDescription(record),
		displayOptions: { show: { event: [event] } },
	};
}

export const pollingProperties: INodeProperties[] = [
	{
		displayName: 'Trigger On',
		name: 'event',
		type: 'options',
		default: 'newMessage',
		options: [
			{
				name: 'New Contact',
				value: 'newContact',
				description: 'A contact was created',
			},
			{
				name: 'New Message',
				value: 'newMessage',
				description: 'A message from a customer, an agent or the system',
			},
			{
				name: 'New or Updated Conversation',
				value: 'conversation',
				description: 'A conversation was started, or had activity (delta sync)',
			},
		],
	},
	{
		displayName:
			"Contact updates cannot be polled: the API has no filter on a contact's update time, so every poll would read every contact. For contact updates, use the Omnichannel Trigger (webhook) with 'Contact Updated'.",
		name: 'contactUpdatesNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { event: ['newContact'] } },
	},
	{
		displayName: 'Conversations',
		name: 'conversationChanges',
		type: 'options',
		default: 'newAndUpdated',
		displayOptions: { show: { event: ['conversation'] } },
		options: [
			{
				name: 'New and Updated',
				value: 'newAndUpdated',
				description: 'Each conversation that was started or had activity since the last poll, in its latest state',
			},
			{
				name: 'New Only',
				value: 'newOnly',
				description: 'Each conversation started since the last poll, once',
			},
		],
	},
	simplify('newMessage', 'message'),
	simplify('conversation', 'conversation'),
	simplify('newContact', 'contact'),
	{
		displayName: 'Max Items per Poll',
		name: 'maxItems',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_ITEMS_LIMIT },
		// A literal: the scanner reads defaults from the built file without evaluating it. Same as DEFAULT_MAX_ITEMS.
		default: 500,
		description:
			'The most records one poll outputs, oldest first. The rest follow on the next polls; nothing is skipped.',
	},
	{
		displayName: 'Filters',
		name: 'messageFilters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { event: ['newMessage'] } },
		options: [
			{
				displayName: 'Channel Types',
				name: 'channelTypes',
				type: 'multiOptions',
				default: [],
				description: 'Only messages on these channel types. Leave empty for all.',
				options: CHANNEL_TYPE_OPTIONS,
			},
			{
				...conversationLocator('conversationId', 'Conversation'),
				required: false,
				description: 'Only messages of this conversation',
			},
			{
				displayName: 'Message Directions',
				name: 'directions',
				type: 'multiOptions',
				default: [],
				description: 'Only messages sent this way. Leave empty for all.',
				options: MESSAGE_DIRECTION_OPTIONS,
			},
		],
	},
	{
		displayName: 'Filters',
		name: 'conversationFilters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { event: ['conversation'] } },
		options: [
			{
				displayName: 'Channel Types',
				name: 'channelTypes',
				type: 'multiOptions',
				default: [],
				description:
					'Only conversations on these channel types. Leave empty for all. The API has no such filter: n8n reads every changed conversation and keeps the matches.',
				options: CHANNEL_TYPE_OPTIONS,
			},
		],
	},
	{
		displayName: 'Filters',
		name: 'contactFilters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { event: ['newContact'] } },
		options: [
			{
				displayName: 'Lead Status',
				name: 'leadStatus',
				type: 'options',
				options: leadStatusOptions.filter((option) => option.value !== ''),
				default: 'new',
				description:
					'Only new contacts that have this lead status when n8n polls (a contact created with another status and changed later is not a new contact)',
			},
		],
	},
];

/** What one poll needs from the node's parameters. */
export interface PollConfig {
	event: PollEvent;
	newOnly: boolean;
	simplify: boolean;
	maxItems: number;
	directions: MessageDirection[];
	channelTypes: string[];
	conversationId?: string;
	leadStatus?: string;
}

function stringList(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((one): one is string => typeof one === 'string' && one !== '') : [];
}

export function readConfig(context: IPollFunctions): PollConfig {
	const node = context.getNode();
	const event = context.getNodeParameter('event', 'newMessage') as PollEvent;
	if (!['newMessage', 'conversation', 'newContact'].includes(event)) {
		throw new NodeOperationError(node, `Unknown event "${String(event)}"`, {
			description: "Choose an event in 'Trigger On'.",
		});
	}
	const maxItems = Number(context.getNodeParameter('maxItems', DEFAULT_MAX_ITEMS));
	if (!Number.isInteger(maxItems) || maxItems < 1 || maxItems > MAX_ITEMS_LIMIT) {
		throw new NodeOperationError(node, "Invalid 'Max Items per Poll'", {
			description: `Enter a whole number from 1 to ${MAX_ITEMS_LIMIT}.`,
		});
	}
	const config: PollConfig = {
		event,
		newOnly: event === 'conversation' && context.getNodeParameter('conversationChanges', 'newAndUpdated') === 'newOnly',
		simplify: context.getNodeParameter('simplify', false) === true,
		maxItems,
		directions: [],
		channelTypes: [],
	};
	if (event === 'newMessage') {
		const filters = context.getNodeParameter('messageFilters', {}) as IDataObject;
		config.directions = stringList(filters.directions) as MessageDirection[];
		config.channelTypes = stringList(filters.channelTypes);
		config.conversationId = optionalId(filters.conversationId);
	} else if (event === 'conversation') {
		const filters = context.getNodeParameter('conversationFilters', {}) as IDataObject;
		config.channelTypes = stringList(filters.channelTypes);
	} else {
		const filters = context.getNodeParameter('contactFilters', {}) as IDataObject;
		const leadStatus = typeof filters.leadStatus === 'string' ? filters.leadStatus : '';
		if (leadStatus !== '') {
			if (!(LEAD_STATUSES as readonly string[]).includes(leadStatus)) {
				throw new NodeOperationError(node, `Invalid lead status "${leadStatus}"`, {
					description: `Choose one of ${LEAD_STATUSES.join(', ')}.`,
				});
			}
			config.leadStatus = leadStatus;
		}
	}
	return config;
}
