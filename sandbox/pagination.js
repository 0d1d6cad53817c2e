'use strict';
// The pagination envelope of every list endpoint: page, per_page, has_next.

const { badRequest } = require('./errors');
const { queryInteger } = require('./validate');

const DEFAULT_PER_PAGE = 20;
const MAX_PER_PAGE = 500;

/**
 * @param {Record<string, unknown>} query
 * @returns {{ page: number, perPage: number }}
 */
function parsePaging(query) {
	const page = queryInteger(query.page, 'page') ?? 1;
	const perPage = queryInteger(query.per_page, 'per_page') ?? DEFAULT_PER_PAGE;
	if (page < 1) throw badRequest('page must be at least 1');
	if (perPage < 1 || perPage > MAX_PER_PAGE) throw badRequest(`per_page must be between 1 and ${MAX_PER_PAGE}`);
	return { page, perPage };
}

/**
 * Builds the envelope over a newest-first view.
 * @template T, R
 * @param {{ total: number, at: (i: number) => T }} view item i newest first
 * @param {{ page: number, perPage: number }} paging
 * @param {(item: T) => R} serialize
 */
function envelope(view, { page, perPage }, serialize) {
	const total = view.total;
	const lastPage = Math.max(1, Math.ceil(total / perPage));
	const offset = (page - 1) * perPage;
	const end = Math.min(total, offset + perPage);
	const data = [];
	for (let i = offset; i < end; i++) data.push(serialize(view.at(i)));
	return {
		current_page: page,
		from: data.length > 0 ? offset + 1 : null,
		to: data.length > 0 ? offset + data.length : null,
		per_page: perPage,
		last_page: lastPage,
		total,
		has_next: page < lastPage,
		data,
	};
}

/**
 * View of a SortedList, newest first, optionally only the `count` newest.
 * @param {import('./collection').SortedList<any>} list
 */
function listView(list, count = list.length) {
	return { total: count, at: (i) => list.newest(i) };
}

/** View of an array that is already newest first. @param {any[]} array */
function arrayView(array) {
	return { total: array.length, at: (i) => array[i] };
}

/** Newest-first array of the records of `list` that pass `keep` (linear scan). */
function filterNewestFirst(list, keep) {
	const out = [];
	const items = list.items;
	for (let i = items.length - 1; i >= 0; i--) if (keep(items[i])) out.push(items[i]);
	return out;
}

module.exports = { parsePaging, envelope, listView, arrayView, filterNewestFirst, DEFAULT_PER_PAGE, MAX_PER_PAGE };
