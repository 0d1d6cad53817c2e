import type { IDataObject } from 'n8n-workflow';

import type { ListPage } from './pagination';

/**
 * A list page read from its bytes, one record at a time. Parsed whole, a
 * page of 500 records is one string of a few hundred kilobytes, which V8
 * allocates among its long-lived objects: reading thousands of pages then
 * leaves hundreds of megabytes to a full garbage collection. Parsed record
 * by record, every string is small and dies young, so a reader that keeps
 * nothing of a page (the report) keeps its memory flat.
 *
 * The envelope (docs/api-assumptions.md, "Lists and pagination") is a JSON
 * object whose `data` member is an array of objects; the scan below finds
 * each element's bytes by brackets, outside strings.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The end (exclusive) of the JSON string starting at `start` (a quote). */
function stringEnd(bytes: Buffer, start: number): number {
	for (let index = start + 1; index < bytes.length; index++) {
		const byte = bytes[index];
		if (byte === BACKSLASH) index++;
		else if (byte === QUOTE) return index + 1;
	}
	return bytes.length;
}

/** The end (exclusive) of the JSON value (object or array) starting at `start`. */
function valueEnd(bytes: Buffer, start: number): number {
	let depth = 0;
	for (let index = start; index < bytes.length; index++) {
		const byte = bytes[index];
		if (byte === QUOTE) index = stringEnd(bytes, index) - 1;
		else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
		else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
			depth--;
			if (depth === 0) return index + 1;
		}
	}
	return bytes.length;
}

/** Where the top-level `"data"` member's array starts and ends, if it is an array. */
function dataArray(bytes: Buffer): { start: number; end: number } | undefined {
	let depth = 0;
	for (let index = 0; index < bytes.length; index++) {
		const byte = bytes[index];
		if (byte === QUOTE) {
			const end = stringEnd(bytes, index);
			if (depth === 1 && bytes.toString('utf8', index, end) === '"data"') {
				let at = end;
				while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x3a || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09)) at++;
				if (bytes[at] !== OPEN_BRACKET) return undefined;
				return { start: at, end: valueEnd(bytes, at) };
			}
			index = end - 1;
		} else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
		else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
	}
	return undefined;
}

/** A list page from what the transport answered with `rawBody`: bytes, or (another n8n) a string or the parsed object. */
export function parseListPage<T extends IDataObject = IDataObject>(body: unknown): ListPage<T> {
	if (!Buffer.isBuffer(body)) {
		return (typeof body === 'string' ? JSON.parse(body) : body) as ListPage<T>;
	}
	const array = dataArray(body);
	if (!array) return JSON.parse(body.toString('utf8')) as ListPage<T>;
	const envelope = JSON.parse(`${body.toString('utf8', 0, array.start)}[]${body.toString('utf8', array.end)}`) as ListPage<T>;
	const data: T[] = [];
	let index = array.start + 1;
	while (index < array.end - 1) {
		const byte = body[index];
		if (byte === OPEN_BRACE) {
			const end = valueEnd(body, index);
			data.push(JSON.parse(body.toString('utf8', index, end)) as T);
			index = end;
		} else index++;
	}
	envelope.data = data;
	return envelope;
}
