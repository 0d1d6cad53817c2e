'use strict';
// The sandbox at 100,000 contacts (control /bulk, startSandbox options):
// counts, the envelope of the last page, stable paging and filters. How fast
// it seeds and serves pages is measured, not asserted here: `npm run
// bench:sandbox` times it against a bare HTTP server in the same run.

const { openSandbox } = require('./helpers');

let t;
afterAll(() => t && t.close());

test('POST /bulk seeds 100,000 contacts', async () => {
	t = await openSandbox();
	const res = await t.control.post('/bulk', { contacts: 100_000 });
	expect(res.status).toBe(200);
	expect(res.body).toMatchObject({ contacts: 100_000, totals: { contacts: 100_050 } });
});

test('the last page of 100,050 contacts has the right envelope', async () => {
	const last = await t.api.get('/contacts?per_page=500&page=201');
	expect(last.status).toBe(200);
	expect(last.body).toMatchObject({ total: 100_050, last_page: 201, from: 100_001, to: 100_050, has_next: false });
	expect(last.body.data).toHaveLength(50);
});

test('pages over 100k are stable: consecutive pages neither overlap nor skip', async () => {
	const a = (await t.api.get('/contacts?per_page=500&page=120')).body.data;
	const b = (await t.api.get('/contacts?per_page=500&page=121')).body.data;
	const ids = new Set([...a, ...b].map((c) => c.id));
	expect(ids.size).toBe(1000);
	const last = a[a.length - 1];
	const next = b[0];
	expect(Date.parse(last.created_at) > Date.parse(next.created_at) || (last.created_at === next.created_at && last.id > next.id)).toBe(true);
});

test('search and lead_status filters over 100k return only matching contacts', async () => {
	const won = (await t.api.get('/contacts?lead_status=won&per_page=500')).body;
	expect(won.total).toBeGreaterThan(10_000);
	expect(won.data.every((c) => c.lead_status === 'won')).toBe(true);
	const both = (await t.api.get('/contacts?search=555&lead_status=new&per_page=500')).body;
	expect(both.total).toBeGreaterThan(0);
	expect(both.data.every((c) => c.lead_status === 'new' && `${c.name}${c.email}${c.company}${(c.phone ?? '').replace(/\D/g, '')}`.includes('555'))).toBe(true);
});

test('startSandbox({ contacts: 100000 }) starts with exactly what was asked', async () => {
	const big = await openSandbox({ seed: 'empty', contacts: 100_000, conversations: 500, messagesPerConversation: 4 });
	try {
		expect((await big.api.get('/contacts?per_page=1')).body.total).toBe(100_000);
		expect((await big.api.get('/messages?per_page=1')).body.total).toBe(2_000);
		const page = (await big.api.get('/contacts?per_page=500&page=150')).body;
		expect(page).toMatchObject({ from: 74_501, to: 75_000, has_next: true });
		expect(page.data).toHaveLength(500);
	} finally {
		await big.close();
	}
});
