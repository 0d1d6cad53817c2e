import { NodeConnectionTypes } from 'n8n-workflow';
import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';

import { searchConversations } from '../shared/listSearch';
import { pollingProperties } from './parameters';
import { poll } from './poll';

export class OmnichannelPollingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Omnichannel Polling Trigger',
		name: 'omnichannelPollingTrigger',
		icon: { light: 'file:../../icons/omnichannel.svg', dark: 'file:../../icons/omnichannel.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ {"newMessage": "New Message", "conversation": "New or Updated Conversation", "newContact": "New Contact"}[$parameter["event"]] }}',
		description:
			'Polls Omnichannel for new messages, conversations and contacts, for n8n instances the service cannot reach with webhooks',
		defaults: { name: 'Omnichannel Polling Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'omnichannelApi', required: true }],
		properties: pollingProperties,
	};

	methods = { listSearch: { searchConversations } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await poll.call(this);
	}
}
