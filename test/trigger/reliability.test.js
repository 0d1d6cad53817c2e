'use strict';
// The trigger's answers to ordinary days, in-process: n8n failing to start an
// execution, n8n's Retry, a slow or dead lock holder, a clock that is off.
// The real-n8n fault suite proves the same end to end; these pin each rule.
// Whatever waits runs in simulated time, so no rule depends on the machine's speed.
const workflow = require('n8n-workflow');
const { ProcessedDataTable } = require('../support/host/processed-data.cjs');
const { simulate, useSimulatedTime } = require('../support/simulated-time.cjs');
const { prng } = require('../support/prng');

// Each simulated process loads the node's modules anew but shares n8n-workflow: it holds no state of theirs, and loading it per process took most of the file's time.
jest.doMock('n8n-workflow', () => workflow);

const T0 = Date.UTC(2026, 0, 1);
const quietLog = { warn: () => undefined };

/** A module as one more n8n process has it: its own memory. */
function fresh(path) {
	let loaded;
	jest.isolateModules(() => {
		loaded = require(path);
	});
	return loaded;
}

const sleep = async (ms) => await new Promise((resolve) => setTimeout(resolve, ms));

describe('process memory of deliveries (eventsInProcess)', () => {
	const { admitDelivery, markStarted, STARTING_MS, RETENTION_MS } = fresh('../../nodes/OmnichannelTrigger/common/eventsInProcess');

	test('a copy arriving while the first is being started starts nothing itself', () => {
		expect(admitDelivery('t1', 'evt_a', T0)).toBe('start');
		expect(admitDelivery('t1', 'evt_a', T0 + 10)).toBe('starting');
	});

	test('a delivery n8n failed to start runs when the sender retries it', () => {
		expect(admitDelivery('t2', 'evt_lost', T0)).toBe('start');
		// No execution step ran: n8n answered 500. The sender retries after 5 s.
		expect(admitDelivery('t2', 'evt_lost', T0 + 5_000)).toBe('start');
		expect(STARTING_MS).toBeLessThan(5_000);
	});

	test('once the execution\'s first step ran here, copies are duplicates for the retention time', () => {
		expect(admitDelivery('t3', 'evt_b', T0)).toBe('start');
		markStarted('t3', 'evt_b', T0 + 50);
		expect(admitDelivery('t3', 'evt_b', T0 + 60_000)).toBe('started');
		expect(admitDelivery('t3', 'evt_b', T0 + 50 + RETENTION_MS + 1)).toBe('start');
	});

	test('each trigger has its own ids', () => {
		markStarted('t4', 'evt_same', T0);
		expect(admitDelivery('t5', 'evt_same', T0)).toBe('start');
	});
});

