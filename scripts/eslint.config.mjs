// The lint of `npm run lint` (scripts/lint.js): n8n's own lint plus the rules
// of n8n's verification scanner, in one config.
// - `config` from @n8n/node-cli/eslint is what `npx n8n-node lint` runs with
//   the top-level eslint.config.mjs, which strict mode requires to be n8n's
//   template (ESLint and typescript-eslint recommended, import-x, no-console,
//   @n8n/eslint-plugin-community-nodes with its n8n Cloud rules,
//   eslint-plugin-n8n-nodes-base).
// - The blocks after it are the scanner's rule sets (@n8n/scan-community-package)
//   and keep on the two eslint-plugin-n8n-nodes-base rules n8n's config turns off.
// scripts/lint.js runs this file on the files git tracks or would track (never
// on what the demo, benchmarks or tests leave in ignored folders), then on the
// JavaScript of the packed tarball, with inline eslint comments ignored.
import { config as n8nNodeCli } from '@n8n/node-cli/eslint';
import tseslint from 'typescript-eslint';
import communityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

const base = n8nNodesBase.configs;

export default [
	// Development files that are never published; n8n's scanner skips them too.
	// dist/ is ignored by n8n's config; scripts/lint.js lints the packed dist/
	// with --no-ignore.
	{ ignores: ['sandbox/**', 'harness/**', 'test/**', 'bench/**', 'scripts/**', 'examples/**', 'docs/**', '*.js', '*.mjs'] },
	...n8nNodeCli,
	{
		files: ['**/*.ts', '**/*.js'],
		languageOptions: { parser: tseslint.parser, sourceType: 'module', ecmaVersion: 'latest' },
		linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
	},
	// n8n's config registers the n8n-nodes-base plugin (its own copy, with the
	// same 132 rules and rule sets as ours), so these blocks only set rules.
	{ files: ['package.json'], languageOptions: { parser: tseslint.parser }, rules: base.community.rules },
	{
		files: ['**/credentials/**/*.ts', '**/credentials/**/*.js'],
		rules: {
			...base.credentials.rules,
			// The rule's own docs: "only applicable to nodes in the main repository"
			// (docs.n8n.io slugs). Community credentials must link a real http URL,
			// which cred-class-field-documentation-url-not-http-url enforces.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['**/nodes/**/*.ts', '**/nodes/**/*.js'],
		rules: {
			...base.nodes.rules,
			// These two want the string literal 'main'; the verification scanner's
			// node-connection-type-literal rule requires NodeConnectionTypes.Main.
			// The scanner gates verification, so its rule wins.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	communityNodes.configs.recommended,
	{
		// In the packed tarball the files are compiled .js: these two rules check
		// for the .node.ts / .credentials.ts source names, which the sources pass.
		files: ['dist/**/*.js'],
		rules: {
			'n8n-nodes-base/node-filename-against-convention': 'off',
			'n8n-nodes-base/cred-filename-against-convention': 'off',
		},
	},
];
