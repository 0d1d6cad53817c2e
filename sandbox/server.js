'use strict';
// The Fastify application: public API under /api/public/v1 (authenticated,
// rate limited, fault-injected, counted in stats) and the control surface
// under /__sandbox (no auth, no faults).

const Fastify = require('fastify');
const multipart = require('@fastify/multipart');
const { HttpError } = require('./errors');
const { errorHandler, clientErrorHandler, sendError, STATUS_MESSAGES } = require('./httpErrors');
const { authenticate, checkAllowlist, checkScope } = require('./auth');
const { RouteTable, routeLabel } = require('./routeTable');

const PUBLIC_PREFIX = '/api/public/v1';
const CONTROL_PREFIX = '/__sandbox';
const JSON_BODY_LIMIT = 1024 * 1024;
const MAX_FILE_BYTES = 25 * 1024 * 1024;

const PUBLIC_ROUTES = [
	require('./routes/me'),
	require('./routes/conversations'),
	require('./routes/messages'),
	require('./routes/media'),
	require('./routes/contacts'),
	require('./routes/channels'),
	require('./routes/webhooks'),
];
const CONTROL_ROUTES = [require('./control/world'), require('./control/observability')];

/**
 * @typedef {object} RouteDefinition
 * @property {'GET'|'POST'|'PATCH'|'PUT'|'DELETE'} method
 * @property {string} url relative to the prefix, Fastify syntax (":id")
 * @property {string} [scope] scope the key needs (public routes)
 * @property {(req: any, reply: any, auth: { ws: any, key: any }) => unknown} handler
 *   returns the body; sets the status with reply.code(); never calls reply.send()
 */

/** @param {any} ctx sandbox context */
function buildServer(ctx) {
	const app = Fastify({
		logger: false,
		bodyLimit: JSON_BODY_LIMIT,
		// close() must not wait for clients' idle keep-alive connections.
		forceCloseConnections: true,
		// Requests racing close() get the normal pipeline, never Fastify's own 503 body.
		return503OnClosing: false,
		routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
		frameworkErrors: errorHandler,
		clientErrorHandler,
	});
	installJsonParser(app);
	app.setErrorHandler(errorHandler);
	const table = new RouteTable();

	app.register(async (scope) => publicApi(scope, ctx, table), { prefix: PUBLIC_PREFIX });
	app.register(async (scope) => controlApi(scope, ctx, table), { prefix: CONTROL_PREFIX });
	app.setNotFoundHandler(notFoundHandler(table));
	return app;
}

/**
 * JSON bodies: an empty body counts as no body (clients send
 * "Content-Type: application/json" on bodiless DELETEs); bad JSON is a 400.
 */
function installJsonParser(app) {
	app.removeContentTypeParser('application/json');
	app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, text, done) => {
		if (text.trim() === '') return done(null, undefined);
		try {
			done(null, JSON.parse(text));
		} catch {
			done(new HttpError(400, 'invalid json body'), undefined);
		}
	});
}

/** 405 when the path exists with other methods, else 404. */
function notFoundHandler(table) {
	return async (req) => {
		const methods = table.methodsFor(req.url);
		if (methods.length > 0) throw new HttpError(405, 'method not allowed', undefined, { Allow: methods.join(', ') });
		throw new HttpError(404, 'not found');
	};
}

/** @param {import('fastify').FastifyInstance} app */
async function publicApi(app, ctx, table) {
	await app.register(multipart, {
		throwFileSizeLimit: true,
		limits: { fileSize: MAX_FILE_BYTES, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 25, headerPairs: 50 },
	});
	app.decorateRequest('sandbox', null);
	app.addHook('onRequest', publicGate(ctx));
	app.addHook('onResponse', async (req, reply) => {
		const state = req.sandbox;
		if (!state || state.statsRecorded) return;
		state.statsRecorded = true;
		ctx.stats.record(state.label, reply.statusCode);
	});
	for (const definitions of PUBLIC_ROUTES) {
		for (const route of definitions(ctx)) {
			app.route({
				method: route.method,
				url: route.url,
				config: { scope: route.scope, label: routeLabel(route.method, route.url) },
				handler: withLateFault(ctx, route.handler),
			});
			table.add(PUBLIC_PREFIX + route.url, route.method);
		}
	}
	app.setNotFoundHandler(notFoundHandler(table));
}

/**
 * Runs before every public request, in this order (a choice of the sandbox;
 * the API does not fix it):
 *   1. latency (faults) - applies to every response, 429s included;
 *   2. injected fault, when it strikes before the handler (a failing gateway
 *      answers before anything else);
 *   3. authentication -> 401;
 *   4. rate limit, per key -> 429 (every authenticated request takes a token,
 *      so a key cannot probe without paying);
 *   5. IP allowlist -> 403 "ip address not allowed";
 *   6. scope -> 403 with required_scope;
 *   then body parsing (400/413/415) and the handler's validation (400/404).
 */
function publicGate(ctx) {
	return async function gate(req, reply) {
		const config = req.routeOptions.config || {};
		const state = { label: config.label || `${req.method} (unmatched)`, statsRecorded: false, fault: null, ws: null, key: null };
		req.sandbox = state;
		ctx.stats.arrival();
		const delay = ctx.faults.latencyMs();
		if (delay > 0) await ctx.timers.sleep(delay);
		const fault = ctx.faults.decide(req.method);
		if (fault && !fault.afterHandler) return injectFault(ctx, req, reply, fault);
		state.fault = fault;
		const key = authenticate(ctx.store, req.headers.authorization);
		const retryAfter = ctx.rateLimiter.take(key.key_id);
		if (retryAfter > 0) throw new HttpError(429, 'rate limit exceeded', undefined, { 'Retry-After': String(retryAfter) });
		checkAllowlist(key, req.ip);
		checkScope(key, config.scope);
		state.key = key;
		state.ws = ctx.store.workspace(key.app_id);
	};
}

/** An injected error status, or a dropped connection (stats status "reset"). */
function injectFault(ctx, req, reply, fault) {
	if (fault.kind === 'reset') {
		req.sandbox.statsRecorded = true;
		ctx.stats.record(req.sandbox.label, 'reset');
		reply.hijack();
		req.raw.socket.destroy();
		return reply;
	}
	return sendError(reply, fault.status, STATUS_MESSAGES[fault.status], null, fault.status === 503 ? { 'Retry-After': '1' } : null);
}

/** Runs a public handler; a write's "after" fault replaces the real answer. */
function withLateFault(ctx, handler) {
	return async function (req, reply) {
		const body = await handler(req, reply, req.sandbox);
		if (req.sandbox.fault) return injectFault(ctx, req, reply, req.sandbox.fault);
		return body === undefined ? reply.send() : body;
	};
}

/** @param {import('fastify').FastifyInstance} app */
async function controlApi(app, ctx, table) {
	for (const definitions of CONTROL_ROUTES) {
		for (const route of definitions(ctx)) {
			app.route({
				method: route.method,
				url: route.url,
				handler: async (req, reply) => {
					const body = await route.handler(req, reply);
					return body === undefined ? reply.send() : body;
				},
			});
			table.add(CONTROL_PREFIX + route.url, route.method);
		}
	}
	app.setNotFoundHandler(notFoundHandler(table));
}

module.exports = { buildServer, PUBLIC_PREFIX, CONTROL_PREFIX, MAX_FILE_BYTES };
