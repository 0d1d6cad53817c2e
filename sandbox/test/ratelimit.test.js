'use strict';
// Rate limit: token bucket per key, 60/s, burst 60; 429 with
// an integer Retry-After >= 1 and {"error": "rate limit exceeded"}.

const { openSandbox, sleep } = require('./helpers');

let t;
beforeAll(async () => {
	t = await openSandbox({ rateLimit: true });
});
afterAll(() => t.close());
afterEach(() => t.control.delete('/faults'));

/** Buckets are per key: a fresh key per test starts with a full bucket. */
const freshKey = async () => (await t.control.post('/keys', { mode: 'test' })).body.key;
const burst = (count, key) => Promise.all(Array.from({ length: count }, () => t.api.get('/me', undefined, { key })));

/**
 * The most requests a bucket of `rate` may let through in `elapsedMs`: the
 * burst plus the refill (bounds stay right on a slow, loaded machine).
 */
const allowance = (rate, elapsedMs) => rate + Math.ceil((elapsedMs / 1000) * rate) + 1;

test('the default limit is 60 per second', async () => {
	expect((await t.control.get('/faults')).body.rate_limit_per_second).toBe(60);
});

// 200 at once: the bucket refills 60 a second, so 80 would all pass whenever
// sending them takes a third of a second (a loaded machine); 200 need over 2 s,
// and the refill they took meanwhile is allowed for.
test('a burst of 200 gets about 60 through (plus the refill meanwhile), the rest 429 with Retry-After', async () => {
	const key = await freshKey();
	const started = Date.now();
	const results = await burst(200, key);
	const elapsed = Date.now() - started;
	const ok = results.filter((r) => r.status === 200);
	const limited = results.filter((r) => r.status === 429);
	expect(ok.length + limited.length).toBe(200);
	expect(ok.length).toBeGreaterThanOrEqual(60);
	expect(ok.length).toBeLessThanOrEqual(allowance(60, elapsed));
	// However slowly the machine sent them, what the refill did not cover was refused.
	expect(limited.length).toBeGreaterThanOrEqual(Math.max(0, 200 - allowance(60, elapsed)));
	for (const res of limited) {
		expect(res.body).toEqual({ error: 'rate limit exceeded' });
		const retryAfter = res.headers.get('retry-after');
		expect(retryAfter).toMatch(/^\d+$/);
		expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
	}
});

// At 0.2/s a bucket holds one token and refills in 5 s: a burst of 5 is refused 4 times on any machine.
test('the bucket is per key: another key is not throttled by the first', async () => {
	const [first, other] = [await freshKey(), await freshKey()];
	await t.control.put('/faults', { rate_limit_per_second: 0.2 });
	const results = await burst(5, first);
	expect(results.some((r) => r.status === 429)).toBe(true);
	const res = await t.api.get('/me', undefined, { key: other });
	expect(res.status).toBe(200);
});

test('tokens refill: after Retry-After the key works again', async () => {
	const key = await freshKey();
	// One token, refilled in 2 s: a burst of 5 is refused whatever the machine's speed.
	await t.control.put('/faults', { rate_limit_per_second: 0.5 });
	const results = await burst(5, key);
	const limited = results.find((r) => r.status === 429);
	expect(limited).toBeDefined();
	await sleep(Number(limited.headers.get('retry-after')) * 1000);
	expect((await t.api.get('/me', undefined, { key })).status).toBe(200);
});

test('rate_limit_per_second changes the rate; 0 disables limiting', async () => {
	const key = await freshKey();
	await t.control.put('/faults', { rate_limit_per_second: 5 });
	const started = Date.now();
	const five = await burst(10, key);
	const passed = five.filter((r) => r.status === 200).length;
	expect(passed).toBeGreaterThanOrEqual(5);
	expect(passed).toBeLessThanOrEqual(allowance(5, Date.now() - started));
	await t.control.put('/faults', { rate_limit_per_second: 0 });
	const unlimited = await burst(120, key);
	expect(unlimited.every((r) => r.status === 200)).toBe(true);
});

test('an unauthenticated request is 401, not 429, and takes no token', async () => {
	const key = await freshKey();
	// 0.2/s: a bucket of one token that takes 5 s to refill.
	await t.control.put('/faults', { rate_limit_per_second: 0.2 });
	const bad = await Promise.all(Array.from({ length: 5 }, () => t.api.get('/me', undefined, { key: null })));
	expect(bad.every((r) => r.status === 401)).toBe(true);
	expect((await t.api.get('/me', undefined, { key })).status).toBe(200);
	const limited = await t.api.get('/me', undefined, { key });
	expect(limited.status).toBe(429);
	expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(4);
});

test('429s are counted in stats', async () => {
	const key = await freshKey();
	await t.control.delete('/stats');
	await t.control.put('/faults', { rate_limit_per_second: 0.2 });
	await burst(5, key);
	const stats = (await t.control.get('/stats')).body;
	expect(stats.by_status['429']).toBe(4);
	expect(stats.by_status['200']).toBe(1);
});
