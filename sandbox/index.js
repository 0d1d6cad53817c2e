'use strict';
// startSandbox(): a faithful in-memory server of the whole public API
// with a control surface for tests, benchmarks and the demo (README.md).
// Everything lives in the per-call context, so several sandboxes can run in
// one process.

const { createIdFactory } = require('./ids');
const { createClock, createTimers } = require('./clock');
const { Store } = require('./store');
const { Faults } = require('./faults');
const { Stats } = require('./stats');
const { RateLimiter } = require('./rateLimit');
const { WebhookDeliverer } = require('./webhooks/deliverer');
const { seedDemo, bulkSeed, BULK_LIMITS, DEMO } = require('./seed');
const { buildServer, PUBLIC_PREFIX, CONTROL_PREFIX } = require('./server');

/**
 * @typedef {object} SandboxOptions
 * @property {number} [port] 0 or absent: a free port
 * @property {string} [host] default 127.0.0.1
 * @property {'demo' | 'empty'} [seed] default demo
 * @property {number} [contacts] extra bulk contacts
 * @property {number} [conversations] extra bulk conversations
 * @property {number} [messagesPerConversation] messages in each bulk conversation
 *
 * @typedef {object} Sandbox
 * @property {string} base_url
 * @property {string} control_url
 * @property {string} app_id
 * @property {string} key   svc_test_..., every scope
 * @property {string} live_key svc_live_..., every scope
 * @property {number} port
 * @property {() => Promise<void>} close
 */

function createContext() {
	const ids = createIdFactory();
	const clock = createClock();
	const timers = createTimers();
	const faults = new Faults();
	return {
		ids,
		clock,
		timers,
		faults,
		stats: new Stats(),
		store: new Store({ ids, clock }),
		rateLimiter: new RateLimiter(() => faults.settings.rate_limit_per_second),
		events: new WebhookDeliverer({ ids, clock, timers, faults }),
		/** the seeded workspace: control endpoints default to it */
		primaryAppId: '',
	};
}

/** @param {SandboxOptions} options */
function normalizeOptions(options) {
	const seed = options.seed ?? 'demo';
	if (seed !== 'demo' && seed !== 'empty') throw new Error(`seed must be "demo" or "empty", not ${JSON.stringify(seed)}`);
	const count = (name, value, max) => {
		if (value === undefined || value === null) return 0;
		if (!Number.isInteger(value) || value < 0 || value > max) throw new Error(`${name} must be an integer 0..${max}`);
		return value;
	};
	const port = options.port ?? 0;
	if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('port must be an integer 0..65535');
	return {
		port,
		host: options.host || '127.0.0.1',
		seed,
		contacts: count('contacts', options.contacts, BULK_LIMITS.contacts),
		conversations: count('conversations', options.conversations, BULK_LIMITS.conversations),
		messagesPerConversation: count('messagesPerConversation', options.messagesPerConversation, BULK_LIMITS.messagesPerConversation),
	};
}

/** A host usable in a URL; wildcard listeners are reached through loopback. */
function urlHost(host) {
	if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
	return host.includes(':') ? `[${host}]` : host;
}

/**
 * @param {SandboxOptions} [options]
 * @returns {Promise<Sandbox>}
 */
async function startSandbox(options = {}) {
	const opts = normalizeOptions(options);
	const ctx = createContext();
	const ws = ctx.store.createWorkspace({ ownerName: DEMO.ownerName });
	ctx.primaryAppId = ws.app_id;
	const testKey = ctx.store.addKey(ws, { mode: 'test', name: 'Sandbox test key' }).key;
	const liveKey = ctx.store.addKey(ws, { mode: 'live', name: 'Sandbox live key' }).key;
	if (opts.seed === 'demo') seedDemo(ctx, ws);
	if (opts.contacts || opts.conversations) {
		bulkSeed(ctx, ws, { contacts: opts.contacts, conversations: opts.conversations, messagesPerConversation: opts.messagesPerConversation });
	}

	const app = buildServer(ctx);
	await app.listen({ port: opts.port, host: opts.host });
	const address = app.server.address();
	const port = typeof address === 'object' && address ? address.port : opts.port;
	const origin = `http://${urlHost(opts.host)}:${port}`;

	let closing = null;
	return {
		base_url: origin + PUBLIC_PREFIX,
		control_url: origin + CONTROL_PREFIX,
		app_id: ws.app_id,
		key: testKey,
		live_key: liveKey,
		port,
		close() {
			if (!closing) {
				ctx.timers.clearAll();
				ctx.events.close();
				closing = app.close().then(() => undefined);
			}
			return closing;
		},
	};
}

module.exports = { startSandbox };
