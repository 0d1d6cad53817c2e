/**
 * Simulated time for tests of code that waits on timers (n8n-workflow's
 * sleep, the in-memory processed-data table's pauses): Jest's modern fake
 * timers drive setTimeout, setImmediate and Date.now, and the clock moves
 * one timer at a time with every await settled in between. So each wait
 * ends at its exact simulated moment, no real time passes, and what a test
 * asserts cannot depend on how fast the machine is. A 0 ms timer set while
 * the clock moves runs 1 ms later (@sinonjs/fake-timers' rule), so each call
 * of the in-memory table takes a few simulated milliseconds, as a database
 * call takes some time.
 */

/** Installs the simulated clock, at `now`, for every test of the enclosing describe block (or file). */
export function useSimulatedTime(now: number): void {
	beforeEach(() => {
		// Not waits: faked, they would only run when the clock moves.
		jest.useFakeTimers({ now, doNotFake: ['nextTick', 'queueMicrotask'] });
	});
	afterEach(() => {
		jest.useRealTimers();
	});
}

/** How far the clock moves per step; within a step, timers run one by one in their order. */
const STEP_MS = 1_000;
/** A body still running after this much simulated time waits on something that never comes. */
const LIMIT_MS = 60 * 60_000;

/**
 * Runs `body` while moving the simulated clock until it ends, and returns
 * what it returned (or throws what it threw). Inside, waits are written as
 * usual (`await sleep(ms)` ends exactly `ms` later on the clock).
 */
export async function simulate<T>(body: () => Promise<T>): Promise<T> {
	const result: { ended?: { value: T } | { error: unknown } } = {};
	void body().then(
		(value) => (result.ended = { value }),
		(error: unknown) => (result.ended = { error }),
	);
	for (let spent = 0; !result.ended; spent += STEP_MS) {
		if (spent >= LIMIT_MS) throw new Error(`still running after ${LIMIT_MS / 60_000} simulated minutes`);
		await jest.advanceTimersByTimeAsync(STEP_MS);
	}
	if ('error' in result.ended) throw result.ended.error;
	return result.ended.value;
}
