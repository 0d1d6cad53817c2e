/**
 * Contact > Create or Update: two executions of one node that meet the same
 * people at the same moment create each person once, whatever fields each
 * row carries (harness/crmRows.js, twoRunsOfPeople: email only, phone only,
 * both, numbers in other writings, rows that agree on one field only, rows
 * linked through a third row of their run). 100 ms per request, so that both
 * executions reach each person while the other is at it. Counted at the
 * sandbox: creates, merges, contacts per person, and `created` outputs.
 */
import { runNode } from '../support/host/action-node.cjs';
import type { Credentials, RunResult } from '../support/host/action-node.cjs';
import { allContacts, api, clearFaults, newWorkspace, setFaults, startProxy } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { useSandbox } from '../support/suite.cjs';

type Counts = { people: number; contacts: number; created: number };
const { twoRunsOfPeople, countByShape, matchedByMistakes, SHAPES } = require('../../harness/crmRows') as {
	twoRunsOfPeople: (options: { perShape?: number; tag: string; area?: number }) => { people: Array<{ name: string; shape: string }>; runs: Json[][] };
	countByShape: (people: Array<{ name: string; shape: string }>, contacts: Json[], outputs: Json[]) => Record<string, Counts>;
	matchedByMistakes: (rows: Json[], outputs: Json[]) => Json[];
	SHAPES: Record<string, unknown>;
};

const suite = useSandbox({ seed: 'empty' });

const workspace = async (): Promise<Credentials> => await newWorkspace(suite.sb);

const call = async (ws: Credentials, method: string, path: string, body?: unknown): Promise<Json> => await api(suite.sb, method, path, body, ws.apiKey);
const contactsOf = async (ws: Credentials): Promise<Json[]> => await allContacts(suite.sb, ws.apiKey);

const parameters = (strategy: string): Json => ({
	resource: 'contact',
	operation: 'createOrUpdate',
	matchBy: 'emailThenPhone',
	email: '={{ $json.email ?? "" }}',
	phone: '={{ $json.phone ?? "" }}',
	name: '={{ $json.name ?? "" }}',
	options: { defaultCountryCode: '49', strategy },
});

/** One execution of the node (every run here is the same node of the same workflow). */
const execute = async (ws: Credentials, strategy: string, rows: Json[]): Promise<RunResult> =>
	await runNode({ credentials: ws, parameters: parameters(strategy), items: rows.map((json) => ({ json })) as never });

const upsertOf = (json: Json) => json._upsert as { action: string; matchedBy: string | null; merged?: string[] };

describe.each([['Search Each Row', 'searchEachRow'], ['Read All Contacts First', 'readAll']])('two executions at once (Find Contacts By: %s)', (_label, strategy) => {
	test('every person is created once, by one row, whatever fields its rows carry', async () => {
		const ws = await workspace();
		const { people, runs } = twoRunsOfPeople({ perShape: 3, tag: `t${strategy.toLowerCase()}`, area: strategy === 'readAll' ? 2 : 3 });
		let results: RunResult[];
		await setFaults(suite.sb, { latency_ms: 100 });
		try {
			results = await Promise.all(runs.map(async (rows) => await execute(ws, strategy, rows)));
		} finally {
			await clearFaults(suite.sb);
		}
		const contacts = await contactsOf(ws);
		const byShape = countByShape(people, contacts, results.flatMap((result) => result.json));
		console.log(`create-or-update, two executions (${strategy}): ${JSON.stringify(byShape)}`);
		expect(results.map((result) => result.status)).toEqual(['success', 'success']);
		expect(Object.keys(byShape).sort()).toEqual(Object.keys(SHAPES).sort());
		for (const counts of Object.values(byShape)) expect(counts).toEqual({ people: counts.people, contacts: counts.people, created: counts.people });
		// None was created twice and merged afterwards: nothing was merged.
		expect(results.flatMap((result) => result.json.flatMap((json) => upsertOf(json).merged ?? []))).toEqual([]);
		expect(contacts).toHaveLength(people.length);
		expect(runs.flatMap((rows, run) => matchedByMistakes(rows, results[run].json))).toEqual([]);
	});
});

