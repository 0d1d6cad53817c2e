/**
 * Simulated n8n processes sharing one API key, in simulated time (jest's fake
 * timers): each "process" is its own copy of a limiter module (loaded with
 * jest.isolateModules, as every n8n worker loads the node's module once), and
 * runs items the way request.ts does: take a token, send, and on a 429 tell
 * the limiter and wait what it says, at most 7 attempts per item. The server
 * is a token bucket as the sandbox's (sandbox/rateLimit.js: burst = rate,
 * Retry-After in whole seconds, at least 1; a new limit refills the bucket) on the fake clock, behind a fixed latency. Nothing here
 * depends on how fast the machine is.
 */

/** The sandbox's per-key bucket on Date.now() (the sandbox's reads performance.now of perf_hooks, which jest does not fake). */
class ServerBucket {
	private tokens = 0;

	private at = 0;

	private rate = -1;

	/** 0 when allowed, else the Retry-After in whole seconds. */
	take(rate: number, now: number): number {
		const capacity = Math.max(1, rate);
		if (rate !== this.rate) {
			this.rate = rate;
			this.tokens = capacity;
			this.at = now;
		}
		this.tokens = Math.min(capacity, this.tokens + ((now - this.at) / 1000) * rate);
		this.at = now;
		if (this.tokens >= 1) {
			this.tokens -= 1;
			return 0;
		}
		return Math.max(1, Math.ceil((1 - this.tokens) / rate));
	}
}

export interface Grant {
	readonly at: number;
}

/** What request.ts uses of a limiter module. */
export interface Limiter {
	throttled<T>(fingerprint: string, perSecond: number | undefined, send: (grant: Grant) => Promise<T>): Promise<T>;
	/** A 429 for a request granted at `grant.at`: how long that request waits before its retry. */
	rateLimited(fingerprint: string, grant: Grant, retryAfterMs: number): number;
}

export type LimiterFactory = () => Limiter;

/** The limiter of the package (nodes/shared/transport/rateLimiter.ts), one copy per call. */
export const adaptiveLimiter: LimiterFactory = () => {
	let module: typeof import('../../nodes/shared/transport/rateLimiter') | undefined;
	jest.isolateModules(() => {
		module = require('../../nodes/shared/transport/rateLimiter');
	});
	const { throttled, rateLimited } = module!;
	return { throttled, rateLimited: (fingerprint, grant, retryAfterMs) => rateLimited(fingerprint, grant, retryAfterMs) };
};

/** The fixed bucket of before (test/transport/fixed-bucket-limiter.cts), used as request.ts used it then. */
export const fixedLimiter: LimiterFactory = () => {
	let module: typeof import('./fixed-bucket-limiter.cjs') | undefined;
	jest.isolateModules(() => {
		module = require('./fixed-bucket-limiter');
	});
	const { throttled, pauseKey } = module!;
	return {
		throttled: async (fingerprint, perSecond, send) => await throttled(fingerprint, perSecond, async () => await send({ at: Date.now() })),
		rateLimited: (fingerprint, _grant, retryAfterMs) => {
			const until = Date.now() + retryAfterMs;
			pauseKey(fingerprint, until);
			return until - Date.now();
		},
	};
};

const FINGERPRINT = 'http://api.test|svc_test_sim';
const MAX_ATTEMPTS = 7;
const PARALLEL_ITEMS = 24;

export interface RequestRecord {
	process: string;
	/** Simulated ms since the start. */
	at: number;
	status: number;
}

export interface ProcessPlan {
	name: string;
	items: number;
	/** Simulated ms after the start at which the process starts its items. */
	startAt: number;
}

export interface SimulationResult {
	requests: RequestRecord[];
	/** Per process: items that ran out of attempts. */
	failed: Record<string, number>;
	/** Per process: simulated ms at which its last item finished. */
	finishedAt: Record<string, number>;
}

export interface ServerOptions {
	/** The server's limit over simulated time (ms since the start). */
	limitAt: (ms: number) => number;
	/** Before the server takes the token (the sandbox's latency). */
	requestLatencyMs: number;
	/** After: the answer's way back and n8n's work on it. */
	responseLatencyMs: number;
}

const sleep = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs the plans against one key and returns every request the server saw.
 * Call with jest's modern fake timers installed.
 */
export async function simulate(factory: LimiterFactory, plans: ProcessPlan[], server: ServerOptions): Promise<SimulationResult> {
	const start = Date.now();
	const elapsed = () => Date.now() - start;
	const bucket = new ServerBucket();
	const requests: RequestRecord[] = [];
	const failed: Record<string, number> = {};
	const finishedAt: Record<string, number> = {};

	const call = async (process: string) => {
		await sleep(server.requestLatencyMs);
		const retryAfterS = bucket.take(server.limitAt(elapsed()), Date.now());
		const status = retryAfterS > 0 ? 429 : 200;
		requests.push({ process, at: elapsed(), status });
		await sleep(server.responseLatencyMs);
		return { status, retryAfterMs: retryAfterS * 1000 };
	};

	const runProcess = async ({ name, items, startAt }: ProcessPlan) => {
		const limiter = factory();
		failed[name] = 0;
		await sleep(startAt);
		let next = 0;
		const runItem = async () => {
			for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
				let grant: Grant = { at: Date.now() };
				const answer = await limiter.throttled(FINGERPRINT, undefined, async (granted) => {
					grant = granted;
					return await call(name);
				});
				if (answer.status === 200) return;
				if (attempt < MAX_ATTEMPTS) await sleep(limiter.rateLimited(FINGERPRINT, grant, answer.retryAfterMs));
			}
			failed[name]++;
		};
		await Promise.all(
			Array.from({ length: PARALLEL_ITEMS }, async () => {
				while (next < items) {
					next++;
					await runItem();
				}
			}),
		);
		finishedAt[name] = elapsed();
	};

	let done = false;
	const all = Promise.all(plans.map(runProcess)).finally(() => {
		done = true;
	});
	// Bounded: ten simulated minutes at most.
	for (let step = 0; step < 6000 && !done; step++) await jest.advanceTimersByTimeAsync(100);
	if (!done) throw new Error('the simulation did not finish within 10 simulated minutes');
	await all;
	return { requests, failed, finishedAt };
}

/** Successful requests per second of `process` (or all) within [fromMs, toMs). */
export function rate(requests: RequestRecord[], fromMs: number, toMs: number, process?: string): number {
	const count = requests.filter((r) => r.status === 200 && r.at >= fromMs && r.at < toMs && (!process || r.process === process)).length;
	return (count * 1000) / (toMs - fromMs);
}
