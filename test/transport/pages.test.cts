/**
 * A list page parsed record by record from its bytes (nodes/shared/transport/pages.ts,
 * the time windows' and the report's reader): the same records and envelope
 * as JSON.parse of the whole page, whatever the records hold (brackets and
 * quotes inside strings, escapes, non-ASCII text, nested values, whitespace),
 * and the other shapes n8n may hand over (a string, an object).
 */
import { parseListPage } from '../../nodes/shared/transport/pages';

const tricky = [
	{ id: 'msg_1', content: 'braces } { and brackets ] [ in text', nested: { a: [1, { b: '}' }] } },
	{ id: 'msg_2', content: 'a quote \\" and a backslash \\\\ at the end\\\\', client_request_id: 'n8n_"x"' },
	{ id: 'msg_3', content: 'Grüße, ★★★★☆, 日本語, emoji 🚀', from_user_id: null, from_customer: true },
	{ id: 'msg_4', content: '', list: [], object: {} },
];

test.each([
	['compact, data first', JSON.stringify({ data: tricky, has_next: true, last_page: 3, current_page: 1, total: 1200 })],
	['compact, data last', JSON.stringify({ current_page: 2, per_page: 500, has_next: false, data: tricky })],
	['pretty-printed', JSON.stringify({ current_page: 1, data: tricky, has_next: false }, null, 2)],
	['a string "data" inside a record', JSON.stringify({ data: [{ id: 'x', content: '"data":[' }], has_next: false })],
	['empty data', JSON.stringify({ data: [], has_next: false, last_page: 1 })],
])('%s: the same as parsing the whole page', (_label, text) => {
	expect(parseListPage(Buffer.from(text, 'utf8'))).toEqual(JSON.parse(text));
});

test('a string or an object (another n8n may parse the body itself) is taken as it is', () => {
	const page = { data: tricky, has_next: false };
	expect(parseListPage(JSON.stringify(page))).toEqual(page);
	expect(parseListPage(page)).toBe(page);
});
