import { NodeOperationError } from 'n8n-workflow';
import type { IHookFunctions, INodeProperties, IWebhookFunctions } from 'n8n-workflow';

import { ALL_EVENTS, normaliseEvents } from './common/events';
import { keyBytesOfSecret } from './common/signature';
import { TRIGGER_OPTIONS } from './options';

type TriggerContext = IHookFunctions | IWebhookFunctions;

export const triggerProperties: INodeProperties[] = [
	{
		// n8n: the event choice of a trigger is "Trigger On", without a tooltip.
		// The editor's node creator also lists one "On ..." entry per option from it.
		displayName: 'Trigger On',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: ['message.created'],
		options: [
			{
				name: 'All Events',
				value: ALL_EVENTS,
				description: 'Every event, including kinds the service adds later',
			},
			{ name: 'Contact Created', value: 'contact.created' },
			{ name: 'Contact Updated', value: 'contact.updated' },
			{
				name: 'Message Created',
				value: 'message.created',
				description: 'A message from a customer, an agent or the system',
			},
		],
	},
	{
		displayName: 'Other Event Names',
		name: 'otherEvents',
		type: 'string',
		default: '',
		placeholder: 'e.g. conversation.updated',
		description:
			"More event names, separated by commas, for kinds Omnichannel offers that 'Trigger On' does not list yet",
	},
	{
		displayName: 'Registration',
		name: 'registration',
		type: 'options',
		default: 'automatic',
		description: 'Who creates the webhook that sends the events to this node',
		options: [
			{
				name: 'Automatic',
				value: 'automatic',
				description:
					'The node creates its webhook when the workflow is published and removes it when unpublished. The API key needs the webhooks:write and webhooks:read scopes.',
			},
			{
				name: 'Manual',
				value: 'manual',
				description:
					'You create the webhook in the dashboard and enter its signing secret in a credential. For API keys without webhooks:write.',
			},
		],
	},
	{
		displayName:
			"In the dashboard, create a webhook with this node's Production URL (under 'Webhook URLs' above) and the events chosen in 'Trigger On', then enter its signing secret in an Omnichannel Webhook Signing Secret credential",
		name: 'manualRegistrationNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { registration: ['manual'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: TRIGGER_OPTIONS.map((option) => option.description),
	},
];

export function usesManualRegistration(context: TriggerContext): boolean {
	return context.getNodeParameter('registration', 'automatic') === 'manual';
}

/** The events to subscribe to and to pass on; throws when none is chosen. */
export function subscribedEvents(context: TriggerContext): string[] {
	const events = normaliseEvents(context.getNodeParameter('events', []), context.getNodeParameter('otherEvents', ''));
	if (events.length === 0) {
		throw new NodeOperationError(context.getNode(), 'Choose at least one event', {
			description: "Pick events in 'Trigger On', or type event names in 'Other Event Names'.",
		});
	}
	return events;
}

/** Neither credential is required by the node's description, so each registration mode checks for its own. */
export function requireCredential(context: IHookFunctions | IWebhookFunctions, name: string, message: string): void {
	if (context.getNode().credentials?.[name] === undefined) {
		throw new NodeOperationError(context.getNode(), message, {
			description: 'Select or create it under Credential in the node, or switch Registration.',
		});
	}
}

/** The manual registration's signing secret, from its credential (stored encrypted, never exported with the workflow). */
export async function manualSigningSecret(context: IHookFunctions | IWebhookFunctions): Promise<unknown> {
	requireCredential(context, 'omnichannelWebhookSigningApi', 'Manual registration needs an Omnichannel Webhook Signing Secret API credential');
	return (await context.getCredentials<{ signingSecret?: string }>('omnichannelWebhookSigningApi')).signingSecret;
}

/** The HMAC key of the pasted secret; throws (without quoting it) when it is malformed. */
export async function checkManualSigningSecret(context: IHookFunctions): Promise<Buffer> {
	const secret = await manualSigningSecret(context);
	const key = typeof secret === 'string' ? keyBytesOfSecret(secret.trim()) : undefined;
	if (!key) {
		throw new NodeOperationError(context.getNode(), 'The signing secret is not valid', {
			description:
				"It starts with whsec_ followed by base64 text. Copy it again from the webhook's page in the dashboard.",
		});
	}
	return key;
}
