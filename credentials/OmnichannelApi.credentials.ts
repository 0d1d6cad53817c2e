import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/** Bearer API key; the nodes check the base URL and the key's form before each request, as n8n cannot validate a credential's fields. */
export class OmnichannelApi implements ICredentialType {
	name = 'omnichannelApi';

	displayName = 'Omnichannel API';

	icon: Icon = { light: 'file:../icons/omnichannel.svg', dark: 'file:../icons/omnichannel.dark.svg' };

	documentationUrl = 'https://github.com/omnichannel/n8n-nodes-omnichannel/blob/HEAD/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://app.omnichannel.example/api/public/v1',
			required: true,
			placeholder: 'e.g. https://app.omnichannel.example/api/public/v1',
			description: 'Address of the public API, ending in /api/public/v1',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'e.g. svc_live_…',
			hint: 'Create a key in the dashboard under Developer → API keys, with the scopes of the operations you use (see the documentation). It starts with svc_live_ or svc_test_ and is shown only once.',
		},
	];

	/** In code, not an expression: the trigger removes a retired webhook after n8n has released the workflow's expression engine. */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		return { ...requestOptions, headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.apiKey ?? '')}` } };
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/me',
		},
		// n8n's own text for these is a bare "Unauthorized" / "Forbidden" / "Not Found".
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The API key is invalid, revoked or expired. Create a new key in the dashboard and paste it whole.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: "This key does not accept requests from n8n's IP address. Add it to the key's IP allowlist.",
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'Nothing answers at this Base URL. It must end in /api/public/v1.',
				},
			},
		],
	};
}
