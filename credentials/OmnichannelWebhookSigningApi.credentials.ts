import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The signing secret of a webhook created in the Omnichannel dashboard, for
 * the Omnichannel Trigger's manual registration. A credential, not a node
 * parameter: n8n encrypts it at rest and leaves it out of the workflow's JSON,
 * its exports and every execution record. The trigger only verifies with it,
 * so there is nothing to call to test it: a wrong secret shows as 401 answers
 * (see docs/troubleshooting.md).
 */
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
