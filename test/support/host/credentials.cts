/**
 * n8n's CredentialsHelper, reduced to what the Omnichannel credentials need,
 * for the three hosts (action node, webhook trigger, polling trigger). It hands
 * the node the credential's data as entered, and applies the credential type's
 * `authenticate` as packages/cli's CredentialsHelper does (a function is
 * called; a generic one is resolved through n8n's expression engine), so
 * requests carry exactly the headers n8n would set.
 */
import { ICredentialsHelper } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeProperties,
	Workflow,
} from 'n8n-workflow';

/** What the Omnichannel API credential holds, and the trigger's signing-secret credential where a test sets one. */
export interface Credentials {
	baseUrl: string;
	apiKey: string;
	signingSecret?: string;
}

export class CredentialsHelper extends ICredentialsHelper {
	/**
	 * @param credentialType the credential type as the host loaded it (built or source)
	 * @param data the values a user entered
	 * @param beforeRequest runs before each authenticated request: a host's check of the context making it
	 */
	constructor(
		private readonly credentialType: ICredentialType,
		private readonly data: Credentials,
		private readonly beforeRequest: () => void = () => {},
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		this.beforeRequest();
		if (typeName !== this.credentialType.name) throw new Error(`Unknown credential type ${typeName}`);
		const { authenticate } = this.credentialType;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (!authenticate || !workflow || !node) throw new Error('The credential has no authentication');
		const target = requestOptions as unknown as Record<string, IDataObject | undefined>;
		for (const [outerKey, values] of Object.entries(authenticate.properties)) {
			target[outerKey] ??= {};
			for (const [key, value] of Object.entries(values as IDataObject)) {
				const resolve = (raw: unknown) =>
					workflow.expression.getSimpleParameterValue(node, raw as string, 'internal', { $credentials: credentials }, undefined, '');
				(target[outerKey] as IDataObject)[resolve(key) as string] = resolve(value) as string;
			}
		}
		return requestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('Not used by the node');
	}

	async getDecrypted(
		_additionalData: unknown,
		_nodeCredentials: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		if (type === 'omnichannelWebhookSigningApi') return { signingSecret: this.data.signingSecret ?? '' };
		const { baseUrl, apiKey } = this.data;
		return { baseUrl, apiKey };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(): INodeProperties[] {
		return this.credentialType.properties;
	}
}
