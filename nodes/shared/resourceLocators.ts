import type { INodeProperties } from 'n8n-workflow';

/** A record picked From List or By ID. */
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
	resourceLocator(name, displayName, 'searchConversations', 'e.g. conv_7Hq2mX9aLp4RtV0bN3cK', 'The conversation to use');

export const contactLocator = (name = 'contactId', displayName = 'Contact'): INodeProperties =>
	resourceLocator(name, displayName, 'searchContacts', 'e.g. ct_4fK8sQ2nWz7LbR1mT9xY', 'The contact to use');

export const channelLocator = (name = 'channelId', displayName = 'Channel'): INodeProperties =>
	resourceLocator(name, displayName, 'searchChannels', 'e.g. ch_9TbW3kLx0QmZ5rN2vP8s', 'The channel to use');
