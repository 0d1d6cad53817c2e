'use strict';
// Jest's globalSetup for the real-n8n files: a folder for the run, the
// package packed once into it (every n8n of the run installs that tarball),
// and the n8n install made ready before the first file's timeout starts.
// The shared n8n and cluster start on first use (shared.js).
const fs = require('fs');
const os = require('os');
const path = require('path');

const { ensureN8nInstall, packRepo } = require('../../../harness');
const { RUN_DIR_ENV } = require('./shared');

module.exports = async () => {
	// An n8n started elsewhere (harness/external.js) is the run's only n8n.
	if (process.env.OMNICHANNEL_N8N_URL) return;
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-run-'));
	process.env[RUN_DIR_ENV] = dir;
	if (!process.env.OMNICHANNEL_E2E_TARBALL) process.env.OMNICHANNEL_E2E_TARBALL = packRepo(dir);
	ensureN8nInstall();
};
