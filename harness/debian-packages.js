'use strict';
// The Debian packages the real-n8n runs need besides n8n: PostgreSQL and
// Redis (queue mode), Chromium (the editor test). Installed with apt-get
// when missing (as root: CI and these machines), all missing ones in one
// apt run; a non-root user is told the command instead.
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

/** What shows that a package is installed: a file it puts in place. */
const PROVIDES = {
	postgresql: () => Boolean(postgresBin()),
	'redis-server': () => onPath('redis-server'),
	chromium: () => fs.existsSync('/usr/bin/chromium'),
};
// Bounds far above what apt needs here (an update, then up to about 100
// packages): a stuck mirror must still end the run.
const APT_UPDATE_TIMEOUT_MS = 3 * 60 * 1000;
const APT_INSTALL_TIMEOUT_MS = 10 * 60 * 1000;
const INSTALL_TIMEOUT_MS = APT_UPDATE_TIMEOUT_MS + APT_INSTALL_TIMEOUT_MS;

/** The bin folder of the newest PostgreSQL installed, or undefined. */
function postgresBin() {
	const root = '/usr/lib/postgresql';
	const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
	const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
	return newest && path.join(root, newest, 'bin');
}

function onPath(command) {
	return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, command)));
}

function apt(args, timeout) {
	// Another apt run (unattended upgrades, a parallel job) holds the lock: wait for it.
	execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=120', ...args], {
		env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		// apt's progress goes to stderr, never to a caller's stdout.
		stdio: ['ignore', process.stderr, process.stderr],
		timeout,
		killSignal: 'SIGKILL',
	});
}

/** Installs those of `packages` (keys of PROVIDES) that are missing, in one apt run. */
function ensureDebianPackages(packages) {
	const missing = packages.filter((name) => !PROVIDES[name]());
	if (missing.length === 0) return;
	if (process.getuid?.() !== 0) throw new Error(`missing Debian packages: run \`sudo apt-get install -y ${missing.join(' ')}\``);
	process.stderr.write(`[harness] installing ${missing.join(', ')} with apt-get\n`);
	apt(['update', '-qq'], APT_UPDATE_TIMEOUT_MS);
	// The recommends are desktop services (upower, printing, notifications); Chromium's fonts come with its dependencies.
	apt(['install', '-y', '-qq', '--no-install-recommends', ...missing], APT_INSTALL_TIMEOUT_MS);
	const still = missing.filter((name) => !PROVIDES[name]());
	if (still.length > 0) throw new Error(`apt-get finished but ${still.join(', ')} is still missing`);
}

module.exports = { ensureDebianPackages, postgresBin, INSTALL_TIMEOUT_MS, DEBIAN_PACKAGES: Object.keys(PROVIDES) };
