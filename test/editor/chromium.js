'use strict';
// Makes sure Debian's `chromium` package is installed, so the browser test
// runs on a bare CI machine (root, apt reachable) as on a warm one. Also a
// script: `node test/editor/chromium.js` installs it and prints the path.
const { execFileSync } = require('child_process');
const fs = require('fs');

const CHROMIUM = '/usr/bin/chromium';
// Bounds far above what apt needs here (an update and an install of 25 to 100
// packages): a stuck mirror must still end the run.
const APT_UPDATE_TIMEOUT_MS = 3 * 60 * 1000;
const APT_INSTALL_TIMEOUT_MS = 10 * 60 * 1000;

function apt(args, timeout) {
	// Another apt run (unattended upgrades, a parallel job) holds the lock: wait for it.
	execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=120', ...args], {
		env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		// apt's progress goes to the log of whoever runs us, never to stdout:
		// the script's stdout is only the path.
		stdio: ['ignore', process.stderr, process.stderr],
		timeout,
		killSignal: 'SIGKILL',
	});
}

/** Returns the path of Debian's chromium, installing it first when it is missing. */
function ensureChromium() {
	if (fs.existsSync(CHROMIUM)) return CHROMIUM;
	if (process.getuid?.() !== 0) {
		throw new Error(`${CHROMIUM} is missing; install it with: sudo apt-get install -y chromium`);
	}
	apt(['update'], APT_UPDATE_TIMEOUT_MS);
	// The recommends are desktop services (upower, printing, notifications);
	// fonts come with the dependencies (fontconfig pulls DejaVu) and n8n's own CSS.
	apt(['install', '-y', '--no-install-recommends', 'chromium'], APT_INSTALL_TIMEOUT_MS);
	if (!fs.existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is missing`);
	return CHROMIUM;
}

if (require.main === module) console.log(ensureChromium());

module.exports = { ensureChromium, CHROMIUM, INSTALL_TIMEOUT_MS: APT_UPDATE_TIMEOUT_MS + APT_INSTALL_TIMEOUT_MS };
