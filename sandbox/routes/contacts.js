'use strict';
// Contacts: list (search, lead_status), create, get, update, merge.

const { parsePaging, envelope, listView, arrayView, filterNewestFirst } = require('../pagination');
const { queryString } = require('../validate');
const { badRequest, orNotFound } = require('../errors');
const { LEAD_STATUSES } = require('../store');
const { parseContactBody, createContact, updateContact, mergeContacts, contactFilter } = require('../contacts');
const serialize = require('../serialize');

/** @returns {import('../server').RouteDefinition[]} */
module.exports = (ctx) => {
	const findContact = (ws, id) => orNotFound(ws.contacts.get(id), 'contact not found');

	return [
		{
			method: 'GET',
			url: '/contacts',
			scope: 'customers:read',
			handler: (req, reply, { ws }) => {
				const paging = parsePaging(req.query);
				const search = (queryString(req.query.search, 'search') ?? '').trim();
				// An empty lead_status parameter means "no filter" (decision).
				const leadStatus = queryString(req.query.lead_status, 'lead_status') || undefined;
				if (leadStatus !== undefined && !LEAD_STATUSES.includes(leadStatus)) {
					throw badRequest(`lead_status must be one of ${LEAD_STATUSES.join(', ')}`);
				}
				if (search === '' && leadStatus === undefined) return envelope(listView(ws.contacts), paging, serialize.contact);
				const matches = filterNewestFirst(ws.contacts, contactFilter(search, leadStatus));
				return envelope(arrayView(matches), paging, serialize.contact);
			},
		},
		{
			method: 'POST',
			url: '/contacts',
			scope: 'customers:write',
			handler: (req, reply, { ws }) => {
				const contact = createContact(ctx, ws, parseContactBody(req.body));
				reply.code(201);
				return serialize.contact(contact);
			},
		},
		{
			method: 'POST',
			url: '/contacts/merge',
			scope: 'customers:write',
			handler: (req, reply, { ws }) => ({
				message: 'contacts merged',
				contact: serialize.contact(mergeContacts(ctx, ws, req.body)),
			}),
		},
		{
			method: 'GET',
			url: '/contacts/:id',
			scope: 'customers:read',
			handler: (req, reply, { ws }) => serialize.contact(findContact(ws, req.params.id)),
		},
		{
			method: 'PATCH',
			url: '/contacts/:id',
			scope: 'customers:write',
			handler: (req, reply, { ws }) => {
				const contact = findContact(ws, req.params.id);
				updateContact(ctx, ws, contact, parseContactBody(req.body));
				return { message: 'contact updated' };
			},
		},
	];
};
