'use strict';
// Control endpoints that observe or perturb: faults, stats, delivery log and
// the stored view of a message (sandbox.md).

const { notFound } = require('../errors');
const serialize = require('../serialize');

/** @returns {import('../server').RouteDefinition[]} */
module.exports = (ctx) => [
	{
		method: 'GET',
		url: '/faults',
		handler: () => ctx.faults.view(),
	},
	{
		method: 'PUT',
		url: '/faults',
		handler: (req) => {
			const before = ctx.faults.settings.rate_limit_per_second;
			const view = ctx.faults.update(req.body === undefined ? {} : req.body);
			// A new rate starts everyone with a full bucket of the new size.
			if (view.rate_limit_per_second !== before) ctx.rateLimiter.reset();
			return view;
		},
	},
	{
		method: 'DELETE',
		url: '/faults',
		handler: () => {
			ctx.rateLimiter.reset();
			return ctx.faults.reset();
		},
	},
	{
		method: 'GET',
		url: '/stats',
		handler: () => ctx.stats.view(),
	},
	{
		method: 'DELETE',
		url: '/stats',
		handler: () => {
			ctx.stats.reset();
			return ctx.stats.view();
		},
	},
	{
		method: 'GET',
		url: '/deliveries',
		handler: (req) =>
			ctx.events.attempts({
				event_id: typeof req.query.event_id === 'string' ? req.query.event_id : undefined,
				webhook_id: typeof req.query.webhook_id === 'string' ? req.query.webhook_id : undefined,
			}),
	},
	{
		method: 'DELETE',
		url: '/deliveries',
		handler: (req, reply) => {
			ctx.events.clearLog();
			reply.code(204);
			return undefined;
		},
	},
	{
		method: 'GET',
		url: '/messages/:id',
		handler: (req) => {
			const message = ctx.store.findMessage(req.params.id);
			if (!message) throw notFound('message not found');
			return serialize.storedMessage(message);
		},
	},
];
