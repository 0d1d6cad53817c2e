/**
 * Contact > Create or Update at scale: Find Contacts By (Automatic, Read All
 * Contacts First, Search Each Row) gives the same answer for the same rows and
 * costs the requests docs/operations.md states; a contact created by someone
 * else between the read and the write is found; two workflows that create the
 * same people at the same moment leave one contact per person; Empty Values.
 * Each test works in a workspace of its own, so the workspace's size is what
 * the test made it.
 */
import { runNode } from '../support/host/action-node.cjs';
import type { Credentials, RunResult } from '../support/host/action-node.cjs';
import { allContacts, api, clearFaults, control, newWorkspace, resetStats, setFaults, startProxy, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { useSandbox } from '../support/suite.cjs';

const suite = useSandbox({ seed: 'empty' });

interface Workspace extends Credentials {
	app_id: string;
}

const workspace = async (): Promise<Workspace> => await newWorkspace(suite.sb);

const call = async (ws: Credentials, method: string, path: string, body?: unknown): Promise<Json> => await api(suite.sb, method, path, body, ws.apiKey);
const contactsOf = async (ws: Credentials): Promise<Json[]> => await allContacts(suite.sb, ws.apiKey);

async function seed(ws: Credentials, contacts: Json[]): Promise<Json[]> {
	const created: Json[] = [];
	for (const contact of contacts) created.push(await call(ws, 'POST', '/contacts', contact));
	return created;
}

/** n in letters: the sandbox's search also compares a search text's digits with phone numbers, so emails carry none. */
const letters = (n: number): string => [...n.toString(26)].map((digit) => String.fromCharCode(97 + parseInt(digit, 26))).join('');

/** Person n: a name, an email and a Berlin phone number of its own. */
const person = (n: number, company = 'Old'): Json => ({ name: `Person ${n}`, email: `p${letters(n)}@example.com`, phone: `+49 30 ${1_000_000 + n}`, company });

const parameters = (strategy: string, matchBy = 'emailThenPhone', options: Json = {}): Json => ({
	resource: 'contact',
	operation: 'createOrUpdate',
	matchBy,
	email: '={{ $json.email ?? "" }}',
	phone: '={{ $json.phone ?? "" }}',
	name: '={{ $json.name ?? "" }}',
	additionalFields: { company: '={{ $json.company ?? "" }}' },
	options: { defaultCountryCode: '49', strategy, ...options },
});

const run = async (ws: Credentials, strategy: string, rows: Json[], extra: { matchBy?: string; options?: Json; nodeId?: string; settings?: Json } = {}): Promise<RunResult> =>
	await runNode({
		credentials: ws,
		parameters: parameters(strategy, extra.matchBy, extra.options),
		items: rows.map((json) => ({ json })) as never,
		settings: { ...(extra.nodeId && { id: extra.nodeId }), ...extra.settings },
	});

const upsertOf = (json: Json) => json._upsert as { action: string; changedFields: string[]; matchedBy: string | null; merged?: string[] };
const actions = (result: RunResult) => result.json.map((json) => upsertOf(json).action);
const count = (values: string[]) => values.reduce<Record<string, number>>((all, value) => ({ ...all, [value]: (all[value] ?? 0) + 1 }), {});

/** The workspace's contacts as compared between strategies: no ids, no times. */
const comparable = (contacts: Json[]) =>
	contacts.map(({ name, email, phone, company }) => ({ name, email, phone, company })).sort((a, b) => `${a.email}|${a.phone}|${a.name}`.localeCompare(`${b.email}|${b.phone}|${b.name}`));

/** Contacts with more than one record for one email (compared trimmed, case-insensitive). */
function duplicatesByEmail(contacts: Json[]): number {
	const seen = count(contacts.filter((contact) => contact.email).map((contact) => String(contact.email).trim().toLowerCase()));
	return Object.values(seen).reduce((sum, n) => sum + n - 1, 0);
}

describe('the same rows give the same answer with either strategy', () => {
	/** A sync with every case of the rules: other writings, changes, empty cells, new people met twice, several matches, a shared switchboard number. */
	const existing = [
		...Array.from({ length: 24 }, (_, n) => person(n)),
		{ name: 'Twice Older', email: 'twice@example.com', company: 'A' },
		{ name: 'Twice Newer', email: 'TWICE@example.com', company: 'B' },
		{ name: 'Switchboard', email: 'first@example.com', phone: '+49 89 5550000' },
		{ name: 'No Email', phone: '+49 89 5550001' },
	];
	const rows: Json[] = [
		// Unchanged, in other writings.
		...Array.from({ length: 6 }, (_, n) => ({ ...person(n), email: `  ${String(person(n).email).toUpperCase()} ` })),
		...Array.from({ length: 4 }, (_, n) => ({ name: `Person ${6 + n}`, phone: `(030) ${1_000_006 + n}` })),
		{ name: 'Person 10', phone: '+49 030 1000010' },
		{ name: 'Person 11', phone: '(+49) (0)30 1000011' },
		// Changed.
		...Array.from({ length: 5 }, (_, n) => person(12 + n, 'New')),
		// Empty cells: kept.
		...Array.from({ length: 3 }, (_, n) => ({ ...person(17 + n), company: '' })),
		// New people, one of them again in other writings (its second row changes the company).
		...Array.from({ length: 4 }, (_, n) => person(100 + n, 'Fresh')),
		{ name: 'Person 100', phone: '(030) 1000100', company: 'Changed' },
		{ ...person(101, 'Fresh'), email: String(person(101).email).replace('p', 'P') },
		// Several match: the most recently updated one.
		{ name: 'Twice', email: 'twice@example.com', company: 'C' },
		// A colleague on the switchboard is another person; a contact without email found by phone gets the email.
		{ name: 'Colleague', email: 'second@example.com', phone: '0049 89 5550000' },
		{ name: 'Found By Phone', email: 'third@example.com', phone: '089 5550001' },
	];

	test.each([['Email Then Phone', 'emailThenPhone']])('%s: Search Each Row and Read All Contacts First', async (_label, matchBy) => {
		const outcomes: Record<string, { result: RunResult; contacts: Json[]; requests: number }> = {};
		for (const strategy of ['searchEachRow', 'readAll']) {
			const ws = await workspace();
			await seed(ws, existing);
			await resetStats(suite.sb);
			const result = await run(ws, strategy, rows, { matchBy });
			const requests = (await stats(suite.sb)).requests;
			outcomes[strategy] = { result, contacts: await contactsOf(ws), requests };
		}
		const { searchEachRow, readAll } = outcomes;
		console.log(`create-or-update strategies, ${rows.length} rows into ${existing.length} contacts: ${JSON.stringify({ actions: count(actions(readAll.result)), requests: { searchEachRow: searchEachRow.requests, readAll: readAll.requests } })}`);
		expect([searchEachRow.result.status, readAll.result.status]).toEqual(['success', 'success']);
		expect(readAll.result.json.map(upsertOf)).toEqual(searchEachRow.result.json.map(upsertOf));
		expect(readAll.result.items.map((item) => item.pairedItem)).toEqual(rows.map((_row, item) => ({ item })));
		const fields = (json: Json) => ({ name: json.name, email: json.email, phone: json.phone, company: json.company });
		expect(readAll.result.json.map(fields)).toEqual(searchEachRow.result.json.map(fields));
		expect(comparable(readAll.contacts)).toEqual(comparable(searchEachRow.contacts));
		expect(count(actions(readAll.result))).toEqual({ unchanged: 16, updated: 8, created: 5 });
		expect(readAll.contacts).toHaveLength(existing.length + 5);
		// The several-match row updated the most recently updated one; the empty cells kept the company.
		expect(readAll.contacts.find((contact) => contact.email === 'TWICE@example.com')?.company).toBe('C');
		expect(readAll.contacts.filter((contact) => ['Person 17', 'Person 18', 'Person 19'].includes(String(contact.name))).map((contact) => contact.company)).toEqual(['Old', 'Old', 'Old']);
	});
});

describe('what each strategy costs, in requests', () => {
	// Match By Email: 30 contacts; 20 rows unchanged, 5 changed, 5 new, 2 of the new again in another case.
	const rowsFor = () => [
		...Array.from({ length: 20 }, (_, n) => person(n)),
		...Array.from({ length: 5 }, (_, n) => person(20 + n, 'New')),
		...Array.from({ length: 5 }, (_, n) => person(200 + n, 'Fresh')),
		{ ...person(200, 'Fresh'), email: String(person(200).email).toUpperCase() },
		{ ...person(201, 'Fresh'), email: ` ${String(person(201).email)}` },
	];

	const measure = async (strategy: string, rows: Json[], contacts: Json[]) => {
		const ws = await workspace();
		await seed(ws, contacts);
		await resetStats(suite.sb);
		const result = await run(ws, strategy, rows, { matchBy: 'email' });
		const counted = await stats(suite.sb);
		return { result, requests: counted.requests, routes: counted.by_route, contacts: await contactsOf(ws) };
	};

	test('Read All Contacts First: 1 page, 2 per new row, 1 per changed row, 1 page of new contacts after the rows', async () => {
		const { result, requests, routes, contacts } = await measure('readAll', rowsFor(), Array.from({ length: 30 }, (_, n) => person(n)));
		expect(count(actions(result))).toEqual({ unchanged: 22, updated: 5, created: 5 });
		expect(routes).toEqual({ 'GET /contacts': 1 + 5 + 1, 'POST /contacts': 5, 'PATCH /contacts/{id}': 5 });
		expect(requests).toBe(17);
		expect(duplicatesByEmail(contacts)).toBe(0);
	});

	test('Search Each Row: a search per row, the writes, 1 page of new contacts after the rows', async () => {
		const { result, routes } = await measure('searchEachRow', rowsFor(), Array.from({ length: 30 }, (_, n) => person(n)));
		expect(count(actions(result))).toEqual({ unchanged: 22, updated: 5, created: 5 });
		expect(routes).toEqual({ 'GET /contacts': 32 + 1, 'POST /contacts': 5, 'PATCH /contacts/{id}': 5 });
	});

	test('Automatic reads all from 10 rows when the workspace has at most 250 contacts per row', async () => {
		const { result, routes } = await measure('auto', rowsFor(), Array.from({ length: 30 }, (_, n) => person(n)));
		expect(count(actions(result))).toEqual({ unchanged: 22, updated: 5, created: 5 });
		expect(routes['GET /contacts']).toBe(1 + 5 + 1);
	});

	test('Automatic searches each row below 10 rows, without asking how many contacts there are', async () => {
		const rows = [person(0), person(1, 'New'), person(300), ...Array.from({ length: 6 }, (_, n) => person(2 + n))];
		const { result, routes } = await measure('auto', rows, Array.from({ length: 8 }, (_, n) => person(n)));
		expect(count(actions(result))).toEqual({ unchanged: 7, updated: 1, created: 1 });
		expect(routes).toEqual({ 'GET /contacts': 9 + 1, 'POST /contacts': 1, 'PATCH /contacts/{id}': 1 });
	});

	test('Automatic searches each row when the workspace has more than 250 contacts per row: one page read to learn it', async () => {
		const ws = await workspace();
		await control(suite.sb, 'POST', '/bulk', { app_id: ws.app_id, contacts: 3_001 });
		await seed(ws, Array.from({ length: 12 }, (_, n) => person(n)));
		await resetStats(suite.sb);
		const result = await run(ws, 'auto', Array.from({ length: 12 }, (_, n) => person(n)), { matchBy: 'email' });
		expect(actions(result)).toEqual(Array.from({ length: 12 }, () => 'unchanged'));
		// 3,013 contacts are 7 pages, more than half of 12 rows.
		expect((await stats(suite.sb)).by_route).toEqual({ 'GET /contacts': 1 + 12 });
	});
});

describe('between the read and the write', () => {
	const isList = (method: string, url: URL) => method === 'GET' && url.pathname.endsWith('/contacts') && !url.searchParams.has('search');

	test.each([['Read All Contacts First', 'readAll'], ['Automatic', 'auto']])('%s: a contact another writer created after the read is found, not created again', async (_label, strategy) => {
		const ws = await workspace();
		await seed(ws, Array.from({ length: 12 }, (_, n) => person(n)));
		let injected = 0;
		const proxy = await startProxy(suite.sb, async (method, url) => {
			// Right after the node's read of all contacts: someone else creates person 500.
			if (isList(method, url) && injected++ === 0) await call(ws, 'POST', '/contacts', { ...person(500), company: 'Theirs' });
		});
		try {
			const rows = [...Array.from({ length: 12 }, (_, n) => person(n)), person(500, 'Ours')];
			const result = await run({ baseUrl: proxy.baseUrl, apiKey: ws.apiKey }, strategy, rows, { matchBy: 'email' });
			expect(injected).toBeGreaterThan(0);
			expect(upsertOf(result.json[12])).toEqual({ action: 'updated', changedFields: ['company'], matchedBy: 'email' });
			const stored = (await contactsOf(ws)).filter((contact) => contact.email === person(500).email);
			expect(stored.map((contact) => contact.company)).toEqual(['Ours']);
		} finally {
			await proxy.close();
		}
	});

	test('a contact merged away after the read: the row searches and updates the contact that took it', async () => {
		const ws = await workspace();
		const [gone, keeper] = await seed(ws, [person(1), { name: 'Keeper', company: 'Keeper Inc' }, ...Array.from({ length: 10 }, (_, n) => person(10 + n))]);
		let merged = 0;
		const proxy = await startProxy(suite.sb, async (method, url) => {
			if (isList(method, url) && merged++ === 0) await call(ws, 'POST', '/contacts/merge', { primary_id: keeper.id, secondary_id: gone.id });
		});
		try {
			const result = await run({ baseUrl: proxy.baseUrl, apiKey: ws.apiKey }, 'readAll', [person(1, 'New'), ...Array.from({ length: 10 }, (_, n) => person(10 + n))], { matchBy: 'email' });
			expect(result.status).toBe('success');
			expect(result.json[0].id).toBe(keeper.id);
			expect(upsertOf(result.json[0]).action).toBe('updated');
			expect((await contactsOf(ws)).filter((contact) => contact.email === person(1).email)).toHaveLength(1);
		} finally {
			await proxy.close();
		}
	});
});

describe('two workflows, the same people, at the same moment', () => {
	test.each([['Search Each Row', 'searchEachRow'], ['Read All Contacts First', 'readAll']])('%s in both: one contact per person', async (_label, strategy) => {
		const ws = await workspace();
		await seed(ws, Array.from({ length: 20 }, (_, n) => person(1000 + n)));
		const people = Array.from({ length: 40 }, (_, n) => person(n));
		// 100 ms per request: both workflows search before either creates, as they do against the real API.
		await setFaults(suite.sb, { latency_ms: 100 });
		let results: RunResult[];
		try {
			results = await Promise.all([
				run(ws, strategy, people, { nodeId: 'a0000000-0000-4000-8000-00000000000a' }),
				run(ws, strategy, people.map((one) => ({ ...one, email: one.email.toUpperCase() })), { nodeId: 'b0000000-0000-4000-8000-00000000000b' }),
			]);
		} finally {
			await clearFaults(suite.sb);
		}
		const contacts = await contactsOf(ws);
		const created = results.flatMap((result) => result.json.filter((json) => upsertOf(json).action === 'created'));
		const merged = results.flatMap((result) => result.json.flatMap((json) => upsertOf(json).merged ?? []));
		console.log(`create-or-update, two workflows (${strategy}): ${JSON.stringify({ people: 40, created: created.length, merged: new Set(merged).size, contacts: contacts.length - 20 })}`);
		expect(results.map((result) => result.status)).toEqual(['success', 'success']);
		expect(duplicatesByEmail(contacts)).toBe(0);
		expect(contacts).toHaveLength(60);
		// One row per person says created: the row whose contact was kept. A row whose contact was merged into it says updated, naming it in merged.
		expect(count(created.map((json) => String(json.email).toLowerCase()))).toEqual(Object.fromEntries(people.map((one) => [String(one.email), 1])));
		const mergedAway = results.flatMap((result) => result.json).filter((json) => upsertOf(json).action !== 'created' && (upsertOf(json).merged ?? []).length > 0);
		expect(mergedAway.every((json) => upsertOf(json).action === 'updated')).toBe(true);
		expect(mergedAway.length).toBe(new Set(merged).size);
		// Every row's output names the contact that stayed.
		const ids = new Set(contacts.map((contact) => contact.id));
		expect(results.flatMap((result) => result.json).filter((json) => !ids.has(json.id))).toEqual([]);
	});
});

describe('Empty Values', () => {
	test.each([['Search Each Row', 'searchEachRow'], ['Read All Contacts First', 'readAll']])('%s: empty cells keep the stored value by default, or clear it', async (_label, strategy) => {
		const ws = await workspace();
		await seed(ws, Array.from({ length: 12 }, (_, n) => ({ ...person(n), company: 'Stored' })));
		const rows = Array.from({ length: 12 }, (_, n) => ({ ...person(n), company: n < 6 ? '' : '   ' }));
		const kept = await run(ws, strategy, rows);
		expect(actions(kept)).toEqual(rows.map(() => 'unchanged'));
		const cleared = await run(ws, strategy, rows.slice(0, 6), { options: { emptyValues: 'clear' } });
		expect(cleared.json.map(upsertOf)).toEqual(rows.slice(0, 6).map(() => ({ action: 'updated', changedFields: ['company'], matchedBy: 'email' })));
		const stored = await contactsOf(ws);
		expect(stored.filter((contact) => contact.company === '')).toHaveLength(6);
		expect(stored.filter((contact) => contact.company === 'Stored')).toHaveLength(6);
	});
});

describe('bad options fail before any request', () => {
	test.each([
		['Find Contacts By', { strategy: 'everything' }],
		['Empty Values', { emptyValues: 'sometimes' }],
	])("'%s'", async (field, options) => {
		const ws = await workspace();
		await resetStats(suite.sb);
		const result = await run(ws, 'auto', [person(1)], { options });
		expect(result.error?.message).toMatch(new RegExp(`^Invalid '${field}': .+ \\[item 0\\]$`));
		expect((await stats(suite.sb)).requests).toBe(0);
	});
});
