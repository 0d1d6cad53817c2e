import { NodeApiError, sleep } from 'n8n-workflow';
import type {
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE, contextCredentials, forgetReusedCredentials } from './credentials';
import { connectionError, httpStatusError, ssrfBlock, ssrfBlockedError } from './errors';
import {
	MAX_ATTEMPTS,
	MAX_RETRY_AFTER_MS,
	backoffDelay,
	classifyTransportFailure,
	isRetryableStatus,
	parseRetryAfter,
} from './retry';
import { rateLimited, throttled } from './rateLimiter';
import type { Grant } from './rateLimiter';
import type { ApiRequestOptions, OmnichannelContext } from './types';

interface FullResponse {
	body: unknown;
	headers: Record<string, unknown>;
	statusCode: number;
}

const REQUEST_TIMEOUT_MS = 60_000;

function cancelSignal(context: OmnichannelContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
}

function parseBody(body: unknown): unknown {
	if (Buffer.isBuffer(body)) return parseBody(body.toString('utf8'));
	if (typeof body !== 'string' || body === '') return body;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

/** One call of the public API, relative to the credential's base URL (e.g. '/contacts'). */
export async function apiRequest<T = IDataObject>(
	this: OmnichannelContext,
	method: IHttpRequestMethods,
	endpoint: string,
	options: ApiRequestOptions = {},
): Promise<T> {
	const node = this.getNode();
	const { itemIndex } = options;
	const { baseUrl, fingerprint, redact, decrypted } = await contextCredentials(this, itemIndex);
	const credentialOptions = decrypted ? { credentialsDecrypted: decrypted } : undefined;
	const idempotent = options.idempotent ?? method !== 'POST';

	const request: IHttpRequestOptions = {
		method,
		url: `${baseUrl}${endpoint}`,
		qs: options.qs,
		body: options.body as IHttpRequestOptions['body'],
		headers: { Accept: 'application/json', ...options.headers },
		json: options.rawBody !== true,
		...(options.rawBody === true ? { encoding: 'arraybuffer' as const } : {}),
		returnFullResponse: true,
		// Statuses are handled here, with the headers (Retry-After) at hand.
		ignoreHttpStatusErrors: true,
	};
	const { deadline } = options;
	const timeLeft = () => (deadline === undefined ? REQUEST_TIMEOUT_MS : Math.min(REQUEST_TIMEOUT_MS, deadline - Date.now()));
	/** Whether a retry after `pauseMs` can still finish before the deadline. */
	const retryFits = (pauseMs: number) => deadline === undefined || Date.now() + pauseMs < deadline;

	for (let attempt = 1; ; attempt++) {
		const call = { method, endpoint, attempts: attempt, itemIndex };
		let response: FullResponse;
		let grant: Grant = { at: Date.now() };
		try {
			response = await throttled(fingerprint, options.maxRequestsPerSecond, async (granted) => {
				grant = granted;
				return (await this.helpers.httpRequestWithAuthentication.call(
					this,
					CREDENTIAL_TYPE,
					// A fresh copy per attempt: n8n's helpers may alter the options.
					{ ...request, headers: { ...request.headers }, timeout: Math.max(1, timeLeft()) },
					credentialOptions,
				)) as FullResponse;
			});
		} catch (error) {
			if (cancelSignal(this)?.aborted) throw cancelledError(node);
			const blocked = ssrfBlock(error);
			if (blocked) throw ssrfBlockedError(node, baseUrl, blocked, itemIndex);
			const failure = classifyTransportFailure(error);
			if (!failure) {
				throw new NodeApiError(
					node,
					{ reason: 'request failed' },
					{
						message: `The request to the Omnichannel API failed: ${redact(String((error as Error).message))}`,
						description: "Check the Base URL of the Omnichannel credential and that n8n can reach it, then run the node again.",
						itemIndex,
					},
				);
			}
			const mayRetry = failure === 'notSent' || idempotent;
			if (!mayRetry || attempt >= MAX_ATTEMPTS || !retryFits(backoffDelay(attempt))) {
				throw connectionError(node, baseUrl, call, mayRetry);
			}
			await pauseBeforeRetry(this, backoffDelay(attempt));
			continue;
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300 && options.rawBody === true) return response.body as T;
		const body = parseBody(response.body);
		if (status >= 200 && status < 300) return body as T;

		// A 429 means the request was refused before any work, so it is always safe to repeat; a 5xx may have been applied, so only idempotent requests repeat: GETs and sends with an idempotency key (docs/api-assumptions.md, "Authentication, scopes and rate limits").
		const retryAfterMs = parseRetryAfter(response.headers?.['retry-after']);
		const safeToRepeat = status === 429 || idempotent;
		const retryable =
			isRetryableStatus(status) &&
			safeToRepeat &&
			attempt < MAX_ATTEMPTS &&
			(retryAfterMs === undefined || retryAfterMs <= MAX_RETRY_AFTER_MS) &&
			retryFits(retryAfterMs ?? backoffDelay(attempt));
		if (status === 401) forgetReusedCredentials(this);
		if (!retryable) throw httpStatusError(node, status, body, { ...call, retryAfterMs }, redact);

		if (status === 429) {
			// The key's rate in this process is cut; this request waits its Retry-After.
			await pauseBeforeRetry(this, rateLimited(fingerprint, grant, retryAfterMs ?? backoffDelay(attempt)));
		} else {
			await pauseBeforeRetry(this, Math.max(retryAfterMs ?? 0, backoffDelay(attempt)));
		}
	}
}

async function pauseBeforeRetry(context: OmnichannelContext, ms: number): Promise<void> {
	if (ms > 0) await sleep(Math.ceil(ms));
	if (cancelSignal(context)?.aborted) throw cancelledError(context.getNode());
}

function cancelledError(node: INode): NodeApiError {
	return new NodeApiError(node, { reason: 'cancelled' }, { message: 'The execution was cancelled' });
}
