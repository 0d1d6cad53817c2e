/**
 * Omnichannel Trigger: the service's signed webhook deliveries start one run
 * per event, in one n8n process and in queue mode. Its files:
 * - lifecycle.ts: creates, reuses and retires the webhook at the service as
 *   n8n publishes and unpublishes the workflow;
 * - delivery.ts and signature.ts: verify, parse and filter each delivery;
 * - firstRun.ts: the execution's first step, which lets one execution per
 *   event run downstream;
 * - customerMessage.ts, in the same step after firstRun.ts: the options
 *   that read the conversation for a customer's message, Answer a Burst Once
 *   (burst.ts: one execution per burst continues) and Step Aside While a
 *   Person Answers (stepAside.ts);
 * - replyRouting.ts and handOver.ts: a chat reply to a waiting Send and
 *   Wait of the workflow is handed to that execution, and no other starts.
 * What it keeps, where, and why:
 * - registrationInStaticData.ts, the workflow's static data (with this
 *   process's latest change in process memory): the webhook's id and signing
 *   secret, which only the create call returns;
 * - eventsInProcess.ts, process memory: the ids this process is starting or
 *   started an execution for, so copies arriving together start one;
 * - eventsInDatabase.ts, n8n's database (its de-duplication store): the ids
 *   that ran downstream, shared by every process and kept across restarts,
 *   checked under the lock of databaseLock.ts (the same store's workflow row),
 *   and the ids of the messages a continued burst carried (burst.ts).
 */
import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IDataObject,
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

import type { BurstMessage } from './burst';
import { conversationOptionsOf, customerMessageOf, customerMessageStep } from './customerMessage';
import { receiveDelivery } from './delivery';
import type { ServiceEvent } from './delivery';
import { markStarted } from './eventsInProcess';
import { dataOf, firstRunOf } from './firstRun';
import { checkWebhookExists, createWebhook, deleteWebhook } from './lifecycle';
import { outputsDataOnly, triggerProperties } from './parameters';
import { QUIET_WAITED_KEY } from './quietHold';
import { keyBytesOfSecret } from './signature';
import { kindOf, triggerKey } from './registrationInStaticData';

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
			// Automatic registration's; manual registration makes no API call.
			{ name: 'omnichannelApi', required: false },
			// Manual registration's.
			{ name: 'omnichannelWebhookSigningApi', required: false, testedBy: 'omnichannelWebhookSigningSecret' },
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

	/**
	 * n8n runs this as the first step of every execution a delivery started,
	 * with the whole event as input, wherever the execution runs (a queue-mode
	 * worker included). It records the event id in n8n's database: the first
	 * execution of an event passes it on; a later one (a copy that reached
	 * another n8n process, or a redelivery after a restart) outputs nothing, so
	 * no downstream node runs, and says so in its hints. With the options that
	 * read the conversation, a first execution of a customer's message then
	 * continues only as customerMessage.ts decides.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const dataOnly = outputsDataOnly(this);
		const conversationOptions = conversationOptionsOf(this.getNode(), this.getNodeParameter('options', 0, {}) as IDataObject);
		const output: INodeExecutionData[] = [];
		const trigger = triggerKey(this, kindOf(this));
		for (const [index, item] of this.getInputData().entries()) {
			const { [QUIET_WAITED_KEY]: quietWaitedMs, ...event } = item.json as ServiceEvent;
			const verdict = await firstRunOf(this, event.id);
			// The execution exists: later copies reaching this process start none.
			markStarted(trigger, event.id);
			if (verdict === 'duplicate') {
				this.addExecutionHints({
					message: `Event ${event.id} already ran in an earlier execution: this copy ran nothing downstream.`,
					location: 'outputPane',
				});
				continue;
			}
			const json = { ...(dataOnly ? dataOf(event) : event) };
			const customerMessage = customerMessageOf(event);
			if (customerMessage) {
				const waitedMs = typeof quietWaitedMs === 'number' ? quietWaitedMs : 0;
				const outcome = await customerMessageStep(this, customerMessage as BurstMessage, conversationOptions, index, waitedMs);
				if (!outcome.continue) {
					this.addExecutionHints({ message: outcome.hint, location: 'outputPane' });
					continue;
				}
				if (outcome.burst) json.burst = outcome.burst;
			}
			output.push({ json, pairedItem: { item: index } });
		}
		return [output];
	}
}
