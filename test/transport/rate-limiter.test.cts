/**
 * Issue 11: two n8n processes (queue-mode workers) share one API key and no
 * state. Simulated time (see simulation.cts): deterministic, no timing
 * assertion depends on the machine. The goals are checked for the package's
 * limiter and, as a control, must not hold for the fixed bucket it replaced.
 */
import { adaptiveLimiter, fixedLimiter, rate, simulate } from './simulation.cjs';
import type { LimiterFactory, SimulationResult } from './simulation.cjs';

jest.mock('n8n-workflow', () => ({
	sleep: async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms)),
}));

const LIMIT = 60;
const ITEMS = 3000;
/** B joins after A ran alone for this long. */
const JOIN_MS = 10_000;
const SERVER = { limitAt: () => LIMIT, requestLatencyMs: 100, responseLatencyMs: 50 };

beforeEach(() => {
	jest.useFakeTimers({ now: 1_700_000_000_000 });
});
afterEach(() => {
	jest.useRealTimers();
});

interface Figures {
	failed: number;
	share429: number;
	aloneRate: number;
	overlapRate: number;
	lateShares: number[];
	/** 429s among the requests of the second half of the overlap, once settled. */
	late429Share: number;
}

function figures(result: SimulationResult): Figures {
	const { requests, failed, finishedAt } = result;
	const overlapEnd = Math.min(finishedAt.A, finishedAt.B);
	const lateFrom = JOIN_MS + (overlapEnd - JOIN_MS) / 2;
	const lateTotal = rate(requests, lateFrom, overlapEnd);
	const late = requests.filter((r) => r.at >= lateFrom && r.at < overlapEnd);
	return {
		failed: failed.A + failed.B,
		share429: requests.filter((r) => r.status === 429).length / requests.length,
		aloneRate: rate(requests, 1000, JOIN_MS, 'A'),
		overlapRate: rate(requests, JOIN_MS, overlapEnd),
		lateShares: ['A', 'B'].map((p) => rate(requests, lateFrom, overlapEnd, p) / lateTotal),
		late429Share: late.filter((r) => r.status === 429).length / late.length,
	};
}

/** The goals, as assertions. */
function expectGoals(f: Figures): void {
	expect(f.failed).toBe(0);
	// No 429 storm: at most 3% of all requests, and under 2% once settled.
	expect(f.share429).toBeLessThanOrEqual(0.03);
	expect(f.late429Share).toBeLessThanOrEqual(0.02);
	// One process alone runs at the full rate.
	expect(f.aloneRate).toBeGreaterThanOrEqual(0.9 * LIMIT);
	// Together they use at least 85% of the key's limit...
	expect(f.overlapRate).toBeGreaterThanOrEqual(0.85 * LIMIT);
	// ...and have converged to about half each.
	for (const share of f.lateShares) {
		expect(share).toBeGreaterThanOrEqual(0.35);
		expect(share).toBeLessThanOrEqual(0.65);
	}
}

const twoProcesses = async (factory: LimiterFactory) =>
	figures(
		await simulate(
			factory,
			[
				{ name: 'A', items: ITEMS, startAt: 0 },
				{ name: 'B', items: ITEMS, startAt: JOIN_MS },
			],
			SERVER,
		),
	);

test('two processes on one key: one alone runs at 60/s; together they settle near 30/s each, no 429 storm, no failed item', async () => {
	const f = await twoProcesses(adaptiveLimiter);
	console.log(`[limiter] adaptive: ${JSON.stringify(f)}`);
	expectGoals(f);
}, 120_000);

test('the same goals fail for the fixed bucket of before (the test tells them apart)', async () => {
	const f = await twoProcesses(fixedLimiter);
	console.log(`[limiter] fixed bucket: ${JSON.stringify(f)}`);
	expect(() => expectGoals(f)).toThrow();
	// It fails by storming: far more 429s than the goal allows.
	expect(f.share429).toBeGreaterThan(0.03);
}, 120_000);

test('three processes joining one after another: the key stays near its limit, no storm, no failed item', async () => {
	const { requests, failed, finishedAt } = await simulate(
		adaptiveLimiter,
		[
			{ name: 'A', items: 2000, startAt: 0 },
			{ name: 'B', items: 2000, startAt: 5_000 },
			{ name: 'C', items: 2000, startAt: 10_000 },
		],
		SERVER,
	);
	const end = Math.min(...Object.values(finishedAt));
	const share429 = requests.filter((r) => r.status === 429).length / requests.length;
	const shares = ['A', 'B', 'C'].map((p) => rate(requests, 20_000, end, p) / rate(requests, 20_000, end));
	console.log(`[limiter] three processes: ${JSON.stringify({ share429, together: rate(requests, 10_000, end), shares })}`);
	expect(Object.values(failed)).toEqual([0, 0, 0]);
	expect(share429).toBeLessThanOrEqual(0.03);
	expect(rate(requests, 10_000, end)).toBeGreaterThanOrEqual(0.85 * LIMIT);
	for (const share of shares) {
		expect(share).toBeGreaterThanOrEqual(0.2);
		expect(share).toBeLessThanOrEqual(0.47);
	}
}, 120_000);

test('a limit that drops from 60 to 20 mid-run is followed within seconds, and the rate recovers when it rises again', async () => {
	const limitAt = (ms: number) => (ms >= 20_000 && ms < 40_000 ? 20 : LIMIT);
	const { requests, failed } = await simulate(adaptiveLimiter, [{ name: 'A', items: 5000, startAt: 0 }], { ...SERVER, limitAt });
	const at429 = requests.filter((r) => r.status === 429).map((r) => r.at);
	const during = requests.filter((r) => r.at >= 20_000 && r.at < 40_000);
	const lastStormy = Math.max(...at429.filter((at) => at < 40_000));
	console.log(
		`[limiter] drop to 20/s: ${JSON.stringify({
			before: rate(requests, 5_000, 20_000),
			during: rate(requests, 23_000, 40_000),
			after10s: rate(requests, 40_000, 50_000),
			after20to30s: rate(requests, 60_000, 70_000),
			'429s': at429.length,
			'429sWithin3sOfDrop': at429.filter((at) => at >= 20_000 && at < 23_000).length,
			'429sLater': at429.filter((at) => at >= 23_000).length,
			lastStormy,
		})}`,
	);
	expect(failed.A).toBe(0);
	expect(rate(requests, 5_000, 20_000)).toBeGreaterThanOrEqual(0.9 * LIMIT);
	// Followed within a few seconds: from 3 s after the drop, at most a few 429s.
	expect(at429.filter((at) => at >= 23_000 && at < 40_000).length / during.length).toBeLessThanOrEqual(0.03);
	expect(rate(requests, 23_000, 40_000)).toBeGreaterThanOrEqual(0.8 * 20);
	// Recovers: 20 to 30 s after the limit rose, back above 54/s (2/s gained per second).
	expect(rate(requests, 60_000, 70_000)).toBeGreaterThanOrEqual(0.9 * LIMIT);
}, 120_000);
