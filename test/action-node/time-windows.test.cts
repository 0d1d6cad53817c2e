/**
 * Time windows of Get Many (Message and Contact: Created After / Before;
 * Conversation: Updated Before beside Updated Since): the output is exactly
 * the window's records in the list's order, each once, and only the pages
 * that reach into the window are read: the window's pages, one more (the
 * page that shows where it ends), and the search's pages when newer records
 * fill page 1 (docs/operations.md, "Time windows"). Counted in the sandbox
 * (`GET /stats`) and, page by page, against a list server that records which
 * page numbers were asked for.
 */
import { createServer } from 'http';
import type { AddressInfo } from 'net';

import { runNode } from '../support/host/action-node.cjs';
import { api, clearFaults, control, resetStats, setFaults, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { useSandbox } from '../support/suite.cjs';

const suite = useSandbox({ seed: 'empty' });

const DAY = 24 * 3600_000;
const PER_PAGE = 500;
const DAYS = 10;
const PER_DAY = 2_000;
/** Midnight UTC 12 days ago: day d of the history is [start + d days, start + d + 1 days). */
const start = Math.floor(Date.now() / DAY) * DAY - (DAYS + 2) * DAY;
const dayStart = (d: number) => start + d * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

const counts: Json = {};

/** Every record of a list, newest first, read page by page through the API (not counted: stats are reset after). */
async function everything(path: string): Promise<Json[]> {
	const all: Json[] = [];
	for (let page = 1; ; page++) {
		const body = await api(suite.sb, 'GET', `${path}${path.includes('?') ? '&' : '?'}per_page=500&page=${page}`);
		all.push(...body.data);
		if (!body.has_next) return all;
	}
}

/** Page numbers (per 500) that hold at least one of the window's records, in a list of `all`. */
function pagesHolding(all: Json[], inWindow: (record: Json) => boolean): number[] {
	const pages = new Set<number>();
	all.forEach((record, index) => {
		if (inWindow(record)) pages.add(Math.floor(index / PER_PAGE) + 1);
	});
	return [...pages].sort((a, b) => a - b);
}

const getMany = async (resource: string, parameters: Json, timezone = 'UTC') =>
	await runNode({ credentials: suite.credentials, timezone, parameters: { resource, operation: 'getAll', returnAll: true, ...parameters } });

let messages: Json[];

beforeAll(async () => {
	await control(suite.sb, 'POST', '/channels', { type: 'livechat', name: 'Window chat' });
	for (let d = 0; d < DAYS; d++) {
		await control(suite.sb, 'POST', '/bulk-history', { from: iso(dayStart(d)), to: iso(dayStart(d + 1)), conversations: 200, messages: PER_DAY, seed: d + 1 });
	}
	messages = await everything('/messages');
	expect(messages).toHaveLength(DAYS * PER_DAY);
}, 60_000);

afterAll(() => {
	console.log(JSON.stringify({ suite: 'time windows', ...counts }));
});

describe('Message > Get Many with Created After / Created Before', () => {
	test('a window at the top of the list (the last 2 days): its pages and one more', async () => {
		const after = dayStart(DAYS - 2);
		const inWindow = (m: Json) => Date.parse(m.created_at) >= after;
		const expected = messages.filter(inWindow);
		await resetStats(suite.sb);
		const result = await getMany('message', { filters: { createdAfter: iso(after) } });
		const { requests } = await stats(suite.sb);
		expect(result.status).toBe('success');
		expect(result.json.map((m) => m.id)).toEqual(expected.map((m) => m.id));
		const windowPages = pagesHolding(messages, inWindow).length;
		counts.topWindow = { records: expected.length, windowPages, requests };
		expect(requests).toBeLessThanOrEqual(windowPages + 1);
	});

	test('a window in the middle (days 4 and 5): the search finds its first page in a few probes, then its pages and one more', async () => {
		const [after, before] = [dayStart(4), dayStart(6)];
		const inWindow = (m: Json) => Date.parse(m.created_at) >= after && Date.parse(m.created_at) < before;
		const expected = messages.filter(inWindow);
		await resetStats(suite.sb);
		const result = await getMany('message', { filters: { createdAfter: iso(after), createdBefore: iso(before) } });
		const { requests } = await stats(suite.sb);
		expect(result.json.map((m) => m.id)).toEqual(expected.map((m) => m.id));
		const windowPages = pagesHolding(messages, inWindow).length;
		const lastPage = Math.ceil(messages.length / PER_PAGE);
		// The search: page 1 plus at most the probes of a bisection over the pages.
		const searchBound = 1 + Math.ceil(Math.log2(lastPage));
		counts.middleWindow = { records: expected.length, windowPages, requests, pages: lastPage };
		expect(requests).toBeLessThanOrEqual(windowPages + 1 + searchBound);
		// Reading everything would have cost every page.
		expect(requests).toBeLessThan(lastPage);
	});

	test('Limit inside a window: the window\'s newest records, from the pages they are on', async () => {
		const [after, before] = [dayStart(2), dayStart(7)];
		const expected = messages.filter((m) => Date.parse(m.created_at) >= after && Date.parse(m.created_at) < before).slice(0, 700);
		await resetStats(suite.sb);
		const result = await getMany('message', { returnAll: false, limit: 700, filters: { createdAfter: iso(after), createdBefore: iso(before) } });
		const { requests } = await stats(suite.sb);
		expect(result.json.map((m) => m.id)).toEqual(expected.map((m) => m.id));
		const firstIndex = messages.findIndex((m) => m.id === expected[0].id);
		const holding = Math.floor((firstIndex + 699) / PER_PAGE) - Math.floor(firstIndex / PER_PAGE) + 1;
		counts.limitInWindow = { limit: 700, pagesHolding: holding, requests };
		expect(requests).toBeLessThanOrEqual(holding + 1 + Math.ceil(Math.log2(messages.length / PER_PAGE)));
	});

	test('a window older than every message, and one newer than every message: nothing, in few requests', async () => {
		await resetStats(suite.sb);
		const old = await getMany('message', { filters: { createdBefore: iso(start - DAY) } });
		expect(old.json).toEqual([]);
		const oldRequests = (await stats(suite.sb)).requests;
		await resetStats(suite.sb);
		const future = await getMany('message', { filters: { createdAfter: iso(Date.now() + DAY) } });
		expect(future.json).toEqual([]);
		expect((await stats(suite.sb)).requests).toBe(1);
		counts.emptyWindows = { olderThanAll: oldRequests, newerThanAll: 1 };
		expect(oldRequests).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(messages.length / PER_PAGE)) + 1);
	});

	test('20% of requests answered 500 or dropped without an answer: the same records, each once (the pages are read again)', async () => {
		const [after, before] = [dayStart(2), dayStart(5)];
		const expected = messages.filter((m) => Date.parse(m.created_at) >= after && Date.parse(m.created_at) < before);
		await setFaults(suite.sb, { error_rate: 0.1, error_status: 500, reset_rate: 0.1 });
		let result;
		try {
			result = await getMany('message', { filters: { createdAfter: iso(after), createdBefore: iso(before) } });
		} finally {
			await clearFaults(suite.sb);
		}
		expect(result.status).toBe('success');
		expect(result.json.map((m) => m.id)).toEqual(expected.map((m) => m.id));
	});

	test('a wall-clock date is read in the workflow time zone', async () => {
		// 2 days before the end, at midnight in Tokyo (UTC+9): 15:00 UTC the day before.
		const day = new Date(dayStart(DAYS - 2)).toISOString().slice(0, 10);
		const after = dayStart(DAYS - 2) - 9 * 3600_000;
		const expected = messages.filter((m) => Date.parse(m.created_at) >= after);
		const result = await getMany('message', { filters: { createdAfter: `${day}T00:00:00` } }, 'Asia/Tokyo');
		expect(result.json.map((m) => m.id)).toEqual(expected.map((m) => m.id));
	});

	test('After later than Before fails the item before any request, naming the field', async () => {
		await resetStats(suite.sb);
		const result = await getMany('message', { filters: { createdAfter: iso(dayStart(5)), createdBefore: iso(dayStart(4)) } });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe("Invalid 'Created After': it is later than 'Created Before' [item 0]");
		expect((await stats(suite.sb)).requests).toBe(0);
	});
});

