'use strict';
// The credential's Test button, as n8n runs it: the public API's
// POST /credentials/{id}/test makes n8n send our credential's `test` request
// with the stored (encrypted, then decrypted) data to the sandbox.
const { omnichannelCredential } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');

/** Same key id, different secret: well-formed, so the sandbox answers 401 for a wrong key. */
const wrongSecret = (key) => `${key.split('.')[0]}.${'x'.repeat(32)}`;

describe('credential test in n8n', () => {
	let ctx;
	const ids = { good: 'e2eCredGood00001', wrong: 'e2eCredWrong0001', revoked: 'e2eCredRevoked01' };

	beforeAll(async () => {
		ctx = await openContext();
		const { sandbox, client, n8n } = ctx;
		const revokedKey = await client.control('POST', '/keys', { mode: 'test', scopes: ['conversations:read'] });
		await client.control('POST', `/keys/${revokedKey.key_id}/revoke`);
		const credential = (id, apiKey) => omnichannelCredential({ id, name: id, baseUrl: sandbox.base_url, apiKey });
		await n8n.importCredentials([
			credential(ids.good, sandbox.key),
			credential(ids.wrong, wrongSecret(sandbox.key)),
			credential(ids.revoked, revokedKey.key),
		]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
	}, SETUP_TIMEOUT_MS);

	afterAll(() => ctx?.close());

	test(
		'passes with a good key, and the request reached the sandbox',
		async () => {
			await ctx.client.control('DELETE', '/stats');
			await expect(ctx.n8n.testCredential(ids.good)).resolves.toEqual({ status: 'OK', message: expect.any(String) });
			const stats = await ctx.client.control('GET', '/stats');
			expect(stats.by_route['GET /me']).toBeGreaterThanOrEqual(1);
		},
		TEST_TIMEOUT_MS,
	);

	test.each([
		['a wrong secret', 'wrong'],
		['a revoked key', 'revoked'],
	])(
		'fails clearly with %s',
		async (_label, which) => {
			const result = await ctx.n8n.testCredential(ids[which]);
			expect(result.status).toBe('Error');
			expect(result.message).toBe(
				'The API key is invalid, revoked or expired. Create a new key in the dashboard and paste it whole.',
			);
		},
		TEST_TIMEOUT_MS,
	);
});
