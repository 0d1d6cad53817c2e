'use strict';
// An n8n started elsewhere (a Docker image of a version that does not install
// here, n8n 3.x say), driven over HTTP only, with the same methods as the
// harness's own n8n (n8n.js) where HTTP can do the job:
//
//   OMNICHANNEL_N8N_URL=http://127.0.0.1:5678
//   OMNICHANNEL_N8N_OWNER_EMAIL=owner@example.com
//   OMNICHANNEL_N8N_OWNER_PASSWORD=...
//
// Credentials and workflows go in through the editor's REST API (POST
// /rest/credentials, POST /rest/workflows) instead of `n8n import:*`, and a
// workflow runs through the editor's manual run (POST /rest/workflows/:id/run)
// instead of `n8n execute`. n8n picks credential ids itself, so the ids the
// tests use are mapped to them, in the workflows too. Starting, stopping and
// killing it are not ours to do: start() only checks that it is ready, stop()
// and kill() throw, so a test that restarts n8n fails saying so.
const { N8nApi, N8nApiError } = require('./n8n-api');
const rest = require('./n8n-rest');
const { sleep, waitFor } = require('./poll');

const READY_TIMEOUT_MS = 60_000;
const LOGIN_ATTEMPTS = 25;
const LOGIN_RETRY_MS = 5_000;

/** The external n8n's address and owner from the environment, or null when none is set. */
function externalN8nSettings(env = process.env) {
	const url = env.OMNICHANNEL_N8N_URL;
	if (!url) return null;
	const email = env.OMNICHANNEL_N8N_OWNER_EMAIL;
	const password = env.OMNICHANNEL_N8N_OWNER_PASSWORD;
	if (!email || !password) {
		throw new Error('OMNICHANNEL_N8N_URL is set: set OMNICHANNEL_N8N_OWNER_EMAIL and OMNICHANNEL_N8N_OWNER_PASSWORD to its owner login too');
	}
	return { baseUrl: url.replace(/\/+$/, ''), owner: { email, password } };
}

class ExternalN8n {
	constructor({ baseUrl, owner }) {
		this.baseUrl = baseUrl;
		this.owner = owner;
		this.api = new N8nApi(baseUrl);
		this.external = true;
		/** The tests' credential ids -> the ids n8n gave them. */
		this.credentialIds = new Map();
	}

	async start() {
		await waitFor(
			async () => {
				const response = await fetch(`${this.baseUrl}/healthz/readiness`).catch(() => undefined);
				return response?.status === 200;
			},
			{ what: `the n8n at ${this.baseUrl} to be ready`, timeoutMs: READY_TIMEOUT_MS, intervalMs: 500 },
		);
	}

	async stop() {
		throw new Error(`the n8n at ${this.baseUrl} (OMNICHANNEL_N8N_URL) was started elsewhere: this test restarts n8n and cannot run against it`);
	}

	async kill() {
		await this.stop();
	}

	/**
	 * Logs in as the owner (set up beforehand) and creates a public-API key,
	 * once: every method needs both, also in suites that never call
	 * setupOwnerAndApiKey because `n8n execute` needs neither.
	 */
	async login() {
		if (!this.api.cookie) await this.loginPatiently();
		if (!this.api.apiKey) await this.api.createApiKey(`omnichannel tests ${new Date().toISOString()}`);
	}

	/** n8n limits logins per address (429): each test file logs in once, so a run of several files can meet the limit. */
	async loginPatiently() {
		for (let attempt = 1; ; attempt++) {
			try {
				return await this.api.login(this.owner);
			} catch (error) {
				if (!(error instanceof N8nApiError) || error.status !== 429 || attempt >= LOGIN_ATTEMPTS) throw error;
				await sleep(LOGIN_RETRY_MS);
			}
		}
	}

	async setupOwnerAndApiKey() {
		await this.login();
		return { ...this.owner };
	}

	/** Creates each credential, or updates the one of the same name and type left by an earlier run. */
	async importCredentials(credentials) {
		await this.login();
		await rest.importCredentials(this.api, credentials, this.credentialIds);
	}

	/**
	 * Creates each workflow under its own id. One an earlier run left is
	 * unpublished, archived and deleted first, with its executions: the
	 * suites count a workflow's executions.
	 */
	async importWorkflows(workflows) {
		await this.login();
		await rest.importWorkflows(this.api, workflows, this.credentialIds);
	}

	/** Runs a saved workflow from its manual trigger, as the editor does, in `n8n execute`'s result shape. */
	async executeWorkflow(id) {
		await this.login();
		return await rest.executeWorkflow(this.api, id);
	}

	async publishWorkflow(id) {
		await this.login();
		return await this.api.publishWorkflow(id);
	}

	async unpublishWorkflow(id) {
		await this.login();
		return await this.api.unpublishWorkflow(id);
	}

	async listExecutions(filters) {
		await this.login();
		return await this.api.listExecutions(filters);
	}

	/** The id n8n gave a credential imported with `id`. */
	credentialIdOf(id) {
		return this.credentialIds.get(id) ?? id;
	}

	async testCredential(id) {
		await this.login();
		return await this.api.testCredential(this.credentialIdOf(id));
	}

	async dispose() {
		// Nothing of ours runs: the n8n and what the tests saved in it stay.
	}
}

/** The n8n at OMNICHANNEL_N8N_URL, or null when the variable is not set. */
function connectExternalN8n(env = process.env) {
	const settings = externalN8nSettings(env);
	return settings ? new ExternalN8n(settings) : null;
}

module.exports = { ExternalN8n, connectExternalN8n, externalN8nSettings };
