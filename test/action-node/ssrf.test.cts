/**
 * n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) turned on in n8n-core's
 * own HTTP helpers, here in-process: the sandbox listens on 127.0.0.1, which
 * n8n's built-in list blocks. The node must then say which of n8n's settings
 * lets the API through, instead of a bare network error, and send nothing.
 * Jest gives each test file its own copy of process.env, and n8n reads these
 * settings when it first builds its HTTP client, so setting them here, before
 * any request, changes only this file.
 */
process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
process.env.N8N_SSRF_BLOCKED_HOSTNAMES = 'blocked.omnichannel.test';

import { runNode } from '../support/host/action-node.cjs';
import { resetStats, stats } from '../support/sandbox.cjs';
import { useSandbox } from '../support/suite.cjs';
import { ssrfBlock } from '../../nodes/shared/transport/errors';

const suite = useSandbox();

const listChannels = async (baseUrl: string) =>
	await runNode({
		credentials: { ...suite.credentials, baseUrl },
		parameters: { resource: 'channel', operation: 'getAll', returnAll: true },
	});

test('a blocked address: the error names N8N_SSRF_ALLOWED_IP_RANGES with the address, and nothing reaches the API', async () => {
	await resetStats(suite.sb);
	const result = await listChannels(suite.sb.base_url);
	expect(result.status).toBe('error');
	expect(result.error?.message).toBe("n8n's SSRF protection blocked the request to the Omnichannel API at 127.0.0.1");
	expect(result.error?.description).toContain('N8N_SSRF_PROTECTION_ENABLED=true');
	expect(result.error?.description).toContain('add 127.0.0.1/32 to N8N_SSRF_ALLOWED_IP_RANGES, or "127.0.0.1" to N8N_SSRF_ALLOWED_HOSTNAMES');
	expect(result.error?.context?.itemIndex).toBe(0);
	expect((await stats(suite.sb)).requests).toBe(0);
});

test('a blocked hostname: the error names N8N_SSRF_ALLOWED_HOSTNAMES', async () => {
	const url = new URL(suite.sb.base_url);
	url.hostname = 'blocked.omnichannel.test';
	const result = await listChannels(url.toString().replace(/\/$/, ''));
	expect(result.status).toBe('error');
	expect(result.error?.message).toBe("n8n's SSRF protection blocked the request to the Omnichannel API at blocked.omnichannel.test");
	expect(result.error?.description).toContain('add "blocked.omnichannel.test" to N8N_SSRF_ALLOWED_HOSTNAMES');
});

describe('recognising n8n SSRF errors by name', () => {
	const named = (name: string, extra: object = {}) => Object.assign(new Error('blocked'), { name }, extra);

	test('on the error itself, or as the cause n8n wraps it in', () => {
		expect(ssrfBlock(named('SsrfBlockedIpError', { ip: '10.1.2.3' }))).toEqual({ kind: 'ip', target: '10.1.2.3' });
		expect(ssrfBlock(new Error('wrapped', { cause: named('SsrfBlockedIpError') }))).toEqual({ kind: 'ip' });
		expect(ssrfBlock(new Error('wrapped', { cause: named('SsrfBlockedHostnameError', { hostname: 'h.test' }) }))).toEqual({
			kind: 'hostname',
			target: 'h.test',
		});
	});

	test('other errors are not taken for one', () => {
		expect(ssrfBlock(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBeUndefined();
		expect(ssrfBlock('SsrfBlockedIpError')).toBeUndefined();
		const loop: { name: string; cause?: unknown } = { name: 'NodeApiError' };
		loop.cause = loop;
		expect(ssrfBlock(loop)).toBeUndefined();
	});
});
