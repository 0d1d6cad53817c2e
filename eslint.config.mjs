// Lints like n8n's community-node scanner: @n8n/eslint-plugin-community-nodes
// (recommended) plus eslint-plugin-n8n-nodes-base's community, credentials and
// nodes rule sets. scripts/lint.js runs it with inline configuration disabled,
// on the TypeScript sources and on the JavaScript of the packed tarball.
import tseslint from 'typescript-eslint';
import communityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

const base = n8nNodesBase.configs;
const plugins = { 'n8n-nodes-base': n8nNodesBase };

export default [
	{ ignores: ['node_modules/**', 'test/**', 'bench/**', 'scripts/**', 'examples/**', 'docs/**', 'coverage/**', '*.js', '*.mjs'] },
	{
		files: ['**/*.ts', '**/*.js'],
		languageOptions: { parser: tseslint.parser, sourceType: 'module', ecmaVersion: 'latest' },
		linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
	},
	{ files: ['package.json'], languageOptions: { parser: tseslint.parser }, plugins, rules: base.community.rules },
	{
		files: ['**/credentials/**/*.ts', '**/credentials/**/*.js'],
		plugins,
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
		plugins,
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
