'use strict';
// Shared helpers of the conformance suite: a sandbox per test file, small
// HTTP clients for the public API and the control surface, polling, and a
// webhook receiver on 127.0.0.1.

const http = require('node:http');
const { startSandbox } = require('..');

/**
 * Starts a sandbox and returns it with clients bound to it.
 * @param {import('../sandbox').SandboxOptions & { rateLimit?: boolean }} [options]
 *   rateLimit: false (the default here) lifts the 60/s limit so suites that
 *   make many requests are not throttled; the auth suite keeps it.
 */
async function openSandbox(options = {}) {
	const { rateLimit = false, ...sandboxOptions } = options;
	const sb = await startSandbox({ seed: 'demo', ...sandboxOptions });
	const api = apiClient(sb.base_url, sb.key);
	const control = controlClient(sb.control_url);
	if (!rateLimit) await control.put('/faults', { rate_limit_per_second: 0 });
	return { sb, api, control, close: () => sb.close() };
}

/**
 * @typedef {{ status: number, headers: Headers, body: any, text: string }} Result
 */

/** @returns {Promise<Result>} */
async function request(url, { method = 'GET', headers = {}, body, raw } = {}) {
	const init = { method, headers: { ...headers } };
	if (raw !== undefined) init.body = raw;
	else if (body !== undefined) {
		init.body = JSON.stringify(body);
		init.headers['Content-Type'] = 'application/json';
	}
	const response = await fetch(url, init);
	const text = await response.text();
	let parsed = null;
	try {
		parsed = text === '' ? null : JSON.parse(text);
	} catch {
		parsed = undefined;
	}
	return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Client for the public API with a default key (override per call with `key`). */
function apiClient(baseUrl, defaultKey) {
	const call = (method) => (path, body, { key = defaultKey, headers = {}, raw } = {}) =>
		request(baseUrl + path, {
			method,
			body,
			raw,
			headers: key === null ? headers : { Authorization: `Bearer ${key}`, ...headers },
		});
	return { get: call('GET'), post: call('POST'), patch: call('PATCH'), put: call('PUT'), delete: call('DELETE'), baseUrl };
}

function controlClient(controlUrl) {
	const call = (method) => async (path, body) => request(controlUrl + path, { method, body });
	return { get: call('GET'), post: call('POST'), put: call('PUT'), delete: call('DELETE'), url: controlUrl };
}

/** Polls `probe` until it returns a truthy value (bounded). */
async function waitFor(probe, { timeoutMs = 3000, intervalMs = 10 } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
		await sleep(intervalMs);
	}
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An HTTP receiver on 127.0.0.1 that records every request and answers with
 * `respond(request, index)` -> status (default 200).
 */
async function startReceiver(respond = () => 200) {
	/** @type {{ headers: import('http').IncomingHttpHeaders, body: string, method: string, url: string, at: number }[]} */
	const received = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const entry = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), method: req.method, url: req.url, at: Date.now() };
			received.push(entry);
			res.statusCode = respond(entry, received.length - 1);
			res.end('ok');
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = /** @type {import('net').AddressInfo} */ (server.address());
	return {
		url: `http://127.0.0.1:${port}/hooks`,
		received,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve(undefined));
			}),
	};
}

/** Every item of every page of a list endpoint (bounded by `maxPages`). */
async function allPages(api, path, { perPage = 500, maxPages = 1000 } = {}) {
	const items = [];
	const joiner = path.includes('?') ? '&' : '?';
	for (let page = 1; page <= maxPages; page++) {
		const res = await api.get(`${path}${joiner}page=${page}&per_page=${perPage}`);
		if (res.status !== 200) throw new Error(`GET ${path} page ${page}: ${res.status} ${res.text}`);
		items.push(...res.body.data);
		if (!res.body.has_next) return items;
	}
	throw new Error('too many pages');
}

/**
 * Users and conversations of a demo workspace, as the send tests need them:
 * the owner (creator of the seeded keys), an agent, conversations on active
 * channels and one on the inactive channel.
 */
async function demoWorld(t) {
	const info = (await t.control.get(`/workspaces/${t.sb.app_id}`)).body;
	const channels = await allPages(t.api, '/channels');
	const activeIds = new Set(channels.filter((c) => c.is_active).map((c) => c.id));
	const conversations = await allPages(t.api, '/conversations');
	const onActive = conversations.filter((c) => activeIds.has(c.channel_id));
	return {
		owner: info.owner_user_id,
		agent: info.users.find((u) => u.role === 'agent').id,
		conversations,
		active: onActive[0],
		other: onActive[1],
		onInactive: conversations.find((c) => !activeIds.has(c.channel_id)),
	};
}

/**
 * For a test file: a demo sandbox opened before its tests and closed after
 * them, with `world` from demoWorld(). Returns the object that will hold
 * `sb`, `api`, `control` and `world` once beforeAll ran.
 */
function useDemoSandbox() {
	/** @type {any} */
	const holder = {};
	beforeAll(async () => {
		Object.assign(holder, await openSandbox());
		holder.world = await demoWorld(holder);
	});
	afterAll(() => holder.close());
	return holder;
}

const ID_PATTERN = (prefix) => new RegExp(`^${prefix}_[0-9A-Za-z]{20}$`);
const ISO_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

module.exports = { openSandbox, request, apiClient, controlClient, waitFor, sleep, startReceiver, allPages, demoWorld, useDemoSandbox, ID_PATTERN, ISO_PATTERN };
