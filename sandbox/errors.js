'use strict';
// The one error type handlers throw. The error handler turns it into the
// API's error body `{"error": "<short lowercase english>", ...extra}`.

class HttpError extends Error {
	/**
	 * @param {number} status
	 * @param {string} message short lowercase English, becomes `error`
	 * @param {Record<string, unknown>} [extra] additional body fields (e.g. required_scope)
	 * @param {Record<string, string>} [headers]
	 */
	constructor(status, message, extra, headers) {
		super(message);
		this.statusCode = status;
		this.extra = extra || null;
		this.headers = headers || null;
	}
}

const badRequest = (message) => new HttpError(400, message);
const notFound = (message = 'not found') => new HttpError(404, message);

/**
 * The record, or a 404 (records of another workspace are as unknown as missing ones).
 * @template T @param {T | undefined} record @param {string} message @returns {T}
 */
function orNotFound(record, message) {
	if (!record) throw notFound(message);
	return record;
}

module.exports = { HttpError, badRequest, notFound, orNotFound };
