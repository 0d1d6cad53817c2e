/**
 * Each failure cause gives a NodeApiError (or NodeOperationError for a bad
 * credential) with a message a person or an AI agent can act on, the HTTP
 * status in httpCode, and the item index. No message contains the API key
 * (checked for the whole file by useSandbox).
 */
import { createServer } from 'net';
import type { AddressInfo } from 'net';

import { runNode } from '../support/host/action-node.cjs';
import type { Credentials } from '../support/host/action-node.cjs';
import { api, clearFaults, control, resetStats, setFaults, stats } from '../support/sandbox.cjs';
import { startScriptedServer } from '../support/scripted-server.cjs';
import { byId, useSandbox } from '../support/suite.cjs';

const suite = useSandbox();

const listContacts = async (credentials: Credentials) =>
	await runNode({ credentials, parameters: { resource: 'contact', operation: 'getAll', returnAll: true } });

async function keyWith(options: Record<string, unknown>): Promise<Credentials> {
	const { key } = await control(suite.sb, 'POST', '/keys', { mode: 'live', ...options });
	return { baseUrl: suite.sb.base_url, apiKey: key };
}

afterEach(async () => {
	await clearFaults(suite.sb);
});

test('400 carries the API error text', async () => {
	const result = await runNode({
		credentials: suite.credentials,
		parameters: { resource: 'contact', operation: 'merge', primaryContactId: byId('ct_a'), secondaryContactId: byId('ct_b') },
	});
	expect(result.error).toMatchObject({ httpCode: '400', message: expect.stringMatching(/^The Omnichannel API rejected the request: .+/) });
	expect(result.error?.context?.itemIndex).toBe(0);
});

test('401: an unknown, revoked or expired key', async () => {
	const revoked = await control(suite.sb, 'POST', '/keys', { mode: 'test' });
	await control(suite.sb, 'POST', `/keys/${revoked.key_id}/revoke`);
	const expired = await keyWith({ expires_at: '2020-01-01T00:00:00Z' });
	const unknown = { baseUrl: suite.sb.base_url, apiKey: 'svc_live_AbCdEfGh12.0123456789abcdefXYZ' };
	for (const credentials of [{ baseUrl: suite.sb.base_url, apiKey: revoked.key }, expired, unknown]) {
		const result = await listContacts(credentials);
		expect(result.error).toMatchObject({ httpCode: '401', message: 'The Omnichannel API key is invalid, revoked or expired' });
		expect(result.error?.description).toContain('update the Omnichannel credential');
	}
});

test('403 names the missing scope', async () => {
	const credentials = await keyWith({ scopes: ['messages:read'] });
	const result = await listContacts(credentials);
	expect(result.error).toMatchObject({ httpCode: '403', message: 'The Omnichannel API key lacks the scope "customers:read"' });
});

test('403 names the IP allowlist', async () => {
	const credentials = await keyWith({ ip_allowlist: ['203.0.113.7'] });
	const result = await listContacts(credentials);
	expect(result.error).toMatchObject({ httpCode: '403', message: "The Omnichannel API refused this n8n instance's IP address" });
	expect(result.error?.description).toContain('allowlist');
});

test('404 names the record', async () => {
	const result = await runNode({
		credentials: suite.credentials,
		parameters: { resource: 'contact', operation: 'update', contactId: byId('ct_gone'), updateFields: { name: 'X' } },
	});
	expect(result.error).toMatchObject({ httpCode: '404', message: 'The contact "ct_gone" was not found' });
	expect(result.error?.description).toMatch(/Check the ID, or pick the record from the list\.$/);
});

test('429 when the API asks for a longer wait than the node makes', async () => {
	// A bucket of 0.01 token per second, and burst 1: once its one token is
	// used, Retry-After is about 100 s, more than the 60 s the transport is
	// willing to wait.
	await setFaults(suite.sb, { rate_limit_per_second: 0.01 });
	await api(suite.sb, 'GET', '/me');
	await resetStats(suite.sb);
	const result = await listContacts(suite.credentials);
	expect(result.error).toMatchObject({ httpCode: '429' });
	expect(result.error?.message).toMatch(/^The Omnichannel API rate limit was still exceeded after 1 attempt and asks to wait (99|100) s$/);
	expect((await stats(suite.sb)).requests).toBe(1);
});

test('429 after the retries ran out (the key is busy elsewhere too)', async () => {
	const server = await startScriptedServer([
		{ status: 429, headers: { 'Retry-After': '0' }, body: { error: 'rate limit exceeded' } },
	]);
	try {
		const result = await listContacts({ baseUrl: server.baseUrl, apiKey: suite.sb.key });
		expect(result.error).toMatchObject({ httpCode: '429' });
		expect(result.error?.message).toBe('The Omnichannel API rate limit was still exceeded after 7 attempts and asks to wait 0 s');
		expect(server.requests).toHaveLength(7);
	} finally {
		await server.close();
	}
});

test('Retry-After is honoured as seconds and as an HTTP-date', async () => {
	const inTwoSeconds = () => new Date(Date.now() + 2000).toUTCString();
	const page = { data: [{ id: 'ct_1' }], has_next: false, last_page: 1 };
	const server = await startScriptedServer([
		{ status: 503, headers: { 'Retry-After': '1' } },
		() => ({ status: 429, headers: { 'Retry-After': inTwoSeconds() } }),
		{ status: 200, body: page },
	]);
	try {
		const result = await listContacts({ baseUrl: server.baseUrl, apiKey: suite.sb.key });
		expect(result.json).toEqual([{ id: 'ct_1' }]);
		const [first, second, third] = server.requests.map((request) => request.at);
		expect(second - first).toBeGreaterThanOrEqual(990);
		// An HTTP-date has whole seconds: "in 2 s" is between 1 and 2 s away.
		expect(third - second).toBeGreaterThanOrEqual(990);
		expect(server.requests[0].url).toBe('/api/public/v1/contacts?page=1&per_page=500');
		expect(server.requests[0].headers.authorization).toBe(`Bearer ${suite.sb.key}`);
	} finally {
		await server.close();
	}
});

