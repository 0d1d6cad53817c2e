'use strict';
// Control endpoints that observe or perturb: faults, stats, delivery log and
// the stored view of a message (see README.md, "Control surface").

const { orNotFound } = require('../errors');
const serialize = require('../serialize');

/** @returns {import('../server').RouteDefinition[]} */
module.exports = (ctx) => {
	/** Applies a settings change; a new rate starts everyone with a full bucket of the new size. */
	const changeFaults = (change) => {
		const before = ctx.faults.settings.rate_limit_per_second;
		const view = change();
		if (view.rate_limit_per_second !== before) ctx.rateLimiter.reset();
		return view;
	};
	/** An optional single-valued filter from the query string. */
	const filter = (query, name) => (typeof query[name] === 'string' && query[name] !== '' ? query[name] : undefined);

	return [
		{ method: 'GET', url: '/faults', handler: () => ctx.faults.view() },
		{
			method: 'PUT',
			url: '/faults',
			handler: (req) => changeFaults(() => ctx.faults.update(req.body === undefined ? {} : req.body)),
		},
		{ method: 'DELETE', url: '/faults', handler: () => changeFaults(() => ctx.faults.reset()) },
		{ method: 'GET', url: '/stats', handler: () => ctx.stats.view() },
		{
			method: 'DELETE',
			url: '/stats',
			handler: () => {
				ctx.stats.reset();
				return ctx.stats.view();
			},
		},
		{
			// Every recorded attempt, oldest first; ?event_id= and ?webhook_id= narrow it.
			method: 'GET',
			url: '/deliveries',
			handler: (req) => ctx.events.attempts({ event_id: filter(req.query, 'event_id'), webhook_id: filter(req.query, 'webhook_id') }),
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
			handler: (req) => serialize.storedMessage(orNotFound(ctx.store.findMessage(req.params.id), 'message not found')),
		},
	];
};
