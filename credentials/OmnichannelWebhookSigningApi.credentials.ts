import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

/** A credential, not a parameter, so n8n encrypts the secret and keeps it out of workflows and executions; nothing to test it against (docs/troubleshooting.md). */
export class OmnichannelWebhookSigningApi implements ICredentialType {
	name = 'omnichannelWebhookSigningApi';

	displayName = 'Omnichannel Webhook Signing Secret API';

	icon: Icon = { light: 'file:../icons/omnichannel.svg', dark: 'file:../icons/omnichannel.dark.svg' };

	documentationUrl = 'https://github.com/omnichannel/n8n-nodes-omnichannel/blob/HEAD/docs/trigger.md#manual-registration';

	properties: INodeProperties[] = [
		{
			displayName: 'Signing Secret',
			name: 'signingSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'e.g. whsec_…',
			hint: "Shown once when you create the webhook in the dashboard (Developer → Webhooks). Create the webhook with the trigger node's Production URL.",
		},
	];
}