describe('a copy waits for the outcome of its first copy\'s start (admitCopy)', () => {
	useSimulatedTime(T0);
	const { EventEmitter } = require('events');
	const { admitCopy: admitUntil } = fresh('../../nodes/OmnichannelTrigger/common/eventsInProcess');
	const { DELIVERY_BUDGET_MS } = fresh('../../nodes/OmnichannelTrigger/common/deliveredEvent');
	/** A copy waits until its delivery's deadline. */
	const admitCopy = (trigger, eventId, res, waitMs = DELIVERY_BUDGET_MS) => admitUntil(trigger, eventId, res, Date.now() + waitMs);

	/** n8n's response object for one delivery, as far as the node sees it. */
	function response() {
		const emitter = new EventEmitter();
		emitter.statusCode = 200;
		emitter.writableFinished = false;
		emitter.answer = (status) => {
			emitter.statusCode = status;
			emitter.writableFinished = true;
			emitter.emit('finish');
			emitter.emit('close');
		};
		emitter.drop = () => emitter.emit('close');
		return emitter;
	}

	/** Settles `promise` into a value now-or-never: "pending" while it has not settled. */
	const state = async (promise) => await Promise.race([promise, sleep(20).then(() => 'pending')]);

	test('the sender\'s acknowledgement window (10 s) holds a whole delivery, with room for n8n\'s own work', () => {
		expect(DELIVERY_BUDGET_MS).toBeLessThanOrEqual(8_000);
	});

	test('copies arriving while the first is being started are answered 2xx once n8n answered the first 2xx', async () => await simulate(async () => {
		const first = response();
		expect(await admitCopy('w1', 'evt_a', first)).toBe('start');
		const copies = [admitCopy('w1', 'evt_a', response()), admitCopy('w1', 'evt_a', response())];
		expect(await state(copies[0])).toBe('pending');
		first.answer(200);
		expect(await Promise.all(copies)).toEqual(['started', 'started']);
		// The execution exists: a later copy starts nothing either.
		expect(await admitCopy('w1', 'evt_a', response())).toBe('started');
	}));

	test('when n8n fails to start the first (500), exactly one waiting copy starts the event; the others wait for it', async () => await simulate(async () => {
		const first = response();
		expect(await admitCopy('w2', 'evt_b', first)).toBe('start');
		const responses = [response(), response(), response()];
		const copies = responses.map((r) => admitCopy('w2', 'evt_b', r));
		first.answer(500);
		const [starter] = await Promise.race(copies.map(async (copy, index) => [index, await copy]));
		expect(await copies[starter]).toBe('start');
		const others = copies.filter((_, index) => index !== starter);
		expect(await state(others[0])).toBe('pending');
		responses[starter].answer(200);
		expect(await Promise.all(others)).toEqual(['started', 'started']);
	}));

	test('the execution\'s first step running here settles the wait too (regular mode)', async () => await simulate(async () => {
		const { admitCopy: admit, markStarted: started } = fresh('../../nodes/OmnichannelTrigger/common/eventsInProcess');
		expect(await admit('w3', 'evt_c', response(), Date.now() + 4_000)).toBe('start');
		const copy = admit('w3', 'evt_c', response(), Date.now() + 4_000);
		started('w3', 'evt_c');
		expect(await copy).toBe('started');
	}));

	test('a first copy whose connection dropped before any answer leaves its copies to the sender: 409 at once', async () => await simulate(async () => {
		const first = response();
		expect(await admitCopy('w4', 'evt_d', first)).toBe('start');
		const copy = admitCopy('w4', 'evt_d', response(), 3_000);
		first.drop();
		expect(await copy).toBe('unknown');
	}));

	test('after the sender gave up on the first copy (10 s), a copy within STARTING_MS of that is answered 409, not started; later ones start', async () => await simulate(async () => {
		const { STARTING_MS } = fresh('../../nodes/OmnichannelTrigger/common/eventsInProcess');
		const first = response();
		expect(await admitCopy('w6', 'evt_f', first)).toBe('start');
		// n8n is slow: the sender closes the connection 10 s after, while n8n still creates the execution.
		await sleep(10_000);
		first.drop();
		await sleep(2_000);
		expect(await admitCopy('w6', 'evt_f', response(), 1_000)).toBe('unknown');
		await sleep(STARTING_MS);
		expect(await admitCopy('w6', 'evt_f', response())).toBe('start');
	}));

	test('no outcome within the wait: 409', async () => await simulate(async () => {
		expect(await admitCopy('w5', 'evt_e', response())).toBe('start');
		expect(await admitCopy('w5', 'evt_e', response(), 50)).toBe('unknown');
	}));
});

describe('the run seed survives n8n\'s Retry (runSeed)', () => {
	const { runSeed, seedRun, RUN_SEED_KEY } = fresh('../../nodes/shared/runSeed');

	function execution(id, customData = {}) {
		return {
			getExecutionId: () => id,
			customData: {
				get: (key) => customData[key],
				set: (key, value) => {
					customData[key] = value;
				},
			},
			data: customData,
		};
	}

	test('a new execution seeds itself with its own id; Retry, with the same custom data, keeps it', () => {
		const original = execution('101');
		expect(runSeed(original)).toBe('101');
		// n8n's Retry: a new execution id, the earlier execution's data.
		const retry = execution('102', original.data);
		expect(runSeed(retry)).toBe('101');
		// A separate run: new id, no custom data.
		expect(runSeed(execution('103'))).toBe('103');
	});

	test('the trigger\'s event seed wins over an id seed; without custom data the id is the seed', () => {
		const run = execution('201');
		seedRun(run, 'event:evt_1', true);
		expect(run.data[RUN_SEED_KEY]).toBe('event:evt_1');
		expect(runSeed(run)).toBe('event:evt_1');
		expect(runSeed({ getExecutionId: () => '202' })).toBe('202');
		const throwing = { getExecutionId: () => '203', get customData() { throw new Error('no run data'); } };
		expect(runSeed(throwing)).toBe('203');
	});
});

