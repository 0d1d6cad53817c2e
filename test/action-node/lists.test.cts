/**
 * Return All costs exactly ceil(N / 500) list requests and never outputs an id
 * twice; the resource locators' list searches run through n8n-core's
 * LoadOptionsContext.
 */
import { listSearch, runNode } from '../support/host/action-node.cjs';
import { api, control, resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { startScriptedServer } from '../support/scripted-server.cjs';
import { useSandbox } from '../support/suite.cjs';

const suite = useSandbox({ seed: 'empty' });

const getAllContacts = async (parameters: Json = { returnAll: true }) =>
	await runNode({ credentials: suite.credentials, parameters: { resource: 'contact', operation: 'getAll', ...parameters } });

/** Return All of contacts against a server that answers each page number from `pages`. */
async function getAllFromPages(pages: Record<string, Json>): Promise<{ ids: unknown[]; requests: number }> {
	const server = await startScriptedServer((request) => ({
		status: 200,
		body: pages[new URL(request.url, 'http://x').searchParams.get('page') ?? ''],
	}));
	try {
		const result = await runNode({
			credentials: { baseUrl: server.baseUrl, apiKey: suite.sb.key },
			parameters: { resource: 'contact', operation: 'getAll', returnAll: true },
		});
		return { ids: result.json.map((contact) => contact.id), requests: server.requests.length };
	} finally {
		await server.close();
	}
}

describe('Return All', () => {
	test('an empty list costs one request and outputs nothing', async () => {
		await resetStats(suite.sb);
		const result = await getAllContacts();
		expect(result.status).toBe('success');
		expect(result.json).toEqual([]);
		expect((await stats(suite.sb)).by_route).toEqual({ 'GET /contacts': 1 });
	});

	test.each([
		[500, 1],
		[1, 2],
		[1234, 5],
	])('%d more contacts: ceil(N / 500) requests, each contact once', async (added) => {
		await control(suite.sb, 'POST', '/bulk', { contacts: added });
		const { total } = await api(suite.sb, 'GET', '/contacts?per_page=1');
		await resetStats(suite.sb);
		const result = await getAllContacts();
		const ids = result.json.map((contact) => contact.id);
		expect(ids).toHaveLength(total);
		expect(new Set(ids).size).toBe(total);
		const counts = await stats(suite.sb);
		expect(counts.by_route).toEqual({ 'GET /contacts': Math.ceil(total / 500) });
		expect(counts.by_status).toEqual({ '200': Math.ceil(total / 500) });
	});

	test('Limit fetches only the pages it needs', async () => {
		await resetStats(suite.sb);
		const result = await getAllContacts({ returnAll: false, limit: 501 });
		expect(result.json).toHaveLength(501);
		expect((await stats(suite.sb)).by_route).toEqual({ 'GET /contacts': 2 });
		const expected = await api(suite.sb, 'GET', '/contacts?per_page=500&page=1');
		expect(result.json.slice(0, 500).map((c) => c.id)).toEqual(expected.data.map((c: Json) => c.id));
	});

	test('records that move between pages while paging are output once', async () => {
		// Page-number paging is not a snapshot (docs/api-assumptions.md, "Lists and pagination"): here records
		// created meanwhile push ct_3 and ct_5 onto the next page as well.
		const pages: Record<string, Json> = {
			'1': { data: [{ id: 'ct_1' }, { id: 'ct_2' }, { id: 'ct_3' }], has_next: true, last_page: 3 },
			'2': { data: [{ id: 'ct_3' }, { id: 'ct_4' }, { id: 'ct_5' }], has_next: true, last_page: 3 },
			'3': { data: [{ id: 'ct_5' }, { id: 'ct_6' }], has_next: false, last_page: 3 },
		};
		const { ids, requests } = await getAllFromPages(pages);
		expect(ids).toEqual(['ct_1', 'ct_2', 'ct_3', 'ct_4', 'ct_5', 'ct_6']);
		expect(requests).toBe(3);
	});

	test('records added while paging extend the list past the last page known', async () => {
		const pages: Record<string, Json> = {
			'1': { data: [{ id: 'ct_1' }], has_next: true, last_page: 2 },
			'2': { data: [{ id: 'ct_2' }], has_next: true, last_page: 3 },
			'3': { data: [{ id: 'ct_3' }], has_next: false, last_page: 3 },
		};
		const { ids, requests } = await getAllFromPages(pages);
		expect(ids).toEqual(['ct_1', 'ct_2', 'ct_3']);
		expect(requests).toBe(3);
	});
});

describe('list searches (resource locators "From list")', () => {
	test('contacts are searched by the API', async () => {
		const ada = await api(suite.sb, 'POST', '/contacts', { name: 'Ada Searchable', email: 'ada@search.example' });
		await resetStats(suite.sb);
		const result = await listSearch('searchContacts', suite.credentials, 'searchable');
		expect(result.results).toEqual([{ name: 'Ada Searchable · ada@search.example', value: ada.id }]);
		expect((await stats(suite.sb)).by_route).toEqual({ 'GET /contacts': 1 });
	});

	test('contact labels carry every searched field, so a match on phone or company shows why', async () => {
		await api(suite.sb, 'POST', '/contacts', { name: 'Bo Phone', phone: '+44 20 7946 0999', company: 'Searchable Ltd' });
		const byCompany = await listSearch('searchContacts', suite.credentials, 'searchable ltd');
		expect(byCompany.results.map((item) => item.name)).toEqual(['Bo Phone · +44 20 7946 0999 · Searchable Ltd']);
	});

	test('contacts page on with the pagination token', async () => {
		const first = await listSearch('searchContacts', suite.credentials);
		expect(first.results).toHaveLength(100);
		expect(first.paginationToken).toBe('2');
		const second = await listSearch('searchContacts', suite.credentials, undefined, first.paginationToken);
		const firstIds = new Set(first.results.map((item) => item.value));
		expect(second.results.some((item) => firstIds.has(item.value))).toBe(false);
	});

	test('conversations and channels, filtered by name, type or id', async () => {
		const channel = await control(suite.sb, 'POST', '/channels', { type: 'telegram', name: 'Support Bot' });
		const conversation = await control(suite.sb, 'POST', '/conversations', { channel_id: channel.id });
		const channels = await listSearch('searchChannels', suite.credentials, 'support');
		expect(channels.results).toContainEqual({ name: 'Support Bot (Telegram)', value: channel.id });
		const conversations = await listSearch('searchConversations', suite.credentials, conversation.id);
		expect(conversations.results.map((item) => item.value)).toEqual([conversation.id]);
		expect(conversations.results[0].name).toContain('Telegram');
	});
});
