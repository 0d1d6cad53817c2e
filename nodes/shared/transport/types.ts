import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

export type OmnichannelContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export interface ApiRequestOptions {
	qs?: IDataObject;
	body?: IDataObject | FormData | Buffer;
	headers?: IDataObject;
	itemIndex?: number;
	/**
	 * Whether repeating the request after it may have reached the server is
	 * harmless. Defaults to true for everything but POST; sends pass true
	 * because their client_request_id makes a repeat return the original.
	 */
	idempotent?: boolean;
	/** A lower request rate than the API's 60 per second for this call. */
	maxRequestsPerSecond?: number;
}
