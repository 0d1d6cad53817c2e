/**
 * The API key never appears in an output or an error. Every node test file
 * checks all it produced when it ends (useSandbox); this file drives the paths
 * most likely to leak (refusals, bad credentials, dropped connections, error
 * items) and checks them here, visibly.
 */
import { assertNoSecretLeaked, containsSecret, runNode } from '../support/host/action-node.cjs';
import type { Credentials } from '../support/host/action-node.cjs';
import { clearFaults, control, setFaults } from '../support/sandbox.cjs';
import { startScriptedServer } from '../support/scripted-server.cjs';
import { byId, useSandbox } from '../support/suite.cjs';

const suite = useSandbox();

const attempts = (credentials: Credentials) => [
	{ resource: 'identity', operation: 'get' },
	{ resource: 'contact', operation: 'getAll', returnAll: true },
	{ resource: 'contact', operation: 'get', contactId: byId('ct_missing') },
	{ resource: 'message', operation: 'sendText', conversationId: byId('conv_missing'), text: `key ${credentials.apiKey.slice(0, 4)}` },
];

async function runAll(credentials: Credentials): Promise<void> {
	for (const parameters of attempts(credentials)) {
		await runNode({ credentials, parameters });
		await runNode({ credentials, parameters, settings: { onError: 'continueRegularOutput' } });
	}
}

test('no output or error of a refused, broken or unreachable call contains the key', async () => {
	const { key: revoked, key_id: revokedId } = await control(suite.sb, 'POST', '/keys', { mode: 'live' });
	await control(suite.sb, 'POST', `/keys/${revokedId}/revoke`);
	const { key: narrow } = await control(suite.sb, 'POST', '/keys', { mode: 'live', scopes: ['conversations:read'] });
	const { key: walled } = await control(suite.sb, 'POST', '/keys', { mode: 'live', ip_allowlist: ['203.0.113.9'] });
	const base = suite.sb.base_url;
	await runAll(suite.credentials);
	await runAll({ baseUrl: base, apiKey: revoked });
	await runAll({ baseUrl: base, apiKey: narrow });
	await runAll({ baseUrl: base, apiKey: walled });
	// Malformed keys are refused before any request, and not echoed either.
	await runAll({ baseUrl: base, apiKey: `${suite.sb.key} ` });
	await runAll({ baseUrl: `${base}/oops`, apiKey: suite.sb.key });
	await setFaults(suite.sb, { reset_rate: 1 });
	await runNode({ credentials: suite.credentials, parameters: { resource: 'contact', operation: 'create', name: 'Dropped' } });
	await clearFaults(suite.sb);
	// A server that echoes the Authorization header back in its error body.
	const echo = await startScriptedServer((request) => ({
		status: 400,
		body: { error: `bad header ${request.headers.authorization}`, detail: String(request.headers.authorization) },
	}));
	try {
		const echoed = await runNode({ credentials: { baseUrl: echo.baseUrl, apiKey: suite.sb.key }, parameters: { resource: 'identity', operation: 'get' } });
		expect(echo.requests[0].headers.authorization).toBe(`Bearer ${suite.sb.key}`);
		expect(echoed.error?.message).toBe('The Omnichannel API rejected the request: bad header Bearer [redacted]');
	} finally {
		await echo.close();
	}

	const { outputs, secrets } = assertNoSecretLeaked();
	expect(outputs).toBeGreaterThanOrEqual(50);
	expect(secrets).toBeGreaterThanOrEqual(4);
}, 60_000);

test('the check itself finds a key, and its secret part alone', () => {
	expect(containsSecret(`Authorization: Bearer ${suite.sb.key}`)).toBe(true);
	expect(containsSecret(`secret=${suite.sb.key.split('.')[1]}`)).toBe(true);
	expect(containsSecret(`id only: ${suite.sb.key.split('.')[0]}`)).toBe(false);
});
