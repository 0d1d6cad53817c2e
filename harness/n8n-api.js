'use strict';
// HTTP client for a running n8n: the internal REST API (owner setup, login,
// API keys; cookie session, as the editor uses it) and the public API
// (/api/v1, X-N8N-API-KEY). Routes and bodies were read from the installed
// n8n (dist/controllers, @n8n/api-types dto, public-api/v1/openapi.yml).
// Under `npm run test:compat` the same calls run against older n8n; two
// routes differ there and are switched below: publishing (n8n 1.x and 2.0:
// activate) and the credential test (no public route before 2.x's later
// versions: the editor's internal one). n8n 2.0 also reports ready before
// its REST routes exist (setupOwner waits for them).
const { sleep, waitFor } = require('./poll');
const { N8N_MAJOR } = require('./install');

const REQUEST_TIMEOUT_MS = 60_000;
const ROUTES_TIMEOUT_MS = 60_000;

class N8nApiError extends Error {
	constructor(method, path, status, body) {
		super(`${method} ${path} -> ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
		this.status = status;
		this.body = body;
	}
}

class N8nApi {
	constructor(baseUrl) {
		this.baseUrl = baseUrl;
		this.cookie = null;
		this.apiKey = null;
	}

	async request(method, path, { body, headers = {} } = {}) {
		const send = () =>
			fetch(`${this.baseUrl}${path}`, {
				method,
				headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
				body: body === undefined ? undefined : JSON.stringify(body),
				signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
			});
		let response;
		try {
			response = await send();
		} catch (error) {
			// A kept-alive connection n8n closed as the request went out (Node's 5 s idle timeout; on a loaded
			// machine the client's timer runs late): n8n read nothing of it, so it is sent once more.
			if (error.cause?.code !== 'UND_ERR_SOCKET') throw error;
			response = await send();
		}
		const text = await response.text();
		let parsed = text;
		try {
			parsed = text ? JSON.parse(text) : undefined;
		} catch {
			// not JSON: keep the text for the error message
		}
		if (!response.ok) throw new N8nApiError(method, path, response.status, parsed);
		return { response, body: parsed };
	}

	/** Internal REST API with the session cookie; unwraps n8n's `{ data }` envelope. */
	async rest(method, path, body) {
		const headers = this.cookie ? { cookie: this.cookie } : {};
		const result = await this.request(method, `/rest${path}`, { body, headers });
		const setCookie = result.response.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (setCookie) this.cookie = setCookie.split(';')[0];
		return result.body?.data;
	}

	/** Public API (/api/v1) with the API key from createApiKey(). */
	async publicApi(method, path, body) {
		if (!this.apiKey) throw new Error('no n8n API key yet: call setupOwnerAndApiKey() first');
		return (await this.request(method, `/api/v1${path}`, { body, headers: { 'x-n8n-api-key': this.apiKey } })).body;
	}

	async setupOwner({ email, password, firstName, lastName }) {
		// n8n 2.0 answers /healthz/readiness once its database is ready, before
		// it registers the REST routes: until then Express answers 404.
		const deadline = Date.now() + ROUTES_TIMEOUT_MS;
		for (;;) {
			try {
				return await this.rest('POST', '/owner/setup', { email, password, firstName, lastName });
			} catch (error) {
				const notYet = error instanceof N8nApiError && error.status === 404 && /Cannot POST/.test(String(error.body));
				if (!notYet || Date.now() >= deadline) throw error;
				await sleep(250);
			}
		}
	}

	/**
	 * The node descriptions the editor loads (`/types/nodes.json`, behind the
	 * session cookie). n8n rewrites that file in place whenever it reloads
	 * nodes (N8N_DEV_RELOAD, package installs), and serves it empty or cut off
	 * meanwhile: that is an error here, never a list.
	 */
	async nodeTypes() {
		const { body } = await this.request('GET', '/types/nodes.json', { headers: this.cookie ? { cookie: this.cookie } : {} });
		if (!Array.isArray(body)) {
			const length = typeof body === 'string' ? body.length : 0;
			throw new Error(`GET /types/nodes.json -> not a JSON list (${length} characters): n8n serves it so while it rewrites it, during a reload of nodes`);
		}
		return body;
	}

	async login({ email, password }) {
		return await this.rest('POST', '/login', { emailOrLdapLoginId: email, password });
	}

	/** Creates a non-expiring public-API key with every scope the owner may grant. */
	async createApiKey(label = 'e2e harness') {
		const scopes = await this.rest('GET', '/api-keys/scopes');
		const created = await this.rest('POST', '/api-keys', { label, scopes, expiresAt: null });
		this.apiKey = created.rawApiKey;
		return this.apiKey;
	}

	/** Runs the credential type's `test` request inside n8n: `{ status: 'OK'|'Error', message }`. */
	async testCredential(id) {
		try {
			return await this.publicApi('POST', `/credentials/${id}/test`);
		} catch (error) {
			if (!(error instanceof N8nApiError) || error.status !== 404) throw error;
			// n8n 1.x and early 2.x (2.0.0) have no such public route: send the
			// editor's own request, with the stored data as the editor reads it
			// (secrets blanked; n8n puts the stored values back before testing).
			const { name, type, data } = await this.rest('GET', `/credentials/${id}?includeData=true`);
			return await this.rest('POST', '/credentials/test', { credentials: { id, name, type, data } });
		}
	}

	async getWorkflow(id) {
		return await this.publicApi('GET', `/workflows/${id}`);
	}

	/**
	 * Publishes (n8n 1.x: activates) a workflow. n8n answers before trigger
	 * nodes have finished registering; callers poll for the effect they need.
	 */
	async publishWorkflow(id) {
		return await this.publishOrActivate(id, 'publish', 'activate', {});
	}

	async unpublishWorkflow(id) {
		return await this.publishOrActivate(id, 'unpublish', 'deactivate');
	}

	/**
	 * n8n 2.x publishes (POST /workflows/{id}/publish; /activate remains as a
	 * deprecated alias); n8n 1.x only activates. A 2.x without the publish
	 * route is activated too: n8n 2.0 answers 405 there (its GET
	 * /workflows/{id}/{versionId} matches the path).
	 */
	async publishOrActivate(id, route2x, route1x, body) {
		if (N8N_MAJOR >= 2) {
			try {
				return await this.publicApi('POST', `/workflows/${id}/${route2x}`, body);
			} catch (error) {
				// A missing workflow is a 404 too: activate then fails with its own 404.
				if (!(error instanceof N8nApiError) || (error.status !== 404 && error.status !== 405)) throw error;
			}
		}
		try {
			return await this.publicApi('POST', `/workflows/${id}/${route1x}`, body);
		} catch (error) {
			if (route1x !== 'activate' || !(error instanceof N8nApiError) || error.status !== 404) throw error;
			await this.saveHistoryVersion(id);
			return await this.publicApi('POST', `/workflows/${id}/${route1x}`, body);
		}
	}

	/**
	 * n8n 2.0 activates a workflow's version from its history, but its CLI
	 * import records none (activate then answers 404). Saving the workflow
	 * through the public API records one; n8n does so only when the nodes
	 * changed, so the first node moves by one pixel.
	 */
	async saveHistoryVersion(id) {
		const { name, nodes, connections, settings } = await this.getWorkflow(id);
		const [first, ...rest] = nodes;
		const moved = { ...first, position: [first.position[0], first.position[1] + 1] };
		await this.publicApi('PUT', `/workflows/${id}`, { name, nodes: [moved, ...rest], connections, settings: settings ?? {} });
	}

	/** Saves edited nodes as the editor does (GET, then PATCH with the checksum); returns the saved workflow. */
	async saveNodes(id, editNodes) {
		const current = await this.rest('GET', `/workflows/${id}`);
		return await this.rest('PATCH', `/workflows/${id}`, { nodes: editNodes(current.nodes), connections: current.connections, expectedChecksum: current.checksum });
	}

	/** Edits a published workflow's nodes and publishes it again, the editor's way (PATCH, then POST activate). */
	async editAndPublish(id, editNodes) {
		const saved = await this.saveNodes(id, editNodes);
		return await this.rest('POST', `/workflows/${id}/activate`, { versionId: saved.versionId, expectedChecksum: saved.checksum });
	}

	/** n8n's Retry of a failed execution (`loadWorkflow`: the saved workflow, else the execution's own); resolves when it finished. */
	async retryExecution(id, { loadWorkflow }) {
		return await this.rest('POST', `/executions/${id}/retry`, { loadWorkflow });
	}

	/**
	 * Every execution matching the filters (workflowId, status, includeData),
	 * following n8n's cursor pagination up to `maxPages` pages.
	 */
	async listExecutions({ workflowId, status, includeData = false, maxPages = 20 } = {}) {
		const executions = [];
		let cursor;
		for (let page = 0; page < maxPages; page++) {
			const query = new URLSearchParams({ limit: '250', includeData: String(includeData) });
			if (workflowId) query.set('workflowId', workflowId);
			if (status) query.set('status', status);
			if (cursor) query.set('cursor', cursor);
			const result = await this.publicApi('GET', `/executions?${query}`);
			executions.push(...result.data);
			cursor = result.nextCursor;
			if (!cursor) return executions;
		}
		throw new Error(`more than ${maxPages} pages of executions`);
	}

	/**
	 * The editor's manual run of a saved workflow from `trigger` (POST
	 * /rest/workflows/:id/run), which queue mode with
	 * OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS hands to a worker; resolves to the
	 * finished execution with its data.
	 */
	async runManually(workflowId, { trigger, timeoutMs = 120_000 }) {
		const { executionId } = await this.rest('POST', `/workflows/${workflowId}/run`, { triggerToStartFrom: { name: trigger } });
		if (!executionId) throw new Error(`n8n started no execution of workflow ${workflowId}`);
		await waitFor(
			async () => {
				const execution = await this.getExecution(executionId, { includeData: false });
				return execution.finished || execution.stoppedAt ? execution : undefined;
			},
			{ what: `the manual run ${executionId} of workflow ${workflowId}`, timeoutMs, intervalMs: 100 },
		);
		return await this.getExecution(executionId);
	}

	async getExecution(id, { includeData = true } = {}) {
		return await this.publicApi('GET', `/executions/${id}?includeData=${includeData}`);
	}

	/** Waits until `count` executions of the workflow have finished (any status). */
	async waitForExecutions(workflowId, { count, timeoutMs = 30_000 }) {
		return await waitFor(
			async () => {
				const finished = (await this.listExecutions({ workflowId })).filter((e) => e.finished || e.stoppedAt);
				return finished.length >= count ? finished : undefined;
			},
			{ what: `${count} execution(s) of workflow ${workflowId}`, timeoutMs, intervalMs: 500 },
		);
	}
}

module.exports = { N8nApi, N8nApiError };
