import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { resourceProperties } from './actions/index';
import { router } from './actions/router';
import * as listSearch from '../shared/listSearch';
import { sendAndWaitWebhook, sendAndWaitWebhooks } from './sendAndWait/webhook';

export class Omnichannel implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Omnichannel',
		name: 'omnichannel',
		icon: { light: 'file:../../icons/omnichannel.svg', dark: 'file:../../icons/omnichannel.dark.svg' },
		group: ['transform'],
		// 1.1: Report > Get names first response and reply time as the field does (docs/operations.md, "Reports").
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Send messages, manage contacts and conversations, and report support work on Telegram, WhatsApp, Instagram, Facebook, email and live chat',
		defaults: { name: 'Omnichannel' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'omnichannelApi', required: true }],
		// Served only while an execution waits in Message > Send and Wait for Response.
		webhooks: sendAndWaitWebhooks,
		properties: [
			...resourceProperties,
			{
				displayName: 'Request Options',
				name: 'requestOptions',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Max Requests Per Second',
						name: 'maxRequestsPerSecond',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 60 },
						default: 60,
						description:
							'Upper bound on the request rate of this node. Requests with the same API key share the API limit of 60 per second in any case; lower it to leave room for other systems using the key.',
					},
				],
			},
		],
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await sendAndWaitWebhook.call(this);
	}
}