describe('the ledger lock (databaseLock)', () => {
	useSimulatedTime(T0);
	const TIMING = { staleMs: 2_000, confirmStaleMs: 300, renewMs: 100, giveUpMs: 30_000 };
	const lockModule = () => fresh('../../nodes/shared/databaseLock');

	/** Helpers whose calls take `ms` longer: a busy database seen from one process. */
	const slowed = (helpers, ms) => ({
		checkProcessedAndRecord: async (...args) => {
			await sleep(ms);
			return await helpers.checkProcessedAndRecord(...args);
		},
		clearAllProcessedItems: async (...args) => await helpers.clearAllProcessedItems(...args),
	});

	test('a slow holder keeps its lock: a waiter that waited past the stale age does not take it over', async () => await simulate(async () => {
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		// Its every call takes longer than the time between its renewals.
		const holder = await lockModule().acquireLock(slowed(helpers, TIMING.renewMs * 4), quietLog, TIMING);
		let waiterHas = false;
		const waiting = lockModule()
			.acquireLock(helpers, quietLog, TIMING)
			.then(async (lock) => {
				waiterHas = true;
				return lock;
			});
		// The holder works for three times the stale age, renewing as it goes.
		await sleep(TIMING.staleMs * 3);
		expect(holder.held).toBe(true);
		expect(waiterHas).toBe(false);
		await holder.release();
		const waiter = await waiting;
		expect(waiter.held).toBe(true);
		await waiter.release();
		expect(table.rows.has('wf|')).toBe(false);
	}));

	test('a lock whose holder died is taken over once its own stamp is stale, not before', async () => await simulate(async () => {
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		// A holder that stamped its lock and then died (no renewals).
		const stamp = Date.now() * 1000;
		await helpers.checkProcessedAndRecord([stamp], 'workflow', { mode: 'latestIncrementalKey' });
		const started = Date.now();
		const warnings = [];
		const lock = await lockModule().acquireLock(helpers, { warn: (message) => warnings.push(message) }, TIMING);
		expect(lock.held).toBe(true);
		expect(Date.now() - started).toBeGreaterThanOrEqual(TIMING.staleMs);
		expect(warnings.join('\n')).toMatch(/took over a de-duplication lock/);
		await lock.release();
	}));

	test('with the production timing a dead holder\'s lock is taken over about a minute after its last renewal: stale, confirmed, then claimed past the last write a slow holder could make', async () => await simulate(async () => {
		const { acquireLock, LOCK_TIMING } = lockModule();
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		const stamp = Date.now() * 1000;
		await helpers.checkProcessedAndRecord([stamp], 'workflow', { mode: 'latestIncrementalKey' });
		const started = Date.now();
		const lock = await acquireLock(helpers, quietLog);
		const waited = Date.now() - started;
		expect(lock.held).toBe(true);
		const { staleMs, confirmStaleMs, renewMs } = LOCK_TIMING;
		expect(waited).toBeGreaterThanOrEqual(staleMs + confirmStaleMs + staleMs / 2 + 2 * renewMs);
		expect(waited).toBeLessThan(staleMs + confirmStaleMs + staleMs / 2 + 3 * renewMs);
		await lock.release();
		expect(table.rows.has('wf|')).toBe(false);
	}));

	test('a holder whose row holds another process\'s newer stamp stops at its next renewal and says so; one whose row went back to an older value keeps it and stamps it again', async () => await simulate(async () => {
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		const warnings = [];
		const holder = await lockModule().acquireLock(helpers, { warn: (message) => warnings.push(message) }, TIMING);
		// A waiter's late write-back: a value older than any live stamp.
		table.rows.get('wf|').data = (Date.now() - TIMING.staleMs - 5_000) * 1000;
		await sleep(TIMING.renewMs * 2);
		expect(holder.held).toBe(true);
		expect(table.rows.get('wf|').data).toBeGreaterThan((Date.now() - TIMING.renewMs * 2) * 1000);
		// Another process's live stamp, written after this one took the lock.
		table.rows.get('wf|').data = (Date.now() + 1) * 1000;
		await sleep(TIMING.renewMs * 2);
		expect(holder.held).toBe(false);
		expect(warnings.join('\n')).toMatch(/another process took over the de-duplication lock while this one held it/);
		await holder.release();
		expect(table.rows.has('wf|')).toBe(true);
	}));

	test('release deletes only the holder\'s own lock', async () => await simulate(async () => {
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		const holder = await lockModule().acquireLock(helpers, quietLog, TIMING);
		// Another process took the lock over (its newer stamp is in the row).
		await helpers.clearAllProcessedItems('workflow');
		const thiefStamp = (Date.now() + 60_000) * 1000;
		await helpers.checkProcessedAndRecord([thiefStamp], 'workflow', { mode: 'latestIncrementalKey' });
		await holder.release();
		expect(table.rows.get('wf|')?.data).toBe(thiefStamp);
	}));

	test('a holder that cannot renew stops counting itself as the holder before its lock can look stale', async () => await simulate(async () => {
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		let stalled = false;
		const stalling = {
			checkProcessedAndRecord: async (...args) => {
				// The database stops answering this process: calls hang past the stale age.
				if (stalled) await sleep(TIMING.staleMs);
				return await helpers.checkProcessedAndRecord(...args);
			},
			clearAllProcessedItems: helpers.clearAllProcessedItems,
		};
		const lock = await lockModule().acquireLock(stalling, quietLog, TIMING);
		expect(lock.held).toBe(true);
		stalled = true;
		await sleep(TIMING.staleMs / 2 + TIMING.renewMs * 3);
		expect(lock.held).toBe(false);
		// Its stamp is not stale yet: nobody could have taken the lock over before it stepped back.
		expect(Date.now() * 1000 - table.rows.get('wf|').data).toBeLessThan(TIMING.staleMs * 1000);
		await lock.release();
		// Not the holder any more: the row is left for the stale rule.
		expect(table.rows.has('wf|')).toBe(true);
	}));
});