describe('between a row’s email search and its phone search', () => {
	test.each([['Search Each Row', 'searchEachRow'], ['Read All Contacts First', 'readAll']])(
		'%s: the contact of its number gets the row’s own email from another row: it is the row’s person, not created again',
		async (_label, strategy) => {
			const ws = await workspace();
			const email = `ingrid.tanaka.${strategy.toLowerCase()}@example.com`;
			// Another execution created the person from a row with only the number (after this run read all contacts, when it does).
			const createTheirs = async () => await call(ws, 'POST', '/contacts', { name: 'Ingrid Tanaka', phone: '(+39) 055/4069504' });
			let theirs = strategy === 'readAll' ? undefined : await createTheirs();
			let updated = 0;
			const proxy = await startProxy(suite.sb, async (method, url) => {
				if (method === 'GET' && url.pathname.endsWith('/contacts') && !url.searchParams.has('search')) theirs ??= await createTheirs();
				// Right after this row's email search found nothing, that execution's next row adds the email.
				if (method === 'GET' && url.searchParams.get('search') === email && updated++ === 0) {
					await call(ws, 'PATCH', `/contacts/${String(theirs?.id)}`, { name: 'Ingrid Tanaka', email: email.toUpperCase() });
				}
			});
			let result: RunResult;
			try {
				result = await execute({ baseUrl: proxy.baseUrl, apiKey: ws.apiKey }, strategy, [{ name: 'Ingrid Tanaka', email, phone: '0039 055 4069504' }]);
			} finally {
				await proxy.close();
			}
			expect(updated).toBe(1);
			expect(result.status).toBe('success');
			expect(result.json[0].id).toBe(theirs?.id);
			expect(upsertOf(result.json[0])).toMatchObject({ action: 'unchanged', matchedBy: 'phone' });
			expect(await contactsOf(ws)).toHaveLength(1);
		},
	);
});

describe('rows of one person that share no field, linked by a third row of the run', () => {
	test.each([['Search Each Row', 'searchEachRow'], ['Read All Contacts First', 'readAll']])('%s: one contact, created by the first row, and nothing merged', async (_label, strategy) => {
		const ws = await workspace();
		const rows = [
			{ name: 'Beatriz Bianchi', email: 'beatriz.bianchi@example.com' },
			{ name: 'Beatriz Bianchi', phone: '0341 675 918' },
			{ name: 'Beatriz Bianchi', email: 'BEATRIZ.BIANCHI@example.com', phone: '(+49) 341/675918' },
		];
		const result = await execute(ws, strategy, rows);
		expect(result.status).toBe('success');
		expect(result.json.map((json) => upsertOf(json).action)).toEqual(['created', 'updated', 'unchanged']);
		// The row with only the number found the contact by the email of its person's other rows: it says its own field.
		expect(result.json.map((json) => upsertOf(json).matchedBy)).toEqual([null, 'phone', 'email']);
		expect(result.json.flatMap((json) => upsertOf(json).merged ?? [])).toEqual([]);
		const contacts = await contactsOf(ws);
		expect(contacts.map(({ email, phone }) => ({ email, phone }))).toEqual([{ email: 'beatriz.bianchi@example.com', phone: '0341 675 918' }]);
	});

	test('two emails on one number are two people: the row with only the number borrows no email', async () => {
		const ws = await workspace();
		const rows = [
			{ name: 'Front Desk', email: 'desk.one@example.com', phone: '+49 89 5550000' },
			{ name: 'Back Office', email: 'desk.two@example.com', phone: '+49 89 5550000' },
			{ name: 'Switchboard', phone: '089 5550000' },
		];
		const result = await execute(ws, 'searchEachRow', rows);
		expect(result.status).toBe('success');
		expect(result.json.slice(0, 2).map((json) => upsertOf(json).action)).toEqual(['created', 'created']);
		expect(upsertOf(result.json[2])).toMatchObject({ action: 'updated', matchedBy: 'phone' });
		expect(await contactsOf(ws)).toHaveLength(2);
	});
});
