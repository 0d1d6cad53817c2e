'use strict';
// GET /conversations: newest activity first, with delta sync on
// last_updated_at (updated_at >= value, in UNIX seconds).

const { parsePaging, envelope, listView } = require('../pagination');
const { queryInteger } = require('../validate');
const { badRequest } = require('../errors');
const serialize = require('../serialize');

/** @returns {import('../server').RouteDefinition[]} */
module.exports = () => [
	{
		method: 'GET',
		url: '/conversations',
		scope: 'conversations:read',
		handler: (req, reply, { ws }) => {
			const paging = parsePaging(req.query);
			const since = queryInteger(req.query.last_updated_at, 'last_updated_at');
			if (since !== undefined && since < 0) throw badRequest('last_updated_at must not be negative');
			const list = ws.conversations;
			// Sorted by updated_at, so "updated at or after" is a suffix of the list.
			const count = since === undefined ? list.length : list.length - list.firstIndexWithKeyAtLeast(since * 1000);
			return envelope(listView(list, count), paging, serialize.conversation);
		},
	},
];
