/** Omnichannel Trigger: signed webhook deliveries start one run per event; its layers: docs/development/trigger-internals.md, "Layers". */
import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IExecuteFunctions,
	INodeCredentialTestResult,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { keyBytesOfSecret } from './common/signature';
import { receiveDelivery } from './delivery/delivery';
import { triggerProperties } from './parameters';
import { checkWebhookExists, createWebhook, deleteWebhook } from './registration/lifecycle';
import { triggerStep } from './step/triggerStep';

export class OmnichannelTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Omnichannel Trigger',
		name: 'omnichannelTrigger',
		icon: { light: 'file:../../icons/omnichannel.svg', dark: 'file:../../icons/omnichannel.dark.svg' },
		group: ['trigger'],
		// 2, not 1: n8n evaluates an extra expression on every request to a
		// version-1 webhook node (the binary-data option of its old body
		// parser); its cost is on the benchmarks page.
		version: 2,
		subtitle:
			'={{ ($parameter["events"] || []).includes("*") ? "All Events" : ($parameter["events"] || []).concat($parameter["otherEvents"] ? [$parameter["otherEvents"]] : []).join(", ") }}',
		// n8n's node creator shows one entry for the action node and this trigger,
		// with this description: it has to speak for both.
		description:
			'Start workflows on new messages and contact changes, send messages and manage contacts on Telegram, WhatsApp, Instagram, Facebook, email and live chat',
		defaults: { name: 'Omnichannel Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Neither credential depends on Registration: n8n's editor hides a
		// parameter that credentials depend on (it takes it for an
		// authentication switch). Each mode checks for its own at activation.
		credentials: [
			// Labelled, as both would read "Credential": automatic registration's, and the reads of the options.
			{ name: 'omnichannelApi', required: false, displayName: 'API Credential' },
			{ name: 'omnichannelWebhookSigningApi', required: false, displayName: 'Signing Secret (Manual Registration Only)', testedBy: 'omnichannelWebhookSigningSecret' },
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty, not unset: n8n then answers an accepted delivery with the
				// node's own webhookResponse (a JSON acknowledgement) instead of its
				// default "firstEntryJson", which it sends as literal text.
				responseData: '',
				path: 'omnichannel',
			},
		],
		properties: triggerProperties,
	};

	methods = {
		credentialTest: {
			/** Nothing at the service checks a signing secret: its Test checks its form. */
			async omnichannelWebhookSigningSecret(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const secret = credential.data?.signingSecret;
				return typeof secret === 'string' && keyBytesOfSecret(secret.trim())
					? { status: 'OK', message: 'The signing secret is well-formed' }
					: {
							status: 'Error',
							message:
								"The signing secret is not valid: it starts with whsec_ followed by base64 text. Copy it again from the webhook's page in the dashboard.",
						};
			},
		},
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
		return await receiveDelivery(this);
	}

	/** The first step of every execution a delivery started (step/triggerStep.ts). */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await triggerStep(this);
	}
}
