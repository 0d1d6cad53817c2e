'use strict';
// Small body/query validators. Each throws a 400 HttpError with a short
// lowercase message; none of them can throw anything else on odd input.

const { badRequest } = require('./errors');

/** Length in Unicode code points (how the API counts), not UTF-16 units. */
function codePointLength(text) {
	// Spreading iterates by code point, so surrogate pairs count once.
	return [...text].length;
}

/** @returns {Record<string, unknown>} */
function requireObject(body) {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		throw badRequest('request body must be a json object');
	}
	return /** @type {Record<string, unknown>} */ (body);
}

/**
 * Optional fields: `null` counts as absent (decision: clients that serialise
 * unset fields as null are not punished).
 */
function isAbsent(value) {
	return value === undefined || value === null;
}

/**
 * @param {Record<string, unknown>} body
 * @param {string} field
 * @param {{ max?: number, min?: number }} [limits] code points
 * @returns {string | undefined}
 */
function optionalString(body, field, limits = {}) {
	const value = body[field];
	if (isAbsent(value)) return undefined;
	if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
	checkLength(value, field, limits);
	return value;
}

/** @param {Record<string, unknown>} body @param {string} field @param {{ max?: number, min?: number }} [limits] */
function requiredString(body, field, limits = {}) {
	const value = body[field];
	if (isAbsent(value)) throw badRequest(`${field} is required`);
	if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
	checkLength(value, field, { min: 1, ...limits });
	return value;
}

function checkLength(value, field, { min = 0, max = Infinity }) {
	// value.length >= code points, so the cheap check settles most cases.
	if (value.length < min || value.length > max) {
		const points = codePointLength(value);
		if (points < min) throw badRequest(min === 1 ? `${field} must not be empty` : `${field} is too short`);
		if (points > max) throw badRequest(`${field} must be at most ${max} characters`);
	}
}

/**
 * Optional id reference: absent, null and "" all mean "not given" (an empty id
 * can never name a record).
 * @returns {string | undefined}
 */
function optionalId(body, field) {
	const value = body[field];
	if (isAbsent(value) || value === '') return undefined;
	if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
	return value;
}

/** @returns {boolean | undefined} */
function optionalBoolean(body, field) {
	const value = body[field];
	if (isAbsent(value)) return undefined;
	if (typeof value !== 'boolean') throw badRequest(`${field} must be a boolean`);
	return value;
}

/**
 * @param {Record<string, unknown>} body
 * @param {string} field
 * @param {number} min @param {number} max
 */
function requiredNumberInRange(body, field, min, max) {
	const value = body[field];
	if (isAbsent(value)) throw badRequest(`${field} is required`);
	if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest(`${field} must be a number`);
	if (value < min || value > max) throw badRequest(`${field} must be between ${min} and ${max}`);
	return value;
}

/**
 * A query parameter that must be a decimal integer string.
 * @param {unknown} raw @param {string} name
 * @returns {number | undefined}
 */
function queryInteger(raw, name) {
	if (raw === undefined) return undefined;
	if (typeof raw !== 'string') throw badRequest(`${name} must be given once`);
	if (!/^[+-]?\d{1,16}$/.test(raw)) throw badRequest(`${name} must be an integer`);
	const value = Number(raw);
	if (!Number.isSafeInteger(value)) throw badRequest(`${name} must be an integer`);
	return value;
}

/** A query parameter that must be a single string. @returns {string | undefined} */
function queryString(raw, name) {
	if (raw === undefined) return undefined;
	if (typeof raw !== 'string') throw badRequest(`${name} must be given once`);
	return raw;
}

module.exports = {
	codePointLength,
	requireObject,
	isAbsent,
	optionalString,
	requiredString,
	optionalId,
	optionalBoolean,
	requiredNumberInRange,
	queryInteger,
	queryString,
};
