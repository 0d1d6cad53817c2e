'use strict';
// What `npm pack` publishes, checked the way n8n's community-package install
// and verification look at it: only the built nodes and the documents, no
// runtime dependencies, and every file package.json and the nodes point at.
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const REPO_ROOT = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const DOCUMENTS = ['LICENSE.md', 'README.md', 'package.json'];

/** The file list of `npm pack --dry-run --json` (nothing is written). */
function packedFiles() {
	const output = execFileSync('npm', ['pack', '--dry-run', '--json'], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'pipe', 'pipe'],
		timeout: 60_000,
	});
	const [pack] = JSON.parse(output.toString());
	return pack.files.map((file) => file.path).sort();
}

/** The icon files an `icon` of a node or credential names, relative to the package. */
function iconFiles(icon, declaringFile) {
	const variants = typeof icon === 'string' ? [icon] : [icon?.light, icon?.dark];
	return variants.map((variant) => {
		if (typeof variant !== 'string' || !variant.startsWith('file:')) throw new Error(`${declaringFile}: icon ${variant} is not a file`);
		return path.posix.join(path.posix.dirname(declaringFile), variant.slice('file:'.length));
	});
}

function loadBuilt(file) {
	const exports = require(path.join(REPO_ROOT, file));
	return new (Object.values(exports)[0])();
}

describe('the npm package', () => {
	let files;

	beforeAll(() => {
		const declared = [...manifest.n8n.credentials, ...manifest.n8n.nodes];
		const missing = declared.filter((file) => !fs.existsSync(path.join(REPO_ROOT, file)));
		if (missing.length > 0) throw new Error(`not built (missing ${missing.join(', ')}): run \`npm run build\` first`);
		files = packedFiles();
	});

	test('ships only dist/, README.md, LICENSE.md and package.json', () => {
		expect(files.filter((file) => !file.startsWith('dist/') && !DOCUMENTS.includes(file))).toEqual([]);
		expect(files).toEqual(expect.arrayContaining(DOCUMENTS));
	});

	test('has no runtime dependencies; its peers are n8n-workflow and the AI node SDK (with its version), the two n8n allows', () => {
		expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);
		expect(Object.keys(manifest.optionalDependencies ?? {})).toEqual([]);
		expect(manifest.bundleDependencies ?? manifest.bundledDependencies).toBeUndefined();
		expect(Object.keys(manifest.peerDependencies).sort()).toEqual(['@n8n/ai-node-sdk', 'n8n-workflow']);
		expect(manifest.n8n.aiNodeSdkVersion).toBe(1);
	});

	test('is found and loaded by n8n as a community package', () => {
		expect(manifest.keywords).toContain('n8n-community-node-package');
		expect(manifest.n8n.n8nNodesApiVersion).toBe(1);
		expect(manifest.n8n.nodes.length).toBeGreaterThan(0);
		expect(manifest.n8n.credentials.length).toBeGreaterThan(0);
		expect(files).toEqual(expect.arrayContaining([...manifest.n8n.credentials, ...manifest.n8n.nodes]));
	});

	test('ships each node’s codex file and the light and dark icons of every node and credential', () => {
		const needed = [];
		for (const file of manifest.n8n.nodes) {
			needed.push(file.replace(/\.js$/, '.json'), ...iconFiles(loadBuilt(file).description.icon, file));
		}
		for (const file of manifest.n8n.credentials) needed.push(...iconFiles(loadBuilt(file).icon, file));
		expect(needed.length).toBe(manifest.n8n.nodes.length * 3 + manifest.n8n.credentials.length * 2);
		expect(needed.filter((file) => !files.includes(file))).toEqual([]);
	});
});
