'use strict';
// n8n's own tool for community packages says yes: strict mode with n8n's
// unchanged lint template (what n8n Cloud verification requires), and its
// lint passes.
const { spawnSync } = require('child_process');
const path = require('path');

const ROOT = path.join(__dirname, '..', '..');
const N8N_NODE = path.join(ROOT, 'node_modules', '.bin', 'n8n-node');

function n8nNode(args) {
	const env = { ...process.env };
	// Under jest NODE_ENV is "test", which makes eslint-plugin-n8n-nodes-base take every file for a test node.
	delete env.NODE_ENV;
	const result = spawnSync(N8N_NODE, args, { cwd: ROOT, env, encoding: 'utf8', input: '', timeout: 120_000 });
	// Colours (on where CI sets FORCE_COLOR) split the words the tests look for.
	return { status: result.status, output: `${result.stdout}${result.stderr}`.replace(/\u001b\[[0-9;]*m/g, '') };
}

test('npx n8n-node cloud-support: strict mode, the default lint config, eligible for n8n Cloud verification', () => {
	const { status, output } = n8nNode(['cloud-support']);
	expect(status).toBe(0);
	expect(output).toMatch(/Strict mode: enabled/);
	expect(output).toMatch(/ESLint config: using default config/);
	expect(output).toMatch(/Status: eligible for n8n Cloud verification/);
});

test('npx n8n-node lint passes in strict mode', () => {
	const { status, output } = n8nNode(['lint']);
	expect({ status, output }).toEqual({ status: 0, output: expect.not.stringMatching(/error|Strict mode violation/i) });
});
