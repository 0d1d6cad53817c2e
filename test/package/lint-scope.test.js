'use strict';
// `npm run lint` checks the project's own files: what the demo, benchmarks and
// tests leave in git-ignored folders (n8n's editor assets under .e2e/, bench
// work folders) must not make it fail. Checked on a temporary copy of the
// repository, with junk that fails lint put into ignored folders; as a
// control, the same junk in a tracked folder must fail it.
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const REPO_ROOT = path.join(__dirname, '..', '..');
/** Fails every lint stage: a syntax error for ESLint, a type error for tsc. */
const JUNK_JS = 'const = ;\nconsole.log(process.env);\n';
const JUNK_TS = "const count: number = 'many';\nconsole.log(count);\n";

let copy;

/** The repository's working tree as git sees it (tracked, or untracked and not ignored), plus dist/ and node_modules. */
function copyRepository() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-lint-scope-'));
	const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT })
		.toString()
		.split('\0')
		// Regular files only: a node_modules symlink (as in a git worktree) is linked below.
		.filter((file) => file && fs.lstatSync(path.join(REPO_ROOT, file), { throwIfNoEntry: false })?.isFile());
	for (const file of files) {
		fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		fs.copyFileSync(path.join(REPO_ROOT, file), path.join(dir, file));
	}
	fs.symlinkSync(fs.realpathSync(path.join(REPO_ROOT, 'node_modules')), path.join(dir, 'node_modules'));
	fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
	execFileSync('git', ['init', '--quiet'], { cwd: dir });
	execFileSync('git', ['add', '--all'], { cwd: dir });
	return dir;
}

function writeJunk(dir, folder) {
	fs.mkdirSync(path.join(dir, folder), { recursive: true });
	fs.writeFileSync(path.join(dir, folder, 'editor.js'), JUNK_JS);
	fs.writeFileSync(path.join(dir, folder, 'types.ts'), JUNK_TS);
}

function lint(dir) {
	// Without Jest's NODE_ENV=test, which makes eslint-plugin-n8n-nodes-base
	// treat every file as a node file named Test.node.ts.
	const env = { ...process.env };
	delete env.NODE_ENV;
	return spawnSync(process.execPath, [path.join(dir, 'scripts', 'lint.js')], { cwd: dir, env, encoding: 'utf8', timeout: 240_000 });
}

beforeAll(() => {
	if (!fs.existsSync(path.join(REPO_ROOT, 'dist'))) throw new Error('dist/ is missing: run `npm run build` first');
	copy = copyRepository();
});

afterAll(() => {
	if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

test('junk in git-ignored folders leaves `npm run lint` passing', () => {
	writeJunk(copy, path.join('.e2e', 'demo', '.cache', 'n8n-editor'));
	writeJunk(copy, path.join('bench', '.work', 'peer'));
	writeJunk(copy, 'coverage');
	const result = lint(copy);
	// The output is shown only when it failed.
	expect({ status: result.status, output: result.status === 0 ? '' : result.stdout + result.stderr }).toEqual({ status: 0, output: '' });
}, 300_000);

test('the same junk in a folder git tracks fails it', () => {
	writeJunk(copy, path.join('nodes', 'Junk'));
	const result = lint(copy);
	expect(result.status).toBe(1);
	expect(result.stdout + result.stderr).toContain(path.join('nodes', 'Junk', 'editor.js'));
}, 300_000);
