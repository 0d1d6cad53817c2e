'use strict';
// Reads and drives the sandbox from outside n8n, so the suite can check what
// n8n did against the service's own state. The key is sent, never printed.

async function call(url, method, body, headers = {}) {
	const response = await fetch(url, {
		method,
		headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
		signal: AbortSignal.timeout(30_000),
	});
	const text = await response.text();
	const parsed = text ? JSON.parse(text) : undefined;
	if (!response.ok) {
		throw new Error(`sandbox ${method} ${new URL(url).pathname} -> ${response.status}: ${text.slice(0, 500)}`);
	}
	return parsed;
}

/**
 * @param {{ base_url: string, control_url: string, key: string }} sandbox
 *   what startSandbox() resolves to (or the CLI's first line)
 * @param {string} [key] another key of the sandbox (defaults to the seeded one)
 */
function sandboxClient(sandbox, key = sandbox.key) {
	const auth = { authorization: `Bearer ${key}` };
	const client = {
		/** The public API, as a client holding `key`. */
		api: (method, path, body) => call(`${sandbox.base_url}${path}`, method, body, auth),
		/** The sandbox's control surface (sandbox.md). */
		control: (method, path, body) => call(`${sandbox.control_url}${path}`, method, body),

		/** Every record of a list endpoint, following has_next (bounded by maxPages). */
		async listAll(path, query = {}, { maxPages = 200 } = {}) {
			const records = [];
			for (let page = 1; page <= maxPages; page++) {
				const qs = new URLSearchParams({ ...query, page: String(page), per_page: '500' });
				const body = await client.api('GET', `${path}?${qs}`);
				records.push(...body.data);
				if (!body.has_next) return records;
			}
			throw new Error(`${path} has more than ${maxPages} pages`);
		},
	};
	return client;
}

module.exports = { sandboxClient };
