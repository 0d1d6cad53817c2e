'use strict';
// GET /me: the identity of the calling key.

/** @returns {import('../server').RouteDefinition[]} */
module.exports = () => [
	{
		method: 'GET',
		url: '/me',
		handler: (req, reply, { key }) => ({
			app_id: key.app_id,
			key_id: key.key_id,
			name: key.name,
			public_id: key.public_id,
			mode: key.mode,
			scopes: key.scopes.slice(),
			created_at: key.created_at,
		}),
	},
];
