import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
	ISupplyDataFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

/** Every n8n context that calls the API: the action node's run, a list search in the editor, the webhook trigger's registration hooks, a poll, a webhook call, and the chat memory supplying an AI Agent. */
export type OmnichannelContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IPollFunctions
	| IWebhookFunctions
	| ISupplyDataFunctions;

export interface ApiRequestOptions {
	qs?: IDataObject;
	body?: IDataObject | FormData | Buffer;
	headers?: IDataObject;
	itemIndex?: number;
	/** Whether repeating the request after it may have reached the server is harmless. */
	idempotent?: boolean;
	/** A lower request rate than the API's 60 per second for this call. */
	maxRequestsPerSecond?: number;
	/** Answer a success with the body's bytes (a Buffer), for a caller that parses it record by record (pages.ts, docs/development/shared-internals.md). */
	rawBody?: boolean;
	/** When the caller's own time runs out (ms since the epoch), e.g. a webhook delivery the sender stops waiting for: each attempt's timeout ends there, and no retry starts that could not finish before it. */
	deadline?: number;
}
