import { createHmac } from 'crypto';
import { NodeOperationError } from 'n8n-workflow';
import type { ICredentialDataDecryptedObject, ICredentialsDecrypted, INode } from 'n8n-workflow';

import { BoundedMap } from '../processMemory/boundedMap';
import type { OmnichannelContext } from './types';

export const CREDENTIAL_TYPE = 'omnichannelApi';

/** Anything else is "malformed" and the API would answer 401 (docs/api-assumptions.md, "Authentication, scopes and rate limits"). */
const API_KEY_PATTERN = /^svc_(live|test)_([A-Za-z0-9]{8,64})\.[A-Za-z0-9_-]{16,128}$/;
const BASE_PATH = '/api/public/v1';

export interface OmnichannelCredentials {
	/** Base URL without trailing slash, ending in /api/public/v1. */
	baseUrl: string;
	/** The credential as n8n decrypted it, handed back with every request so that n8n does not read and decrypt it again (docs/development/shared-internals.md). */
	decrypted?: ICredentialsDecrypted;
	/** Identifies the key for rate limiting without revealing it: the server's origin plus the public `<id>` part of `svc_<mode>_<id>.<secret>`. */
	fingerprint: string;
	/** Removes the key (and its secret part) from text that may be shown. */
	redact: (text: string) => string;
}

function redactor(apiKey: string): (text: string) => string {
	const secrets = [apiKey, apiKey.slice(apiKey.indexOf('.') + 1)].filter((secret) => secret.length >= 8);
	return (text) => secrets.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
}

/** Checks the credential before any request, so a typo gives a precise hint instead of a 401 or a connection error. */
export function checkCredentials(
	node: INode,
	data: ICredentialDataDecryptedObject,
	itemIndex?: number,
): OmnichannelCredentials {
	const rawBaseUrl = typeof data.baseUrl === 'string' ? data.baseUrl.trim() : '';
	const baseUrl = rawBaseUrl.replace(/\/+$/, '');
	let origin = '';
	try {
		const url = new URL(baseUrl);
		if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
	} catch {
		origin = '';
	}
	if (!origin || !baseUrl.endsWith(BASE_PATH)) {
		throw new NodeOperationError(node, 'The Base URL of the Omnichannel credential is not valid', {
			itemIndex,
			description: `It must be an http(s) address ending in ${BASE_PATH}, for example https://app.omnichannel.example${BASE_PATH}. Open the credential and correct the Base URL.`,
		});
	}

	// Not trimmed: the credential's header template sends the value as stored.
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey : '';
	const match = API_KEY_PATTERN.exec(apiKey);
	if (!match) {
		throw new NodeOperationError(node, 'The API Key of the Omnichannel credential is malformed', {
			itemIndex,
			description:
				'A key looks like svc_live_<id>.<secret> or svc_test_<id>.<secret>. Copy the whole key from the dashboard (Developer → API keys) without spaces or quotes; if it was lost, create a new one.',
		});
	}
	return { baseUrl, fingerprint: `${origin}|${match[1]}|${match[2]}`, redact: redactor(apiKey) };
}

/** A key for one purpose, derived from an API key (HMAC-SHA256 keyed with it): the API key itself never leaves the transport. */
export function deriveKey(apiKey: string, purpose: string): Buffer {
	return createHmac('sha256', apiKey).update(purpose).digest();
}

interface ContextCredentials extends OmnichannelCredentials {
	/** deriveKey with the credential's API key, each purpose derived once. */
	derivedKey: (purpose: string) => Buffer;
}

function keyDeriver(apiKey: string): (purpose: string) => Buffer {
	const derived = new Map<string, Buffer>();
	return (purpose) => {
		let key = derived.get(purpose);
		if (!key) {
			key = deriveKey(apiKey, purpose);
			derived.set(purpose, key);
		}
		return key;
	};
}

/** Checked credentials per n8n context: n8n decrypts the credential on every getCredentials call; only successful checks are kept. */
const checkedByContext = new WeakMap<object, ContextCredentials>();

/** Webhook calls reuse a credential this process checked within REUSE_MS (n8n resolves it in a new expression isolate per call); a 401 forgets it. */
const REUSE_MS = 30_000;
const checkedByCredentialId = new BoundedMap<string, { checked: ContextCredentials; until: number }>(100);

function reusableId(context: OmnichannelContext): string | undefined {
	if (!('getRequestObject' in context)) return undefined;
	const id = context.getNode().credentials?.[CREDENTIAL_TYPE]?.id;
	return typeof id === 'string' && id !== '' ? id : undefined;
}

async function readCredentials(context: OmnichannelContext, itemIndex?: number): Promise<ContextCredentials> {
	const known = checkedByContext.get(context);
	if (known) return known;
	const id = reusableId(context);
	const reused = id === undefined ? undefined : checkedByCredentialId.get(id);
	if (reused && reused.until > Date.now()) {
		checkedByContext.set(context, reused.checked);
		return reused.checked;
	}
	const data = (await context.getCredentials(CREDENTIAL_TYPE)) as ICredentialDataDecryptedObject;
	const reference = context.getNode().credentials?.[CREDENTIAL_TYPE];
	const decrypted: ICredentialsDecrypted | undefined =
		typeof reference?.id === 'string' && reference.id !== '' ? { id: reference.id, name: reference.name, type: CREDENTIAL_TYPE, data } : undefined;
	const checked = { ...checkCredentials(context.getNode(), data, itemIndex), decrypted, derivedKey: keyDeriver(String(data.apiKey)) };
	checkedByContext.set(context, checked);
	if (id !== undefined) checkedByCredentialId.set(id, { checked, until: Date.now() + REUSE_MS });
	return checked;
}

/** After the service refused the key (401): the next webhook call reads the credential again. */
export function forgetReusedCredentials(context: OmnichannelContext): void {
	checkedByContext.delete(context);
	const id = reusableId(context);
	if (id !== undefined) checkedByCredentialId.delete(id);
}

export async function contextCredentials(context: OmnichannelContext, itemIndex?: number): Promise<OmnichannelCredentials> {
	return await readCredentials(context, itemIndex);
}

/** A key for `purpose` derived from the credential's API key (deriveKey), read and checked as every request reads it. */
export async function credentialDerivedKey(context: OmnichannelContext, purpose: string): Promise<Buffer> {
	return (await readCredentials(context)).derivedKey(purpose);
}
