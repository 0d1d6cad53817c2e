'use strict';
// One real n8n with our package installed: the process (n8n-process.js), its
// REST client (n8n-api.js) and CLI (n8n-cli.js) behind one object.
const fs = require('fs');
const os = require('os');
const path = require('path');

const { N8nApi, N8nApiError } = require('./n8n-api');
const cli = require('./n8n-cli');
const { N8nProcess } = require('./n8n-process');
const { packRepo, installPackage } = require('./package');

/** The n8n account the harness creates; a demo login, not a secret. */
const DEFAULT_OWNER = Object.freeze({
	email: 'owner@omnichannel.test',
	password: 'Omnichannel-demo-1',
	firstName: 'Demo',
	lastName: 'Owner',
});

class N8n extends N8nProcess {
	constructor(options) {
		super(options);
		this.api = new N8nApi(this.baseUrl);
	}

	importCredentials(credentials) {
		return cli.importCredentials(this, credentials);
	}

	importWorkflows(workflows) {
		return cli.importWorkflows(this, workflows);
	}

	executeWorkflow(id) {
		return cli.executeWorkflow(this, id);
	}

	/** Creates the owner account (logged in) and a public-API key; returns the login. */
	async setupOwnerAndApiKey(owner = DEFAULT_OWNER) {
		await this.api.setupOwner(owner);
		await this.api.createApiKey();
		return { email: owner.email, password: owner.password };
	}

	publishWorkflow(id) {
		return this.api.publishWorkflow(id);
	}

	unpublishWorkflow(id) {
		return this.api.unpublishWorkflow(id);
	}

	listExecutions(filters) {
		return this.api.listExecutions(filters);
	}

	testCredential(id) {
		return this.api.testCredential(id);
	}

	/** The id n8n gave a credential imported with `id`: the same, as CLI imports keep ids. */
	credentialIdOf(id) {
		return id;
	}

	/** The executions a queue-mode worker says it started, from its log. */
	executionIdsInLog() {
		const log = fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8') : '';
		return new Set([...log.matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]));
	}

	/** Stops the server and, when the harness made the user folder, removes it. */
	async dispose() {
		await this.stop();
		if (this.ownsUserFolder) fs.rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/**
 * Prepares a user folder with our package installed and starts n8n on it.
 * @param {object} [options]
 * @param {string} [options.userFolder] defaults to a fresh temp folder
 * @param {number} [options.port] defaults to a free port
 * @param {object} [options.env] extra n8n environment (e.g. EXECUTIONS_* settings)
 * @param {string} [options.tarball] an `npm pack` tarball; defaults to $OMNICHANNEL_E2E_TARBALL, else packing the repo now
 * @param {boolean} [options.start] false to prepare without starting (CLI-only use)
 * @param {string[]} [options.nodeArgs] Node flags for the server process
 */
async function startN8n({ userFolder, port, env, tarball = process.env.OMNICHANNEL_E2E_TARBALL, start = true, nodeArgs } = {}) {
	const folder = userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-n8n-'));
	const n8n = await N8n.create({ userFolder: folder, port, env, nodeArgs });
	n8n.ownsUserFolder = !userFolder;
	if (tarball) {
		installPackage(folder, tarball);
	} else {
		const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-pack-'));
		try {
			installPackage(folder, packRepo(packDir));
		} finally {
			fs.rmSync(packDir, { recursive: true, force: true });
		}
	}
	if (start) await n8n.start();
	return n8n;
}

module.exports = { N8n, startN8n, DEFAULT_OWNER };