describe('Contact > Get Many and Conversation > Get Many', () => {
	test('contacts created in a window (with a search filter kept): the window\'s contacts', async () => {
		await control(suite.sb, 'POST', '/bulk', { contacts: 3_000 });
		for (let i = 0; i < 20; i++) await control(suite.sb, 'POST', '/contacts', { name: `Window Lead ${i}`, created_at: iso(dayStart(3) + i * 3600_000) });
		const contacts = await everything('/contacts');
		const [after, before] = [dayStart(3), dayStart(3) + 10 * 3600_000];
		const expected = contacts.filter((c) => Date.parse(c.created_at) >= after && Date.parse(c.created_at) < before);
		expect(expected.some((c) => c.name.startsWith('Window Lead'))).toBe(true);
		await resetStats(suite.sb);
		const result = await getMany('contact', { filters: { createdAfter: iso(after), createdBefore: iso(before) } });
		const { requests } = await stats(suite.sb);
		expect(result.json.map((c) => c.id)).toEqual(expected.map((c) => c.id));
		const searched = await getMany('contact', { filters: { createdAfter: iso(after), createdBefore: iso(before), search: 'window lead' } });
		expect(searched.json.map((c) => c.name)).toEqual(expected.filter((c) => c.name.startsWith('Window Lead')).map((c) => c.name));
		counts.contacts = { records: expected.length, requests, pages: Math.ceil(contacts.length / PER_PAGE) };
	});

	test('conversations updated in a window (Updated Since with Updated Before)', async () => {
		const conversations = await everything('/conversations');
		const [since, before] = [dayStart(5), dayStart(7)];
		const expected = conversations.filter((c) => Date.parse(c.updated_at) >= since && Date.parse(c.updated_at) < before);
		await resetStats(suite.sb);
		const result = await getMany('conversation', { filters: { updatedSince: iso(since), updatedBefore: iso(before) } });
		expect(result.json.map((c) => c.id)).toEqual(expected.map((c) => c.id));
		const onlyBefore = await getMany('conversation', { filters: { updatedBefore: iso(before) } });
		expect(onlyBefore.json.map((c) => c.id)).toEqual(conversations.filter((c) => Date.parse(c.updated_at) < before).map((c) => c.id));
	});
});

