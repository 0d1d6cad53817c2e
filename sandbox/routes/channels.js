'use strict';
// GET /channels, newest first.

const { parsePaging, envelope, listView } = require('../pagination');
const serialize = require('../serialize');

/** @returns {import('../server').RouteDefinition[]} */
module.exports = () => [
	{
		method: 'GET',
		url: '/channels',
		scope: 'channels:read',
		handler: (req, reply, { ws }) => envelope(listView(ws.channels), parsePaging(req.query), serialize.channel),
	},
];
