import { NodeApiError } from 'n8n-workflow';
import type { INode, JsonObject } from 'n8n-workflow';

export interface FailedCall {
	method: string;
	endpoint: string;
	attempts: number;
	itemIndex?: number;
	/** The server's Retry-After, when it asked for a wait too long to make. */
	retryAfterMs?: number;
}

/** What a failed call's error was made of, for tool mode's wording (see the router); kept off the error. */
export interface FailedCallDetails {
	/** HTTP status; undefined when no answer came. */
	status?: number;
	/** The API's own short reason (`error` of the body), redacted. */
	apiText?: string;
	method: string;
	endpoint: string;
	/** For a connection failure: whether the request may be repeated safely. */
	retriesAllowed?: boolean;
}

export const failedCalls = new WeakMap<Error, FailedCallDetails>();

/** "/contacts/ct_1" → 'contact "ct_1"', for messages people and agents can act on. */
function describeRecord(endpoint: string): string {
	const [collection, id] = endpoint.split('/').filter(Boolean);
	if (!id) return `"${endpoint}"`;
	const kind = collection.endsWith('s') ? collection.slice(0, -1) : collection;
	return `${kind} "${decodeURIComponent(id)}"`;
}

interface Explanation {
	message: string;
	description: string;
}

function apiErrorText(body: unknown): string | undefined {
	if (body && typeof body === 'object' && typeof (body as JsonObject).error === 'string') {
		return (body as JsonObject).error as string;
	}
	return undefined;
}

/** The error body with every text passed through `redact` (a server could echo the key). */
function redactBody(body: unknown, redact: (text: string) => string): unknown {
	if (!body || typeof body !== 'object') return body;
	const copy: JsonObject = {};
	for (const [key, value] of Object.entries(body as JsonObject)) {
		copy[key] = typeof value === 'string' ? redact(value) : value;
	}
	return copy;
}

function explainStatus(status: number, body: unknown, call: FailedCall): Explanation {
	const apiText = apiErrorText(body);
	const route = `${call.method} ${call.endpoint}`;
	const retried = `after ${call.attempts} attempt${call.attempts === 1 ? '' : 's'}`;
	if (status === 400) {
		return {
			message: `The Omnichannel API rejected the request: ${apiText ?? 'bad request'}`,
			description: `${route} answered 400. Check the node's parameters for this item.`,
		};
	}
	if (status === 401) {
		return {
			message: 'The Omnichannel API key is invalid, revoked or expired',
			description:
				'The API answered 401. Create a new key in the dashboard (Developer → API keys) and update the Omnichannel credential.',
		};
	}
	if (status === 403) {
		const scope = body && typeof body === 'object' ? (body as JsonObject).required_scope : undefined;
		if (typeof scope === 'string' && scope) {
			return {
				message: `The Omnichannel API key lacks the scope "${scope}"`,
				description: `${route} needs the scope "${scope}". Grant it to the key in the dashboard, or use a key that has it.`,
			};
		}
		return {
			message: "The Omnichannel API refused this n8n instance's IP address",
			description: `The API key has an IP allowlist that does not include the address n8n sends from (API: ${apiText ?? 'forbidden'}). Add that address to the key's allowlist in the dashboard.`,
		};
	}
	if (status === 404) {
		return {
			message: `The ${describeRecord(call.endpoint)} was not found`,
			description: `${route} answered 404: it does not exist in the API key's workspace (a merged contact no longer exists). Check the ID, or pick the record from the list.`,
		};
	}
	if (status === 413) {
		return {
			message: 'The file is too large for the Omnichannel API',
			description: 'The largest accepted upload is 25 MiB. Send a smaller file, or share a link to it with Send Text.',
		};
	}
	if (status === 429) {
		const wait = call.retryAfterMs === undefined ? '' : ` and asks to wait ${Math.ceil(call.retryAfterMs / 1000)} s`;
		return {
			message: `The Omnichannel API rate limit was still exceeded ${retried}${wait}`,
			description:
				"The key sends more than about 60 requests per second, possibly from other workflows or systems too. Lower 'Max Requests Per Second' in the node's Request Options, or spread the work over time.",
		};
	}
	if (status >= 500) {
		return {
			message: `The Omnichannel API failed with status ${status} ${retried}`,
			description: `${route} kept failing on the server side. Try again later.`,
		};
	}
	return {
		message: `The Omnichannel API answered ${status}${apiText ? `: ${apiText}` : ''}`,
		description: `${route} answered ${status}. Check the node's parameters for this item, or try again later.`,
	};
}

