'use strict';
// An n8n the harness started elsewhere in this run (another test file's
// module registry, another jest worker), driven from its record: the
// process (N8nProcess.toRecord) plus the owner's session. Imports and runs go
// through n8n's REST API (n8n-rest.js), stop, kill and start work by pid,
// and its CLI and files are at hand as for an n8n of one's own. dispose()
// removes what this handle imported and leaves the n8n running for the next.
const fs = require('fs');

const { N8n } = require('./n8n');
const rest = require('./n8n-rest');

class AttachedN8n extends N8n {
	/**
	 * @param {object} record toRecord() plus `baseUrl`, `owner`, `cookie`, `apiKey`;
	 *   with `file`, a restart writes the new pid back there
	 */
	static async attach(record) {
		const n8n = await super.attach(record);
		n8n.api.cookie = record.cookie;
		n8n.api.apiKey = record.apiKey;
		n8n.owner = record.owner;
		n8n.credentialIds = new Map();
		n8n.importedWorkflows = new Set();
		return n8n;
	}

	async importCredentials(credentials) {
		await rest.importCredentials(this.api, credentials, this.credentialIds);
	}

	async importWorkflows(workflows) {
		await rest.importWorkflows(this.api, workflows, this.credentialIds);
		for (const workflow of workflows) this.importedWorkflows.add(workflow.id);
	}

	executeWorkflow(id) {
		return rest.executeWorkflow(this.api, id);
	}

	/** The id n8n gave a credential imported with `id` (REST imports get new ids). */
	credentialIdOf(id) {
		return this.credentialIds.get(id) ?? id;
	}

	testCredential(id) {
		return this.api.testCredential(this.credentialIdOf(id));
	}

	/** The owner and API key exist already: the session is the record's. */
	async setupOwnerAndApiKey() {
		return { email: this.owner.email, password: this.owner.password };
	}

	/** Starts it again after a stop() or kill(); running already, nothing to do. */
	async start() {
		if (this.pid) return;
		await super.start();
		if (this.record.file) fs.writeFileSync(this.record.file, JSON.stringify(this.record), { mode: 0o600 });
	}

	/** Removes the workflows (with their executions) and credentials this handle imported; n8n keeps running. */
	async dispose() {
		if (!this.pid) await this.start();
		for (const id of this.importedWorkflows) {
			const current = await this.api.rest('GET', `/workflows/${id}`).catch(() => undefined);
			if (current) await rest.removeWorkflow(this.api, id, current);
		}
		for (const id of this.credentialIds.values()) await this.api.rest('DELETE', `/credentials/${id}`).catch(() => undefined);
		this.importedWorkflows.clear();
		this.credentialIds.clear();
	}
}

module.exports = { AttachedN8n };
