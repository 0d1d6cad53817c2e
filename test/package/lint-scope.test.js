'use strict';
// `npm run lint` checks the project's own files: what the demo, benchmarks and
// tests leave in git-ignored folders (n8n's editor assets under .e2e/, bench
// work folders) must not make it fail. Checked on a temporary copy of the
// repository, with junk put into ignored folders, by the list of files lint
// reads (`lint.js --list-files`); as a control, the same junk in a tracked
// folder is in the list. npm test runs the lint itself.
const { execFileSync } = require('child_process');
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

/** The project's files `npm run lint` reads in the copy (scripts/lint.js --list-files). */
function filesLinted(dir) {
	return execFileSync(process.execPath, [path.join(dir, 'scripts', 'lint.js'), '--list-files'], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean);
}

const junkIn = (files, folder) => files.filter((file) => file.startsWith(`${folder}${path.sep}`));

beforeAll(() => {
	if (!fs.existsSync(path.join(REPO_ROOT, 'dist'))) throw new Error('dist/ is missing: run `npm run build` first');
	copy = copyRepository();
});

afterAll(() => {
	if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

test('`npm run lint` reads no file of the git-ignored folders the demo, benchmarks and tests fill', () => {
	const ignored = [path.join('.e2e', 'demo', '.cache', 'n8n-editor'), path.join('bench', '.work', 'peer'), 'coverage'];
	for (const folder of ignored) writeJunk(copy, folder);
	const files = filesLinted(copy);
	expect(ignored.flatMap((folder) => junkIn(files, folder))).toEqual([]);
	// The listing is the real one: the project's sources and tests are in it.
	expect(files).toEqual(expect.arrayContaining(['package.json', path.join('scripts', 'lint.js'), path.join('test', 'package', 'lint-scope.test.js')]));
}, 120_000);

test('the same junk in a folder git tracks is read', () => {
	writeJunk(copy, path.join('nodes', 'Junk'));
	expect(junkIn(filesLinted(copy), path.join('nodes', 'Junk')).sort()).toEqual([path.join('nodes', 'Junk', 'editor.js'), path.join('nodes', 'Junk', 'types.ts')]);
}, 120_000);
