/**
 * Contact > Create or Update: the matching rules, the checks made before any
 * request, and the operation through n8n's workflow engine against the
 * sandbox (created / updated / unchanged, once per person within a run and
 * across two runs at once, If Several Match, Continue On Fail).
 */
import { createMaySendAgain } from '../../nodes/Omnichannel/actions/contact/upsert/writes';
import { emailKey, looksLikeEmail, phoneKey, phoneSearchText } from '../../nodes/Omnichannel/actions/contact/upsert/contactMatch';
import { processedData, runNode } from '../support/host/action-node.cjs';
import type { RunResult } from '../support/host/action-node.cjs';
import { api, clearFaults, resetStats, setFaults, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { useSandbox } from '../support/suite.cjs';

const suite = useSandbox({ seed: 'empty' });

let tagCounter = 0;
/** A fresh tag, so each test's people are its own (no tag is part of another: the API's search finds parts). */
const newTag = () => `t${++tagCounter}x${Date.now().toString(36)}`;

const run = async (parameters: Json, rows: Json[] = [{}], extra: Json = {}): Promise<RunResult> =>
	await runNode({
		credentials: suite.credentials,
		parameters: { resource: 'contact', operation: 'createOrUpdate', ...parameters },
		items: rows.map((json) => ({ json })) as never,
		...extra,
	});

/** The parameters of a sheet-like sync: every field from the row. */
const fromRow = (matchBy = 'email', options: Json = {}): Json => ({
	matchBy,
	email: '={{ $json.email ?? "" }}',
	phone: '={{ $json.phone ?? "" }}',
	name: '={{ $json.name ?? "" }}',
	additionalFields: { company: '={{ $json.company ?? "" }}' },
	options: { defaultCountryCode: '49', ...options },
});

/** The contacts whose email holds `text` (the API's search also matches the digits of `text` in phones). */
async function contactsWith(text: string): Promise<Json[]> {
	const page = await api(suite.sb, 'GET', `/contacts?per_page=500&search=${encodeURIComponent(text)}`);
	return (page.data as Json[]).filter((contact) => String(contact.email).includes(text));
}

/** Both ways of finding contacts (Automatic picks one of them), each given every case below. */
const STRATEGIES = ['searchEachRow', 'readAll'];

const upsert = (json: Json) => json._upsert as { action: string; changedFields: string[]; matchedBy: string | null };

describe('the matching rules', () => {
	test('phones: +49, 0049, (0) and a national 0 with the default code are one number', () => {
		const keys = ['+49 30 1234567', '0049301234567', '(030) 1234567', '+49 (0)30 123 45 67', '00 49 30-1234567', '+49 030 1234567'].map((phone) => phoneKey(phone, '49'));
		expect(new Set(keys)).toEqual(new Set(['49301234567']));
	});

	test('phones: what is not matched', () => {
		// Without a default country code, a national number is its digits as written.
		expect(phoneKey('(030) 1234567')).toBe('0301234567');
		// A number without +, 00 or 0 is taken as written: "30 1234567" is not +49 30 1234567.
		expect(phoneKey('30 1234567', '49')).toBe('301234567');
		// Italian numbers keep their 0 after the country code (more countries: phone-numbers.test.cts).
		expect(phoneKey('06 1234567', '39')).toBe('39061234567');
		expect(phoneKey('+39 06 1234567', '39')).toBe('39061234567');
		expect(phoneKey('no digits here')).toBeUndefined();
	});

	test('the phone search text is a part every writing of the number contains', () => {
		const key = phoneKey('+49 30 1234567', '49') as string;
		const search = phoneSearchText(key);
		for (const written of ['+49 30 1234567', '0049301234567', '(030) 1234567', '+49 (0)30 1234567']) {
			expect(written.replace(/\D/g, '')).toContain(search);
		}
	});

	test('emails: trimmed and case-insensitive; an address needs @ and a dot in its domain', () => {
		expect(emailKey('  Ada.Lovelace@Example.COM ')).toBe('ada.lovelace@example.com');
		expect(looksLikeEmail('ada@example.com')).toBe(true);
		for (const bad of ['ada', 'ada@example', 'ada lovelace@example.com', '@example.com', '+49 30 1234567']) expect(looksLikeEmail(bad)).toBe(false);
	});
});

describe('bad input fails before any request, naming the field and the item', () => {
	const cases: Array<[string, Json, string, number]> = [
		['no email with Match By Email', { matchBy: 'email', name: 'Ada' }, 'Email', 0],
		['no phone with Match By Phone', { matchBy: 'phone', name: 'Ada', email: 'ada@example.com' }, 'Phone', 0],
		['neither with Email Then Phone', { matchBy: 'emailThenPhone', name: 'Ada' }, 'Email', 0],
		['an email that is not one', { matchBy: 'email', email: 'Ada Lovelace' }, 'Email', 0],
		['a phone without digits', { matchBy: 'phone', phone: 'n/a' }, 'Phone', 0],
		['a name over 200 characters', { matchBy: 'email', email: 'ada@example.com', name: 'x'.repeat(201) }, 'Name', 0],
		['a company over 200 characters', { matchBy: 'email', email: 'ada@example.com', additionalFields: { company: 'c'.repeat(201) } }, 'Company', 0],
		['a phone over 50 characters', { matchBy: 'phone', phone: `+49 ${'1'.repeat(50)}` }, 'Phone', 0],
		['a city over 100 characters', { matchBy: 'email', email: 'ada@example.com', additionalFields: { city: 'b'.repeat(101) } }, 'City', 0],
		['a default country code that is not one', { matchBy: 'phone', phone: '030 1234567', options: { defaultCountryCode: '+4 9' } }, 'Default Country Calling Code', 0],
	];
	test.each(cases)('%s', async (_label, parameters, field, itemIndex) => {
		await resetStats(suite.sb);
		const result = await run(parameters);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(new RegExp(`^Invalid '${field}': .+ \\[item ${itemIndex}\\]$`));
		expect(result.error?.context?.itemIndex).toBe(itemIndex);
		expect((await stats(suite.sb)).requests).toBe(0);
	});

	test('the bad row is named by its index, and no row is sent when one is bad', async () => {
		await resetStats(suite.sb);
		const tag = newTag();
		const result = await run(fromRow(), [
			{ email: `a-${tag}@example.com`, name: 'A' },
			{ email: `b-${tag}@example.com`, name: 'B' },
			{ email: 'not an email', name: 'C' },
		]);
		expect(result.error?.message).toMatch(/^Invalid 'Email': "not an email" is not an email address \[item 2\]$/);
		expect((await stats(suite.sb)).requests).toBe(0);
	});
});

describe('create, update, unchanged', () => {
	test('creates when nothing matches, then finds the person in other writings: unchanged, with no write', async () => {
		const tag = newTag();
		const created = await run(fromRow('emailThenPhone'), [{ email: `Ada.${tag}@Example.com`, phone: '+49 30 1234567', name: 'Ada', company: 'Analytical' }]);
		expect(created.status).toBe('success');
		expect(upsert(created.json[0])).toEqual({ action: 'created', changedFields: ['company', 'email', 'phone', 'name'], matchedBy: null });
		expect(created.items[0].pairedItem).toEqual({ item: 0 });

		await resetStats(suite.sb);
		const again = await run(fromRow('emailThenPhone'), [
			{ email: `  ada.${tag}@EXAMPLE.com `, phone: '(030) 123 4567', name: 'Ada', company: 'Analytical' },
		]);
		expect(upsert(again.json[0])).toEqual({ action: 'unchanged', changedFields: [], matchedBy: 'email' });
		expect(again.json[0].id).toBe(created.json[0].id);
		const requests = await stats(suite.sb);
		expect(requests.by_route['PATCH /contacts/:id'] ?? 0).toBe(0);
		expect(requests.requests).toBe(1);
		// The stored writing stays.
		expect(again.json[0].phone).toBe('+49 30 1234567');
	});

	test('updates only what changed, keeps the name when the row has none, and outputs the stored contact', async () => {
		const tag = newTag();
		const first = await run(fromRow(), [{ email: `grace-${tag}@example.com`, name: 'Grace Hopper', company: 'Navy' }]);
		const updated = await run(fromRow(), [{ email: `GRACE-${tag}@example.com`, company: 'Harvard' }]);
		expect(upsert(updated.json[0])).toEqual({ action: 'updated', changedFields: ['company'], matchedBy: 'email' });
		const stored = await api(suite.sb, 'GET', `/contacts/${first.json[0].id}`);
		expect(stored).toMatchObject({ name: 'Grace Hopper', company: 'Harvard', email: `grace-${tag}@example.com` });
		// The contact as written: the API's own, but for updated_at, which only a read would give.
		const { _upsert: _report, ...contact } = updated.json[0];
		expect(contact.updated_at).toBeUndefined();
		expect({ ...contact, updated_at: stored.updated_at }).toEqual(stored);
	});

	test('Match By Phone finds the number in any writing and adds the email', async () => {
		const tag = newTag();
		const digits = String(Date.now()).slice(-7);
		await run(fromRow('phone'), [{ phone: `+49 40 ${digits}`, name: `Phone ${tag}` }]);
		const result = await run(fromRow('phone'), [{ phone: `(040) ${digits}`, email: `phone-${tag}@example.com` }]);
		expect(upsert(result.json[0])).toEqual({ action: 'updated', changedFields: ['email'], matchedBy: 'phone' });
		expect(result.json[0].phone).toBe(`+49 40 ${digits}`);
	});

	test('a number written with the trunk prefix after the country code is the same number', async () => {
		const tag = newTag();
		const digits = String(Date.now()).slice(-7);
		const created = await run(fromRow('phone'), [{ phone: `+49 40 ${digits}`, name: `Trunk ${tag}` }]);
		const rows = [`+49 040 ${digits}`, `+49 (040) ${digits}`, `(+49) (0)40 ${digits}`].map((phone) => ({ phone, name: `Trunk ${tag}` }));
		const again = await run(fromRow('phone'), rows);
		expect(again.json.map((json) => [json.id, upsert(json).action])).toEqual(rows.map(() => [created.json[0].id, 'unchanged']));
	});

	test('Email Then Phone: falls back to the phone, but not to a contact holding another email', async () => {
		const tag = newTag();
		const digits = String(Date.now()).slice(-7);
		const switchboard = `+49 89 ${digits}`;
		await run(fromRow('emailThenPhone'), [{ email: `first-${tag}@example.com`, phone: switchboard, name: 'First' }]);
		const noEmail = await run(fromRow('phone'), [{ phone: `+49 89 ${digits}1`, name: 'No Email' }]);
		// A colleague on the same switchboard: another person.
		const colleague = await run(fromRow('emailThenPhone'), [{ email: `second-${tag}@example.com`, phone: switchboard, name: 'Second' }]);
		expect(upsert(colleague.json[0]).action).toBe('created');
		// A contact without email, found by phone, gets the email.
		const found = await run(fromRow('emailThenPhone'), [{ email: `third-${tag}@example.com`, phone: `0049 89 ${digits}1` }]);
		expect(upsert(found.json[0])).toEqual({ action: 'updated', changedFields: ['email'], matchedBy: 'phone' });
		expect(found.json[0].id).toBe(noEmail.json[0].id);
	});

	test('Simplify keeps the report', async () => {
		const tag = newTag();
		const result = await run({ ...fromRow(), simplify: true }, [{ email: `simple-${tag}@example.com`, name: 'Simple' }]);
		expect(Object.keys(result.json[0]).sort()).toEqual(['_upsert', 'email', 'id', 'lead_source', 'lead_status', 'name', 'phone', 'company', 'updated_at'].sort());
		const updated = await run({ ...fromRow(), simplify: true }, [{ email: `simple-${tag}@example.com`, company: 'Changed' }]);
		expect(upsert(updated.json[0])).toEqual({ action: 'updated', changedFields: ['company'], matchedBy: 'email' });
	});
});

describe.each(STRATEGIES)('once per person (Find Contacts By: %s)', (strategy) => {
	test('rows of the same person in one run make one contact, in other writings, in row order', async () => {
		const tag = newTag();
		const people = Array.from({ length: 12 }, (_, n) => ({ email: `p${n}-${tag}@example.com`, name: `Person ${n}`, company: 'Old' }));
		const rows = [
			...people,
			...people.map((person) => ({ ...person, email: `  ${person.email.toUpperCase()} `, company: 'New' })),
			...people.map((person) => ({ ...person, email: person.email.replace('p', 'P'), company: 'New' })),
		];
		const result = await run(fromRow('email', { strategy }), rows);
		expect(result.status).toBe('success');
		const actions = result.json.map((json) => upsert(json).action);
		expect(actions.slice(0, 12).every((action) => action === 'created')).toBe(true);
		expect(actions.slice(12, 24).every((action) => action === 'updated')).toBe(true);
		expect(actions.slice(24).every((action) => action === 'unchanged')).toBe(true);
		expect(result.items.map((item) => (item.pairedItem as Json).item)).toEqual(rows.map((_row, index) => index));
		const stored = await contactsWith(tag);
		expect(stored).toHaveLength(12);
		expect(stored.every((contact) => contact.company === 'New')).toBe(true);
	});

	test('two runs of the node at once, with the same people: one contact each', async () => {
		const tag = newTag();
		const rows = Array.from({ length: 20 }, (_, n) => ({ email: `both-${n}-${tag}@example.com`, name: `Both ${n}` }));
		const [a, b] = await Promise.all([run(fromRow('email', { strategy }), rows), run(fromRow('email', { strategy }), [...rows].reverse())]);
		expect([a.status, b.status]).toEqual(['success', 'success']);
		const stored = await contactsWith(`both-`);
		expect(stored.filter((contact) => String(contact.email).endsWith(`${tag}@example.com`))).toHaveLength(20);
		const created = [...a.json, ...b.json].filter((json) => upsert(json).action === 'created');
		expect(created).toHaveLength(20);
		// The lock row in n8n's de-duplication store is given back.
		expect([...processedData.rows.keys()].filter((key) => key.includes('|n:'))).toEqual([]);
	});
});

describe.each(STRATEGIES)('matchedBy names a field of the row itself (Find Contacts By: %s)', (strategy) => {
	/** One person's rows, each with the fields it carries, run in one execution; `before` is the contact the workspace holds first. */
	async function matchedBy(fields: Array<'both' | 'email' | 'phone'>, before?: 'both' | 'phone'): Promise<Array<string | null>> {
		const tag = newTag();
		const digits = String(1_000_000 + (++tagCounter * 7919) % 9_000_000);
		const person = { email: `mixed-${tag}@example.com`, phone: `+49 40 ${digits}`, name: `Mixed ${tag}` };
		if (before) await api(suite.sb, 'POST', '/contacts', { name: person.name, phone: person.phone, ...(before === 'both' && { email: person.email }) });
		// Other writings of the same values, as a sheet has them.
		const rows = fields.map((carries, index) => ({
			name: person.name,
			...(carries !== 'phone' && { email: index % 2 ? person.email.toUpperCase() : person.email }),
			...(carries !== 'email' && { phone: index % 2 ? `(040) ${digits}` : `0049 40 ${digits}` }),
		}));
		const result = await run(fromRow('emailThenPhone', { strategy }), rows);
		expect(result.status).toBe('success');
		// The search also matches the tag's digits in other tests' phones: the person's contacts are those with its name.
		const found = (await api(suite.sb, 'GET', `/contacts?per_page=500&search=${encodeURIComponent(tag)}`)).data as Json[];
		const stored = found.filter((contact) => contact.name === person.name);
		expect(stored).toHaveLength(1);
		expect(new Set(result.json.map((json) => json.id))).toEqual(new Set([stored[0].id]));
		return result.json.map((json) => upsert(json).matchedBy);
	}

	test('both, then phone only, then email only, into an empty workspace: null, phone, email', async () => {
		expect(await matchedBy(['both', 'phone', 'email'])).toEqual([null, 'phone', 'email']);
	});

	test('email only, then phone only, then both (the reverse): null, phone, email', async () => {
		expect(await matchedBy(['email', 'phone', 'both'])).toEqual([null, 'phone', 'email']);
	});

	test('phone only, then email only, then both, against a contact holding both: phone, email, email (the email wins)', async () => {
		expect(await matchedBy(['phone', 'email', 'both'], 'both')).toEqual(['phone', 'email', 'email']);
	});

	test('email only, then both, against a contact holding the phone only: email (through the other row), then email', async () => {
		expect(await matchedBy(['email', 'both'], 'phone')).toEqual(['email', 'email']);
	});

	test('both, against a contact holding the phone only: phone', async () => {
		expect(await matchedBy(['both'], 'phone')).toEqual(['phone']);
	});
});

describe.each(STRATEGIES)('several matches, a missing name, Continue On Fail (Find Contacts By: %s)', (strategy) => {
	test('If Several Match: the most recently updated is updated, or the item fails listing the ids', async () => {
		const tag = newTag();
		const email = `twice-${tag}@example.com`;
		const older = await api(suite.sb, 'POST', '/contacts', { name: 'Older', email });
		const newer = await api(suite.sb, 'POST', '/contacts', { name: 'Newer', email: email.toUpperCase() });
		await api(suite.sb, 'PATCH', `/contacts/${older.id}`, { name: 'Older', company: 'touched last' });
		const updated = await run(fromRow('email', { strategy }), [{ email, company: 'Chosen' }]);
		expect(updated.json[0].id).toBe(older.id);

		const failed = await run(fromRow('email', { ifSeveralMatch: 'fail', strategy }), [{ email, company: 'x' }]);
		expect(failed.status).toBe('error');
		expect(failed.error?.message).toContain(older.id);
		expect(failed.error?.message).toContain(newer.id);
		expect(failed.error?.message).toMatch(/\[item 0\]$/);
	});

	test('no name when nothing matches fails that item; Continue On Fail outputs it paired and goes on', async () => {
		const tag = newTag();
		const result = await run(
			fromRow('email', { strategy }),
			[
				{ email: `named-${tag}@example.com`, name: 'Named' },
				{ email: `nameless-${tag}@example.com` },
				{ email: `also-${tag}@example.com`, name: 'Also' },
			],
			{ settings: { onError: 'continueRegularOutput' } },
		);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => (item.pairedItem as Json).item)).toEqual([0, 1, 2]);
		expect(result.json[1].error).toMatch(/^Invalid 'Name': it is empty, and no contact matches.* \[item 1\]$/);
		expect(upsert(result.json[2]).action).toBe('created');
		expect(await contactsWith(`nameless-${tag}`)).toHaveLength(0);
	});
});

