'use strict';
// Makes sure Debian's `chromium` package is installed (harness/debian-packages.js),
// so the browser test runs on a bare CI machine (root, apt reachable) as on a
// warm one. Also a script: `node test/editor/chromium.js` installs it and prints the path.
const { ensureDebianPackages, INSTALL_TIMEOUT_MS } = require('../../harness/debian-packages');

const CHROMIUM = '/usr/bin/chromium';

/** Returns the path of Debian's chromium, installing it first when it is missing. */
function ensureChromium() {
	ensureDebianPackages(['chromium']);
	return CHROMIUM;
}

if (require.main === module) console.log(ensureChromium());

module.exports = { ensureChromium, CHROMIUM, INSTALL_TIMEOUT_MS };
