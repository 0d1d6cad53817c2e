'use strict';
// Every error leaves the sandbox as `{"error": "<short lowercase english>"}`,
// never as Fastify's `{statusCode, error, message}`: this maps framework and
// plugin errors to the API's body and status.

const { HttpError } = require('./errors');

/** Fastify / @fastify/multipart error codes -> [status, message]. */
const FRAMEWORK_ERRORS = {
	FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid json body'],
	FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid json body'],
	FST_ERR_CTP_BODY_TOO_LARGE: [413, 'request body too large'],
	FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported content type'],
	FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid content length'],
	FST_ERR_BAD_URL: [400, 'invalid url'],
	FST_ERR_INVALID_URL: [400, 'invalid url'],
	FST_ERR_ASYNC_CONSTRAINT: [400, 'invalid request'],
	FST_REQ_FILE_TOO_LARGE: [413, 'file too large'],
	FST_PARTS_LIMIT: [413, 'too many multipart parts'],
	FST_FILES_LIMIT: [400, 'only one file is accepted'],
	FST_FIELDS_LIMIT: [413, 'too many multipart fields'],
	FST_PROTO_VIOLATION: [400, 'invalid multipart field name'],
	FST_INVALID_MULTIPART_CONTENT_TYPE: [400, 'request must be multipart/form-data'],
	FST_INVALID_JSON_FIELD_ERROR: [400, 'invalid multipart field'],
	FST_MP_PREMATURE_CLOSE: [400, 'incomplete multipart body'],
};

const STATUS_MESSAGES = {
	400: 'bad request',
	404: 'not found',
	405: 'method not allowed',
	408: 'request timeout',
	413: 'request body too large',
	414: 'uri too long',
	415: 'unsupported content type',
	429: 'rate limit exceeded',
	431: 'request header fields too large',
	500: 'internal error',
	502: 'bad gateway',
	503: 'service unavailable',
	504: 'gateway timeout',
};

/**
 * @param {import('fastify').FastifyReply} reply
 * @param {number} status @param {string} message
 * @param {Record<string, unknown> | null} [extra] @param {Record<string, string> | null} [headers]
 */
function sendError(reply, status, message, extra, headers) {
	if (headers) reply.headers(headers);
	return reply.code(status).type('application/json; charset=utf-8').send({ error: message, ...(extra || {}) });
}

/** Fastify error handler: HttpError as thrown, known framework errors mapped, the rest 500. */
function errorHandler(error, request, reply) {
	if (error instanceof HttpError) return sendError(reply, error.statusCode, error.message, error.extra, error.headers);
	const known = FRAMEWORK_ERRORS[error && error.code];
	if (known) return sendError(reply, known[0], known[1]);
	const status = error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
	return sendError(reply, status, STATUS_MESSAGES[status] || (status >= 500 ? 'internal error' : 'bad request'));
}

/** Raw reply for malformed HTTP, written straight to the socket (no request object exists). */
function clientErrorHandler(error, socket) {
	if (!socket.writable) {
		socket.destroy();
		return;
	}
	const status = error && error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error && error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
	const body = JSON.stringify({ error: STATUS_MESSAGES[status] });
	socket.end(
		`HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : status === 408 ? 'Request Timeout' : 'Request Header Fields Too Large'}\r\n` +
			`Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
	);
}

module.exports = { sendError, errorHandler, clientErrorHandler, STATUS_MESSAGES };