test('only the API\'s own 500 or 503 lets a create that the search did not find be sent again', () => {
	expect([500, 503].map(createMaySendAgain)).toEqual([true, true]);
	// A gateway's 502 or 504, or no answer: the API may still be creating the contact.
	expect([502, 504, NaN].map(createMaySendAgain)).toEqual([false, false, false]);
});

describe.each(STRATEGIES)('a create that the API failed (Find Contacts By: %s)', (strategy) => {
	test('15% of requests answered 500 (before or after the change): every row created once, none failed', async () => {
		const tag = newTag();
		const rows = Array.from({ length: 60 }, (_, index) => ({ email: `p${index}-${tag}@example.com`, name: `Person ${index}` }));
		await setFaults(suite.sb, { error_rate: 0.15, error_status: 500 });
		let result: RunResult;
		try {
			result = await run(fromRow('email', { strategy }), rows);
		} finally {
			await clearFaults(suite.sb);
		}
		// Without sending again, a create failed before the change fails its item: at 7.5% per create, 60 rows pass with a chance of 1 in 100.
		expect(result.status).toBe('success');
		expect(result.json.map((json) => upsert(json).action)).toEqual(rows.map(() => 'created'));
		const stored = await contactsWith(tag);
		expect(stored.map((contact) => contact.email).sort()).toEqual(rows.map((row) => row.email).sort());
	});
});
