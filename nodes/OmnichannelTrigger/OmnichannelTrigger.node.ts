import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { saveKnownIds } from './deduplication';
import { receiveDelivery } from './delivery';
import { checkWebhookExists, createWebhook, deleteWebhook } from './lifecycle';
import { triggerProperties } from './parameters';
import { eventIdStore, kindOf, triggerKey } from './webhookState';

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

	/**
	 * n8n runs this as the first step of the execution a delivery started, with
	 * the event as input, and passes the event on. It also stores the ids this
	 * process accepted in the execution's static data, which n8n saves when the
	 * execution ends. The delivery's own run stores them too, but n8n 2.40 does
	 * not always save that copy: preparing the execution wraps the same static
	 * data again and clears its change flag, so without this a redelivery after
	 * a restart could run twice.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const kind = kindOf(this);
		// n8n saves no static data for manual (test) executions.
		if (kind === 'production') saveKnownIds(triggerKey(this, kind), eventIdStore(this.getWorkflowStaticData('node'), kind));
		return [this.getInputData().map((item, index) => ({ ...item, pairedItem: { item: index } }))];
	}
}