describe('the event ledger under a slow holder (eventsInDatabase)', () => {
	useSimulatedTime(T0);
	const NODE = { workflowId: 'wf', nodeId: 'node-1' };
	const TIMING = { staleMs: 2_000, confirmStaleMs: 300, renewMs: 100, giveUpMs: 30_000 };

	test('copies checked while one process is slow pass once, and no id is dropped', async () => await simulate(async () => {
		const table = new ProcessedDataTable(1);
		const helpers = table.helpers('wf', 'node-1');
		const slowHelpers = {
			checkProcessedAndRecord: async (items, scope, options) => {
				// The slow process's window write takes longer than the stale age.
				if (scope === 'node') await sleep(TIMING.staleMs * 2);
				return await helpers.checkProcessedAndRecord(items, scope, options);
			},
			clearAllProcessedItems: helpers.clearAllProcessedItems,
		};
		const slow = fresh('../../nodes/OmnichannelTrigger/common/eventsInDatabase');
		const quick = fresh('../../nodes/OmnichannelTrigger/common/eventsInDatabase');
		slow.setLockTiming(TIMING);
		quick.setLockTiming(TIMING);
		const ids = Array.from({ length: 6 }, (_, index) => `evt_${index}`);
		const verdicts = await Promise.all([
			...ids.map(async (id) => await slow.recordEvent(slowHelpers, NODE, id, quietLog)),
			...ids.map(async (id) => { await sleep(50); return await quick.recordEvent(helpers, NODE, id, quietLog); }),
		]);
		expect(verdicts.filter((verdict) => verdict === 'first')).toHaveLength(ids.length);
		// Every id is in the window: a later copy of any is a duplicate.
		for (const id of ids) expect(await quick.recordEvent(helpers, NODE, id, quietLog)).toBe('duplicate');
	}));

	test('a process under constant load gives its lock back: another process\'s checks never run without it', async () => await simulate(async () => {
		const table = new ProcessedDataTable(1);
		const helpers = table.helpers('wf', 'node-1');
		const busy = fresh('../../nodes/OmnichannelTrigger/common/eventsInDatabase');
		const other = fresh('../../nodes/OmnichannelTrigger/common/eventsInDatabase');
		// The other process gives up waiting long before the busy one runs out of executions.
		const timing = { ...TIMING, giveUpMs: 1_000, holdMs: 100 };
		busy.setLockTiming(timing);
		other.setLockTiming(timing);
		const warnings = [];
		const log = { warn: (message) => warnings.push(message) };
		let givesBack = 0;
		// Its window writes take longer than executions take to arrive: its queue never empties.
		const slowWrites = {
			checkProcessedAndRecord: async (items, scope, options) => {
				if (scope === 'node') await sleep(40);
				return await helpers.checkProcessedAndRecord(items, scope, options);
			},
			clearAllProcessedItems: async (scope, options) => {
				if (scope === 'workflow') givesBack++;
				return await helpers.clearAllProcessedItems(scope, options);
			},
		};
		const busyIds = Array.from({ length: 150 }, (_, index) => `evt_busy_${index}`);
		const busyChecks = busyIds.map(async (id, index) => {
			await sleep(index * 20);
			return await busy.recordEvent(slowWrites, NODE, id, log);
		});
		const otherIds = ['evt_other_1', 'evt_other_2', 'evt_other_3', 'evt_other_4', 'evt_busy_0'];
		const otherVerdicts = [];
		const givenBackWaited = [];
		for (const id of otherIds) {
			// Far enough apart that each check finds the lock held by the busy process again.
			await sleep(timing.holdMs * 2);
			const before = givesBack;
			otherVerdicts.push(await other.recordEvent(helpers, NODE, id, log));
			givenBackWaited.push(givesBack - before);
		}
		const busyVerdicts = await Promise.all(busyChecks);
		await Promise.all([busy.whenIdle(), other.whenIdle()]);
		expect(warnings).toEqual([]);
		expect(otherVerdicts).toEqual(['first', 'first', 'first', 'first', 'duplicate']);
		// Each took the lock the next time the busy process gave it back: its pause after giving the lock back outlasts a waiter's polls.
		expect(Math.max(...givenBackWaited)).toBeLessThanOrEqual(1);
		expect(busyVerdicts.every((verdict) => verdict === 'first')).toBe(true);
		expect(table.rows.has('wf|')).toBe(false);
	}));

	test('on a slow database the lock is kept for the next execution\'s check instead of being given back and taken again', async () => await simulate(async () => {
		const table = new ProcessedDataTable(1);
		const helpers = table.helpers('wf', 'node-1');
		const ledger = fresh('../../nodes/OmnichannelTrigger/common/eventsInDatabase');
		ledger.setLockTiming(TIMING);
		let releases = 0;
		// Every call on the lock's row takes 300 ms: taking the lock (a try and a stamp) costs about 600 ms.
		const slowLock = {
			checkProcessedAndRecord: async (items, scope, options) => {
				if (scope === 'workflow') await sleep(300);
				return await helpers.checkProcessedAndRecord(items, scope, options);
			},
			clearAllProcessedItems: async (scope, options) => {
				if (scope === 'workflow') releases++;
				return await helpers.clearAllProcessedItems(scope, options);
			},
		};
		// The second execution's check comes 200 ms after the first got its verdict: past a
		// 100 ms linger and a 500 ms hold, within the time taking the lock cost.
		const first = await ledger.recordEvent(slowLock, NODE, 'evt_1', quietLog);
		await sleep(200);
		const second = await ledger.recordEvent(slowLock, NODE, 'evt_2', quietLog);
		await ledger.whenIdle();
		expect([first, second]).toEqual(['first', 'first']);
		expect(releases).toBe(1);
		expect(table.rows.has('wf|')).toBe(false);
	}));

	test('a failed release is logged; the verdicts stand', async () => await simulate(async () => {
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		const ledger = fresh('../../nodes/OmnichannelTrigger/common/eventsInDatabase');
		ledger.setLockTiming(TIMING);
		const warnings = [];
		const failingRelease = {
			checkProcessedAndRecord: helpers.checkProcessedAndRecord,
			clearAllProcessedItems: async () => {
				throw new Error('connection terminated');
			},
		};
		expect(await ledger.recordEvent(failingRelease, NODE, 'evt_x', { warn: (message) => warnings.push(message) })).toBe('first');
		await ledger.whenIdle();
		expect(warnings.join('\n')).toMatch(/could not release the de-duplication lock: connection terminated/);
	}));
});