/** A list server over `records` (newest first) that records the page numbers asked for; `shift(page)` records are inserted before the page is served. */
async function listServer(records: Json[], onPage?: (page: number, list: Json[]) => void) {
	const asked: number[] = [];
	const list = [...records];
	const server = createServer((req, res) => {
		const url = new URL(req.url ?? '', 'http://x');
		const page = Number(url.searchParams.get('page'));
		const perPage = Number(url.searchParams.get('per_page'));
		asked.push(page);
		onPage?.(page, list);
		const data = list.slice((page - 1) * perPage, page * perPage);
		const lastPage = Math.max(1, Math.ceil(list.length / perPage));
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ current_page: page, per_page: perPage, last_page: lastPage, total: list.length, has_next: page < lastPage, data }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/api/public/v1`,
		asked,
		close: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

describe('which pages are read (a list server that records the page numbers)', () => {
	/** 100 pages of 500 messages, one a minute, newest first. */
	const now = Date.parse('2026-06-10T00:00:00Z');
	const records = Array.from({ length: 50_000 }, (_, i) => ({ id: `msg_${String(50_000 - i).padStart(8, '0')}`, created_at: iso(now - i * 60_000) }));
	const positionOf = (ms: number) => records.findIndex((r) => Date.parse(r.created_at) < ms);

	test('only the pages that reach into the window, the page after it, and the search\'s probes', async () => {
		const server = await listServer(records);
		try {
			// The window holds positions 20,000 to 24,999: pages 41 to 50.
			const before = now - 19_999.5 * 60_000;
			const after = now - 24_999.5 * 60_000;
			const result = await runNode({
				credentials: { baseUrl: server.baseUrl, apiKey: suite.sb.key },
				timezone: 'UTC',
				parameters: { resource: 'message', operation: 'getAll', returnAll: true, filters: { createdAfter: iso(after), createdBefore: iso(before) } },
			});
			expect(result.json).toHaveLength(5_000);
			expect(result.json[0].id).toBe(records[positionOf(before)].id);
			const reading = Array.from({ length: 11 }, (_, i) => 41 + i);
			const probes = server.asked.filter((page) => page !== 1 && !reading.includes(page));
			counts.pageNumbers = { asked: server.asked.join(','), probes: probes.length, requests: server.asked.length };
			// Page 1 first; every page at most once.
			expect(server.asked[0]).toBe(1);
			expect(new Set(server.asked).size).toBe(server.asked.length);
			// 41..50 hold the window and 51 shows where it ends: all read.
			expect(reading.every((page) => server.asked.includes(page))).toBe(true);
			// Evenly spread records: the interpolated probe lands on page 41 (read once, for the search and the window);
			// its first record is the window's, so one more probe (page 40) tells that page 41 is the first.
			expect(probes).toEqual([40]);
		} finally {
			await server.close();
		}
	});

	test('records created while it reads push older ones down: each is output once, none is missed', async () => {
		let added = 0;
		const server = await listServer(records, (page, list) => {
			// Before each page from the 3rd on, 7 new messages arrive at the top.
			if (page >= 3) {
				for (let i = 0; i < 7; i++) list.unshift({ id: `msg_new_${added++}`, created_at: iso(now + 60_000 + added) });
			}
		});
		try {
			const after = now - 2_999.5 * 60_000;
			const result = await runNode({
				credentials: { baseUrl: server.baseUrl, apiKey: suite.sb.key },
				timezone: 'UTC',
				parameters: { resource: 'message', operation: 'getAll', returnAll: true, filters: { createdAfter: iso(after), createdBefore: iso(now + 1) } },
			});
			const ids = result.json.map((m) => m.id);
			expect(ids).toEqual(records.slice(0, 3_000).map((r) => r.id));
			counts.shiftedPages = { added, output: ids.length, requests: server.asked.length };
		} finally {
			await server.close();
		}
	});
});