/** The API answered with an error status that will not be retried (any more). */
export function httpStatusError(
	node: INode,
	status: number,
	rawBody: unknown,
	call: FailedCall,
	redact: (text: string) => string,
): NodeApiError {
	const body = redactBody(rawBody, redact);
	const { message, description } = explainStatus(status, body, call);
	// Only the API's own error body is kept: never the request, whose headers
	// carry the key.
	const response: JsonObject = { statusCode: status };
	const apiText = apiErrorText(body);
	if (apiText) response.error = apiText;
	const error = new NodeApiError(node, response, {
		message,
		description,
		httpCode: String(status),
		itemIndex: call.itemIndex,
	});
	failedCalls.set(error, { status, apiText, method: call.method, endpoint: call.endpoint });
	return error;
}

/** No HTTP answer at all, after the retries allowed for this request. */
export function connectionError(
	node: INode,
	baseUrl: string,
	call: FailedCall,
	retriesAllowed: boolean,
): NodeApiError {
	const host = new URL(baseUrl).host;
	const error = new NodeApiError(
		node,
		{ reason: 'connection failed' },
		{
			message: `Could not get an answer from the Omnichannel API at ${host} after ${call.attempts} attempt${call.attempts === 1 ? '' : 's'}`,
			description: retriesAllowed
				? 'The connection failed or was dropped every time. Check that the Base URL is reachable from n8n.'
				: `The connection was dropped after ${call.method} ${call.endpoint} was sent, so it was not repeated (it could have been applied twice). Check whether it took effect before running it again.`,
			itemIndex: call.itemIndex,
		},
	);
	failedCalls.set(error, { method: call.method, endpoint: call.endpoint, retriesAllowed });
	return error;
}

/** What n8n's SSRF protection blocked: an address or a hostname. */
export interface SsrfBlock {
	kind: 'ip' | 'hostname';
	/** The blocked address or hostname, when n8n's error names it. */
	target?: string;
}

const SSRF_ERROR_NAMES: Record<string, SsrfBlock['kind']> = {
	SsrfBlockedIpError: 'ip',
	SsrfBlockedHostnameError: 'hostname',
};

/** n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) refuses the request before connecting. */
export function ssrfBlock(error: unknown): SsrfBlock | undefined {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const { name, ip, hostname } = current as { name?: unknown; ip?: unknown; hostname?: unknown };
		const kind = typeof name === 'string' ? SSRF_ERROR_NAMES[name] : undefined;
		if (kind) {
			const target = kind === 'ip' ? ip : hostname;
			return typeof target === 'string' && target ? { kind, target } : { kind };
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/** The request never left n8n: its SSRF protection blocked the API's address. */
export function ssrfBlockedError(node: INode, baseUrl: string, block: SsrfBlock, itemIndex?: number): NodeApiError {
	const host = new URL(baseUrl).hostname;
	const why =
		block.kind === 'hostname'
			? `refuses requests to the hostnames its administrator blocked, and "${host}" is one of them`
			: `refuses requests to private and local addresses, and the Base URL of the Omnichannel credential resolves to one${block.target ? ` (${block.target})` : ''}`;
	let range = "the API's address range";
	if (block.target) range = `${block.target}/${block.target.includes(':') ? 128 : 32}`;
	const allow =
		block.kind === 'hostname'
			? `add "${host}" to N8N_SSRF_ALLOWED_HOSTNAMES`
			: `add ${range} to N8N_SSRF_ALLOWED_IP_RANGES, or "${host}" to N8N_SSRF_ALLOWED_HOSTNAMES`;
	return new NodeApiError(
		node,
		{ reason: 'blocked by SSRF protection' },
		{
			message: `n8n's SSRF protection blocked the request to the Omnichannel API at ${host}`,
			description: `With N8N_SSRF_PROTECTION_ENABLED=true this n8n ${why}. Nothing was sent. To allow it, ask the n8n administrator to ${allow} in n8n's environment and restart n8n.`,
			itemIndex,
		},
	);
}