describe('the event ledger on a slow shared database (several processes, the production lock timing)', () => {
	useSimulatedTime(T0);
	afterEach(() => jest.restoreAllMocks());
	const NODE = { workflowId: 'wf', nodeId: 'node-1' };
	/** LOCK_SCHEDULES=1000 runs a thousand (docs/development/trigger-internals.md quotes such a run). */
	const SCHEDULES = Array.from({ length: Number(process.env.LOCK_SCHEDULES ?? 8) }, (_, index) => index + 1);

	/** Calls as an overloaded n8n's database answers them: most in milliseconds, some in hundreds, a few in 1 to 3 s (the slowest single calls measured in a storm). */
	const busyDatabase = (random) => () => {
		const draw = () => {
			const r = random();
			return r < 0.8 ? 1 + r * 25 : r < 0.97 ? 50 + random() * 700 : 1_000 + random() * 2_000;
		};
		return { beforeRead: draw(), readToWrite: draw() };
	};

	test.each(SCHEDULES)('schedule %i: three processes take two copies each of 240 events: each event passes once, the ledger is written by one process at a time', async (seed) => await simulate(async () => {
		const random = prng(seed).next;
		// The lock's own random parts (stamps, pauses between tries) come from the schedule too: a failing one replays exactly.
		jest.spyOn(Math, 'random').mockImplementation(prng(seed * 7919).next);
		const table = new ProcessedDataTable(0, busyDatabase(random));
		const shared = table.helpers('wf', 'node-1');
		const warnings = [];
		const log = { warn: (message) => warnings.push(message) };
		let writing = 0;
		let overlaps = 0;
		/** One n8n process: its own modules, its ledger calls counted while in flight. */
		const processes = [0, 1, 2].map(() => {
			const ledger = fresh('../../nodes/OmnichannelTrigger/common/eventsInDatabase');
			const helpers = {
				checkProcessedAndRecord: async (items, scope, options) => {
					if (scope !== 'node') return await shared.checkProcessedAndRecord(items, scope, options);
					if (writing > 0) overlaps++;
					writing++;
					try {
						return await shared.checkProcessedAndRecord(items, scope, options);
					} finally {
						writing--;
					}
				},
				clearAllProcessedItems: shared.clearAllProcessedItems,
			};
			return { ledger, helpers };
		});
		const copies = Array.from({ length: 240 }, (_, index) => {
			const at = index * 250;
			return [at, at + random() * 3_000].map((when) => ({ id: `evt_${index}`, when, process: processes[Math.floor(random() * 3)] }));
		}).flat();
		const verdicts = await Promise.all(
			copies.map(async ({ id, when, process }) => {
				await sleep(when);
				return { id, verdict: await process.ledger.recordEvent(process.helpers, NODE, id, log) };
			}),
		);
		await Promise.all(processes.map(async ({ ledger }) => await ledger.whenIdle()));
		const passed = new Map();
		for (const { id, verdict } of verdicts) if (verdict === 'first') passed.set(id, (passed.get(id) ?? 0) + 1);
		const passedTwice = [...passed.entries()].filter(([, count]) => count > 1).map(([id]) => id);
		// A takeover of a live lock may still happen, rarely, under such latencies; it must stay harmless.
		const otherWarnings = warnings.filter((message) => !/took over a de-duplication lock|another process took over/.test(message));
		expect({ otherWarnings, overlaps, passedTwice, passed: passed.size }).toEqual({ otherWarnings: [], overlaps: 0, passedTwice: [], passed: 240 });
		// Nothing left behind: the last holder gave the lock back.
		expect(table.rows.has('wf|')).toBe(false);
	}));
});

describe('clock skew (clockSkewWarning)', () => {
	const { clockSkewWarning } = fresh('../../nodes/OmnichannelTrigger/common/signature');

	test('says the measured skew and what to fix, at most once a minute per trigger', () => {
		const now = 1_800_000_000;
		const first = clockSkewWarning('trigger-a', String(now - 420), now, T0);
		expect(first).toMatch(/420 s behind this server's clock/);
		expect(first).toMatch(/at most 300 s/);
		expect(first).toMatch(/NTP/);
		expect(clockSkewWarning('trigger-a', String(now - 420), now, T0 + 59_000)).toBeUndefined();
		expect(clockSkewWarning('trigger-b', String(now + 400), now, T0 + 59_000)).toMatch(/400 s ahead of/);
		expect(clockSkewWarning('trigger-a', String(now - 420), now, T0 + 61_000)).toMatch(/420 s/);
		expect(clockSkewWarning('trigger-c', 'not a number', now, T0)).toBeUndefined();
	});
});