// A Retry-After of 1–2 s only delays the refused request and cuts the key's
// rate (test/transport/rate-limiter.test.cts); a longer one is a pause.
test('a 429 with a Retry-After above 2 s pauses every request made with the key, not just the refused one', async () => {
	const server = await startScriptedServer([
		{ status: 429, headers: { 'Retry-After': '3' } },
		{ status: 200, body: { app_id: 'app_1' } },
	]);
	try {
		// Two items, half a second apart: the second is due while the key is paused.
		const result = await runNode({
			credentials: { baseUrl: server.baseUrl, apiKey: suite.sb.key },
			parameters: { resource: 'identity', operation: 'get', requestOptions: { maxRequestsPerSecond: 2 } },
			items: [{ json: {} }, { json: {} }],
		});
		expect(result.json).toEqual([{ app_id: 'app_1' }, { app_id: 'app_1' }]);
		const [refused, ...later] = server.requests.map((request) => request.at);
		expect(later).toHaveLength(2);
		for (const at of later) expect(at - refused).toBeGreaterThanOrEqual(2990);
	} finally {
		await server.close();
	}
});

test('5xx after the retries ran out', async () => {
	await setFaults(suite.sb, { error_rate: 1, error_status: 502 });
	await resetStats(suite.sb);
	const result = await listContacts(suite.credentials);
	expect(result.error).toMatchObject({ httpCode: '502', message: 'The Omnichannel API failed with status 502 after 7 attempts' });
	expect((await stats(suite.sb)).requests).toBe(7);
}, 30_000);

/** Two contacts that exist: the sandbox fails half of the writes after applying them, and a merge of unknown ids would be a 400 then. */
async function mergeOfTwoContacts() {
	const [primary, secondary] = await Promise.all(['Merge primary', 'Merge secondary'].map(async (name) => await api(suite.sb, 'POST', '/contacts', { name })));
	return { resource: 'contact', operation: 'merge', primaryContactId: byId(primary.id), secondaryContactId: byId(secondary.id) };
}

test.each([
	['a create', async () => ({ resource: 'contact', operation: 'create', name: 'Once' })],
	['a merge', mergeOfTwoContacts],
])('%s is not repeated after a 5xx: it has no idempotency key', async (_, parametersOf) => {
	const parameters = await parametersOf();
	await setFaults(suite.sb, { error_rate: 1, error_status: 500 });
	await resetStats(suite.sb);
	const result = await runNode({ credentials: suite.credentials, parameters });
	expect(result.error).toMatchObject({ httpCode: '500' });
	expect((await stats(suite.sb)).requests).toBe(1);
});

test('an unreachable server', async () => {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	const result = await listContacts({ baseUrl: `http://127.0.0.1:${port}/api/public/v1`, apiKey: suite.sb.key });
	expect(result.error?.message).toBe(`Could not get an answer from the Omnichannel API at 127.0.0.1:${port} after 7 attempts`);
}, 30_000);

describe('the credential is checked before any request', () => {
	test.each([
		['a key without its secret', 'svc_live_AbCdEfGh12'],
		['a key with a space', ' svc_live_AbCdEfGh12.0123456789abcdefXYZ'],
		['another service key', 'sk_live_0123456789abcdef0123456789'],
	])('malformed key: %s', async (_, apiKey) => {
		await resetStats(suite.sb);
		const result = await listContacts({ baseUrl: suite.sb.base_url, apiKey });
		expect(result.error?.message).toBe('The API Key of the Omnichannel credential is malformed');
		expect(result.error?.description).toContain('svc_live_<id>.<secret>');
		expect((await stats(suite.sb)).requests).toBe(0);
	});

	test.each([
		['without the API path', (base: string) => base.replace('/api/public/v1', '')],
		['not http(s)', (base: string) => base.replace('http:', 'ftp:')],
		['not a URL', () => 'app.omnichannel.example/api/public/v1'],
	])('invalid base URL: %s', async (_, change) => {
		await resetStats(suite.sb);
		const result = await listContacts({ baseUrl: change(suite.sb.base_url), apiKey: suite.sb.key });
		expect(result.error?.message).toBe('The Base URL of the Omnichannel credential is not valid');
		expect((await stats(suite.sb)).requests).toBe(0);
	});

	test('a trailing slash is tolerated', async () => {
		const result = await listContacts({ baseUrl: `${suite.sb.base_url}/`, apiKey: suite.sb.key });
		expect(result.status).toBe('success');
	});
});

test('errors as an AI agent tool reads them: message and description, no key', async () => {
	const credentials = await keyWith({ scopes: ['customers:read'] });
	const result = await runNode({
		credentials,
		parameters: { resource: 'message', operation: 'sendText', conversationId: byId('conv_x'), text: 'hi' },
		settings: { onError: 'continueRegularOutput' },
	});
	expect(result.json[0]).toMatchObject({
		error: 'The Omnichannel API key lacks the scope "messages:write"',
		description: expect.stringContaining('POST /messages/text needs the scope "messages:write"'),
		httpCode: '403',
	});
	expect(JSON.stringify(result.json)).not.toContain(credentials.apiKey);
});
