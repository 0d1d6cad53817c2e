import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { receiveDelivery } from './delivery';
import { checkWebhookExists, createWebhook, deleteWebhook } from './lifecycle';
import { triggerProperties } from './parameters';

export class OmnichannelTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Omnichannel Trigger',
		name: 'omnichannelTrigger',
		icon: { light: 'file:../../icons/omnichannel.svg', dark: 'file:../../icons/omnichannel.dark.svg' },
		group: ['trigger'],
		// 1.1 behaves exactly as 1. n8n evaluates an extra expression on every
		// request to a version-1 webhook node (the binary-data option of its old
		// body parser); from 1.1 on it does not, ~10 ms CPU less per delivery.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle:
			'={{ ($parameter["events"] || []).includes("*") ? "All Events" : ($parameter["events"] || []).concat($parameter["otherEvents"] ? [$parameter["otherEvents"]] : []).join(", ") }}',
		// n8n's node creator shows one entry for the action node and this trigger,
		// with this description: it has to speak for both.
		description:
			'Start workflows on new messages and contact changes, send messages and manage contacts on Telegram, WhatsApp, Instagram, Facebook, email and live chat',
		defaults: { name: 'Omnichannel Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'omnichannelApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'omnichannel',
			},
		],
		properties: triggerProperties,
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkWebhookExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await createWebhook.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteWebhook.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return receiveDelivery(this);
	}
}
