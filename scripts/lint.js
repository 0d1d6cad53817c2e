'use strict';
// Lints the sources and the JavaScript that `npm pack` would publish, the way
// n8n's verification scanner sees it: with inline eslint comments ignored.
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
		run(['--config', path.join(root, 'eslint.config.mjs'), 'package.json', 'dist/**/*.js'], packed);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

try {
	run(['package.json', 'credentials', 'nodes'], root);
	lintPackedTarball();
} catch (error) {
	// eslint already printed its findings; a stack trace of this script adds nothing.
	console.error(`lint: failed (${error.status === 1 ? 'rule violations' : error.message.split('\n')[0]})`);
	process.exit(1);
}
console.log('lint: sources and packed tarball clean');
