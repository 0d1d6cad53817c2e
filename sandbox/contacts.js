'use strict';
// Contact rules: field validation, search, create/update/merge. Events are emitted by the callers' `emit`.

const { badRequest } = require('./errors');
const { requireObject, requiredString, optionalString } = require('./validate');
const { LEAD_STATUSES } = require('./store');
const serialize = require('./serialize');

/** Optional string fields and their limits in code points. */
const OPTIONAL_FIELDS = {
	phone: 50,
	email: 200,
	company: 200,
	job_title: 200,
	lead_status: Infinity,
	lead_source: Infinity,
	address: 500,
	city: 100,
	country: 100,
	comment: Infinity,
};
const FIELD_NAMES = Object.keys(OPTIONAL_FIELDS);
const NAME_MAX = 200;

/**
 * Validates a create/update body. Returns the name (trimmed) and only the
 * optional fields that were given.
 * @returns {{ name: string, fields: Record<string, string> }}
 */
function parseContactBody(rawBody) {
	const body = requireObject(rawBody);
	const name = requiredString(body, 'name').trim();
	if (name.length === 0) throw badRequest('name must not be empty');
	// Re-check after trimming (a name is 1..200 characters after trim).
	requiredString({ name }, 'name', { max: NAME_MAX });
	/** @type {Record<string, string>} */
	const fields = {};
	for (const field of FIELD_NAMES) {
		const value = optionalString(body, field, { max: OPTIONAL_FIELDS[field] });
		if (value !== undefined) fields[field] = value;
	}
	if (fields.lead_status !== undefined && fields.lead_status !== '' && !LEAD_STATUSES.includes(fields.lead_status)) {
		throw badRequest(`lead_status must be one of ${LEAD_STATUSES.join(', ')} or empty`);
	}
	return { name, fields };
}

/**
 * Lower-cased / digits-only search keys, computed at the first search after a
 * write (seeding 100k contacts stays cheap; later scans stay cheap too).
 */
function indexForSearch(contact) {
	contact._name = contact.name.toLowerCase();
	contact._email = contact.email.toLowerCase();
	contact._company = contact.company.toLowerCase();
	contact._digits = digitsOnly(contact.phone);
}

/** @param {string} text */
function digitsOnly(text) {
	let out = '';
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code >= 48 && code <= 57) out += text[i];
	}
	return out;
}

/**
 * Builds a stored contact record. All fields are set in one literal so every
 * record shares one object shape (cheaper at 100k records). Times are kept as
 * epoch ms only; serialize.js formats them.
 * @param {{ ids: any }} ctx @param {string} appId
 * @param {string} name @param {Record<string, string>} fields @param {number} at
 */
function buildContact(ctx, appId, name, fields, at) {
	const value = (field) => (fields[field] === undefined ? '' : fields[field]);
	const contact = {
		id: ctx.ids.next('ct_'),
		app_id: appId,
		name,
		phone: value('phone'),
		email: value('email'),
		company: value('company'),
		job_title: value('job_title'),
		lead_status: value('lead_status'),
		lead_source: value('lead_source'),
		address: value('address'),
		city: value('city'),
		country: value('country'),
		comment: value('comment'),
		_c: at,
		_u: at,
		/** @type {string | null} null until indexForSearch */
		_name: null,
		_email: '',
		_company: '',
		_digits: '',
	};
	return contact;
}

/**
 * @param {any} ctx sandbox context
 * @param {import('./store').Workspace} ws
 * @param {{ name: string, fields: Record<string, string> }} input
 */
function createContact(ctx, ws, { name, fields }) {
	const contact = buildContact(ctx, ws.app_id, name, fields, ctx.clock.now());
	ws.contacts.add(contact);
	ctx.events.emit(ws, 'contact.created', serialize.contact(contact));
	return contact;
}

/** A write: new updated_at, search keys recomputed on demand. @param {any} contact @param {number} at */
function touch(contact, at) {
	contact._u = at;
	contact._name = null;
}

function updateContact(ctx, ws, contact, { name, fields }) {
	contact.name = name;
	for (const field of FIELD_NAMES) if (fields[field] !== undefined) contact[field] = fields[field];
	touch(contact, ctx.clock.now());
	ctx.events.emit(ws, 'contact.updated', serialize.contact(contact));
}

/**
 * Merge: the primary keeps its non-empty fields and fills its empty ones
 * from the secondary; the secondary's conversations move; the secondary goes.
 */
function mergeContacts(ctx, ws, rawBody) {
	const body = requireObject(rawBody);
	const ids = ['primary_id', 'secondary_id'].map((field) => {
		const value = body[field];
		if (value === undefined || value === null || value === '') throw badRequest(`${field} is required`);
		if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
		return value;
	});
	if (ids[0] === ids[1]) throw badRequest('primary_id and secondary_id must differ');
	const [primary, secondary] = ids.map((id, i) => {
		const found = ws.contacts.get(id);
		if (!found) throw badRequest(`${i === 0 ? 'primary_id' : 'secondary_id'} not found`);
		return found;
	});
	for (const field of FIELD_NAMES) {
		if (primary[field] === '' && secondary[field] !== '') primary[field] = secondary[field];
	}
	// A linear scan: merges are rare, and conversations carry no customer index.
	for (const conversation of ws.conversations.items) {
		if (conversation.customer_id === secondary.id) conversation.customer_id = primary.id;
	}
	ws.contacts.delete(secondary);
	touch(primary, ctx.clock.now());
	ctx.events.emit(ws, 'contact.updated', serialize.contact(primary));
	return primary;
}

/**
 * Search: case-insensitive substring on name, email and company; phone
 * compared digits-only on both sides, only when the query has digits.
 * @param {string} search trimmed query @param {string | undefined} leadStatus
 * @returns {(contact: any) => boolean}
 */
function contactFilter(search, leadStatus) {
	const needle = search.toLowerCase();
	const digits = search.replace(/\D/g, '');
	/** @param {any} c */
	const matchesSearch = (c) => {
		if (needle === '') return true;
		if (c._name === null) indexForSearch(c);
		return c._name.includes(needle) || c._email.includes(needle) || c._company.includes(needle) || (digits !== '' && c._digits.includes(digits));
	};
	if (leadStatus === undefined) return matchesSearch;
	return (c) => c.lead_status === leadStatus && matchesSearch(c);
}

module.exports = { parseContactBody, buildContact, createContact, updateContact, mergeContacts, contactFilter };
