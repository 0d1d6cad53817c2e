import type { IDataObject, IExecuteFunctions, IHookFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';

/**
 * Every n8n context that calls the API: the action node's run, a list search
 * in the editor, the webhook trigger's registration hooks, and a poll. Each
 * offers what the transport uses (getNode, getCredentials,
 * helpers.httpRequestWithAuthentication).
 */
export type OmnichannelContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IPollFunctions;

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
