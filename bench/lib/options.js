'use strict';
// Command line of `npm run bench`: which scenarios, how many runs each.
//   npm run bench                      every scenario, BENCH_RUNS (default 3) runs
//   npm run bench -- --only reads      one scenario (or a comma list: reads,sends)
//   BENCH_RUNS=1 npm run bench -- --only webhooks
//   npm run bench -- --only queue      queue mode, K = 2 and 3 workers (BENCH_QUEUE_RUNS, default 1)
//   npm run bench -- --only webhooks-queue  webhook intake in queue mode, 1 and 2 webhook processes
//   npm run bench -- --only lock-calls      the ledger lock's database calls per delivery at 20 and 40/s, 4 ms and 1 s per call (no n8n)
//   npm run bench -- --only upsert          Contact > Create or Update beside the expert flow (Get Many -> Compare Datasets) and Search Each Row
//   npm run bench -- --only upsert-memory   what Create or Update's Read All Contacts First holds for 100,000 contacts
//   npm run bench -- --only report          Report > Get of a day of 50,000 messages in 500,000, beside Get Many -> Code node flows
//   npm run bench -- --only report-memory   what Report > Get holds in n8n for a window of 500,000 messages
//   npm run bench -- --only report-team     Group By Person and Group By Conversation beside the report without them, same day
//   npm run bench -- --only report-team-published   the same, published in a running n8n (a fresh server per run)
//   npm run bench -- --only sandbox    the sandbox alone, no n8n (also: npm run bench:sandbox)
//   npm run bench -- --only window     the trigger's de-duplication window (also: npm run bench:window)
//   npm run bench -- --only send-and-wait        Send and Wait beside n8n's Wait node (also: npm run bench:send-and-wait)
//   npm run bench -- --only send-and-wait-queue  the same in queue mode
//   npm run bench -- --only send-and-wait-chat   Send and Wait answered in the chat, beside the Wait node resumed by a relay
//   npm run bench -- --only send-and-wait-chat-queue  the same in queue mode
//   npm run bench -- --only burst        Answer a Burst Once beside a Webhook and a Wait node of the quiet period (BENCH_BURST_QUIET)
//   npm run bench -- --only burst-queue  the same in queue mode
//   npm run bench -- --only burst-volume  Answer a Burst Once with 60 conversations at once and 200 bursts (BENCH_VOLUME_AT_ONCE, BENCH_VOLUME_BURSTS)
//   npm run bench -- --only burst-volume-queue  the same in queue mode
//   npm run bench -- --only burst-volume-lazy,burst-volume-queue-lazy  both with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true
//   npm run bench -- --only burst-cap    Burst Max Wait: customers who keep writing, beside n8n's floor and a hand-built Redis flow (BENCH_CAP_CONVERSATIONS, BENCH_CAP_SECONDS)
//   npm run bench -- --only burst-cap-queue  the same in queue mode
//   npm run bench -- --only chat-stream-queue  chat waits under a stream of messages at 6 and 10/s (BENCH_STREAM_RATES), queue mode

const SCENARIOS = ['sandbox', 'reads', 'sends', 'upsert', 'upsert-memory', 'report', 'report-memory', 'report-team', 'report-team-published', 'webhooks', 'webhooks-full', 'webhooks-lazy', 'queue', 'webhooks-queue', 'lock-calls', 'window', 'send-and-wait', 'send-and-wait-queue', 'send-and-wait-chat', 'send-and-wait-chat-queue', 'burst', 'burst-queue', 'burst-volume', 'burst-volume-queue', 'burst-volume-lazy', 'burst-volume-queue-lazy', 'burst-cap', 'burst-cap-queue', 'chat-stream-queue', 'memory'];
const DEFAULT_RUNS = 3;
/** A bound on every run loop; a typo such as BENCH_RUNS=300 should not take a day. */
const MAX_RUNS = 20;

/** An environment setting that must be an integer 1..max; `fallback` when unset. */
function boundedInteger(name, value, fallback, max) {
	if (value === undefined || value === '') return fallback;
	const number = Number(value);
	if (!Number.isInteger(number) || number < 1 || number > max) {
		throw new Error(`${name} must be an integer 1..${max}, not ${JSON.stringify(value)}`);
	}
	return number;
}

function parseOnly(value) {
	const names = value.split(',').map((name) => name.trim()).filter(Boolean);
	const unknown = names.filter((name) => !SCENARIOS.includes(name));
	if (names.length === 0 || unknown.length > 0) {
		throw new Error(`--only takes ${SCENARIOS.join(', ')} (comma-separated), not ${JSON.stringify(value)}`);
	}
	return SCENARIOS.filter((name) => names.includes(name));
}

/** @returns {{ scenarios: string[], runs: number }} */
function parseOptions(argv = process.argv.slice(2), env = process.env) {
	let scenarios = SCENARIOS;
	for (let index = 0; index < argv.length; index++) {
		const arg = argv[index];
		if (arg === '--only') scenarios = parseOnly(argv[++index] ?? '');
		else if (arg.startsWith('--only=')) scenarios = parseOnly(arg.slice('--only='.length));
		else throw new Error(`unknown argument ${JSON.stringify(arg)}; usage: npm run bench -- [--only ${SCENARIOS.join('|')}]`);
	}
	return { scenarios, runs: boundedInteger('BENCH_RUNS', env.BENCH_RUNS, DEFAULT_RUNS, MAX_RUNS) };
}

module.exports = { parseOptions, boundedInteger, SCENARIOS };
