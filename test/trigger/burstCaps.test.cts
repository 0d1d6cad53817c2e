/**
 * Answer a Burst Once's caps (Burst Max Wait, Burst Max Messages, Burst End
 * Words): the split of a conversation into bursts, the End Words' matching in
 * other cases and scripts, the hold that receives the deliveries (a capped
 * burst continues at once, a message arriving as the cap fires), the options'
 * validation, and the whole step through the trigger host against the sandbox
 * (every customer message in exactly one continued burst, in order, also with
 * duplicate deliveries reaching two processes).
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { capsIn, endsWithEndWord, normaliseEndWord, splitBursts } from '../../nodes/OmnichannelTrigger/common/burstCaps';
import type { BurstCaps } from '../../nodes/OmnichannelTrigger/common/burstCaps';
import { holdForQuiet } from '../../nodes/OmnichannelTrigger/common/quietHold';
import { answerBurst, decide } from '../../nodes/OmnichannelTrigger/options/burst';
import type { BurstMessage } from '../../nodes/OmnichannelTrigger/options/burst';
import { endWordsOf } from '../../nodes/OmnichannelTrigger/options/burstEndWords';
import { maxMessagesOf } from '../../nodes/OmnichannelTrigger/options/burstMaxMessages';
import { maxWaitSecondsOf } from '../../nodes/OmnichannelTrigger/options/burstMaxWait';
import type { TriggerHost } from '../support/host/trigger.cjs';
import { api, control, pause, stats, waitFor } from '../support/sandbox.cjs';
import { useTriggerHosts } from '../support/suite.cjs';
import { inbound as inboundIn, newWorld, reply as replyIn } from '../support/world.cjs';
import type { World } from '../support/world.cjs';

// --- the split, on lists written by hand (newest first, as the API orders them) ---

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + second * 1000).toISOString();
const customer = (id: string, second: number, content = id): BurstMessage => ({ id, from_customer: true, created_at: at(second), content });
const agent = (id: string, second: number): BurstMessage => ({ id, from_customer: false, from_user_id: 'usr_1', created_at: at(second), content: id });
const ids = (messages: IDataObject[]) => messages.map((message) => String(message.id));
const caps = (extra: Partial<BurstCaps>): BurstCaps => ({ quietMs: 5000, ...extra });

/** A customer writing every 2 s from second 0 to second `last`, newest first. */
const every2s = (last: number): BurstMessage[] =>
	Array.from({ length: last / 2 + 1 }, (_, index) => customer(`m${String(index * 2).padStart(2, '0')}`, index * 2)).reverse();

describe('the split into bursts', () => {
	test('Max Wait: a message written more than Max Wait after the burst’s first one starts the next burst', () => {
		const run = every2s(44).reverse();
		const bursts = splitBursts(run, caps({ maxWaitMs: 20_000 }));
		expect(bursts.map((burst) => [burst[0].id, burst[burst.length - 1].id])).toEqual([
			['m00', 'm20'],
			['m22', 'm42'],
			['m44', 'm44'],
		]);
	});

	test('Max Messages, End Words and a quiet gap each end a burst', () => {
		const run = [customer('a', 0), customer('b', 1), customer('c', 2), customer('d', 3, 'ok thanks'), customer('e', 4), customer('f', 20)];
		expect(splitBursts(run, caps({ maxMessages: 2 })).map(ids)).toEqual([['a', 'b'], ['c', 'd'], ['e'], ['f']]);
		expect(splitBursts(run, caps({ endWords: ['thanks'] })).map(ids)).toEqual([['a', 'b', 'c', 'd'], ['e'], ['f']]);
	});

	test('the decision: an open burst continues from its last message; it says why the burst ended', () => {
		const latest = every2s(24);
		const withCap = caps({ maxWaitMs: 20_000 });
		const byId = (id: string) => latest.find((message) => message.id === id)!;
		const capped = decide(byId('m20'), latest, withCap);
		expect(capped).toMatchObject({ kind: 'continue', endedBy: 'maxWait' });
		// The candidates reach back to the last outbound message: the ledger drops the ones an earlier burst claimed.
		expect(capped.kind === 'continue' && ids(capped.candidates)).toEqual(ids([...latest].reverse().slice(0, 11)));
		// The next burst is still open (nothing after m24): m22 leaves it to m24, whose hold says why it ended.
		expect(decide(byId('m22'), latest, withCap)).toEqual({ kind: 'newer', newerId: 'm24' });
		expect(decide(byId('m24'), latest, withCap)).toMatchObject({ kind: 'continue', endedBy: undefined });
		expect(decide(byId('m22'), latest, withCap, 'maxWait')).toMatchObject({ kind: 'continue', endedBy: 'maxWait' });
	});

	test('a complete burst continues from whichever of its messages’ executions claims it first, up to its last message', () => {
		// m18's execution may be the only one of its burst (m20's delivery held into another process's burst).
		const latest = every2s(24);
		const decision = decide(latest.find((message) => message.id === 'm18')!, latest, caps({ maxWaitMs: 20_000 }));
		expect(decision).toMatchObject({ kind: 'continue', endedBy: 'maxWait' });
		expect(decision.kind === 'continue' && ids(decision.candidates).at(-1)).toBe('m20');
	});

	test('a message written just before the cap belongs to the capped burst, which it continues on its own when it arrives after the cap', () => {
		const straggler = customer('m19_5', 19.5);
		const latest = [customer('m20', 20), straggler, ...every2s(18)];
		expect(decide(straggler, latest, caps({ maxWaitMs: 20_000 }))).toEqual({ kind: 'newer', newerId: 'm20' });
		// Its hold knew the cap had fired: the ledger gives it whatever m20's execution did not claim.
		const late = decide(straggler, latest, caps({ maxWaitMs: 20_000 }), 'maxWait');
		expect(late.kind === 'continue' && ids(late.candidates).slice(-2)).toEqual(['m19_5', 'm20']);
	});

	test('without caps the decision is today’s: any newer customer message of its run ends the execution', () => {
		const latest = [customer('b', 40), customer('a', 0)];
		expect(decide(latest[1], latest)).toEqual({ kind: 'newer', newerId: 'b' });
		expect(decide(latest[1], latest, caps({}))).toEqual({ kind: 'newer', newerId: 'b' });
	});

	test('a reply ends the run with or without caps: the message before it continues, ended by the reply', () => {
		const latest = [customer('b', 40), agent('o', 30), customer('a', 0)];
		for (const withCaps of [undefined, caps({}), caps({ maxWaitMs: 20_000 })]) {
			expect(decide(latest[2], latest, withCaps)).toEqual({ kind: 'continue', candidates: [latest[2]], endedBy: 'reply', earlier: [] });
		}
	});
});

describe('what an execution continues', () => {
	// A test execution claims nothing in the ledger: every candidate is its own.
	const manual = { getMode: () => 'manual' } as unknown as import('n8n-workflow').IExecuteFunctions;
	const run = (count: number) => Array.from({ length: count }, (_, index) => customer(`m${index + 1}`, index * 0.1)).reverse();

	test('a complete burst that no execution of its own continued goes out as its own item, before this execution’s burst, each within Max Messages', async () => {
		// m6's delivery overtook m5's: m6's hold counted five and ended; m5's delivery was then held into m6's burst.
		const latest = run(10);
		const m6 = latest.find((message) => message.id === 'm6')!;
		const outcome = await answerBurst(manual, m6, latest, 5, caps({ maxMessages: 5 }), { waitedMs: 0, capLeftMs: 0, endedBy: 'maxMessages' });
		expect('bursts' in outcome && outcome.bursts.map((burst) => [ids(burst.messages), burst.endedBy])).toEqual([
			[['m1', 'm2', 'm3', 'm4', 'm5'], 'maxMessages'],
			[['m6', 'm7', 'm8', 'm9', 'm10'], 'maxMessages'],
		]);
	});

	test('without caps, one burst as before', async () => {
		const latest = run(7);
		const outcome = await answerBurst(manual, latest[0], latest, 5);
		expect('bursts' in outcome && outcome.bursts.map((burst) => [burst.count, burst.endedBy])).toEqual([[7, 'quietPeriod']]);
	});
});

describe('End Words', () => {
	const words = (...list: string[]) => list.map(normaliseEndWord);
	const ends = (content: string, list: string[]) => endsWithEndWord({ content }, words(...list));

	test.each([
		['OK THANKS', ['thanks']],
		['ok thanks!!', ['thanks']],
		['  Thanks  ', ['thanks']],
		["That's all.", ["that's all"]],
		['Is it broken?', ['?']],
		['Спасибо', ['СПАСИБО']],
		['ΕΥΧΑΡΙΣΤΏ', ['ευχαριστώ']],
		['はい、ありがとう', ['ありがとう']],
		['好的谢谢', ['谢谢']],
		['great 👍', ['👍']],
		['شكرا', ['شكرا']],
		['Danke schön', ['DANKE SCHÖN']],
	])('%p ends with one of %p', (content, list) => {
		expect(ends(content, list)).toBe(true);
	});

	test.each([
		['nothanks', ['thanks']],
		['thanks, and one more thing', ['thanks']],
		['is it? no', ['?']],
		['👍 great', ['👍']],
	])('%p does not end with one of %p', (content, list) => {
		expect(ends(content, list)).toBe(false);
	});

	test('composed and decomposed accents are the same word', () => {
		expect(ends('merci, c’est tout'.normalize('NFD'), ['c’est tout'.normalize('NFC')])).toBe(true);
		expect(ends('Café', ['cafe\u0301'])).toBe(true);
	});
});

// --- the hold, in the process that receives the deliveries ---

let conversation = 0;
const holdCaps = (extra: Partial<BurstCaps>): BurstCaps => ({ quietMs: 1000, ...extra });
const heldMessage = (conversationId: string, id: string, content = id, createdAt = new Date()) => ({
	id,
	conversation_id: conversationId,
	from_customer: true,
	created_at: createdAt.toISOString(),
	content,
});
const far = () => Date.now() + 60_000;

describe('the hold with caps', () => {
	test('Max Wait ends a held burst at the cap, without waiting out the quiet period; the next message starts another burst', async () => {
		const conv = `conv_${++conversation}`;
		const capsHere = holdCaps({ quietMs: 4000, maxWaitMs: 1500 });
		const first = holdForQuiet('t', heldMessage(conv, 'm1'), capsHere, far());
		await pause(500);
		const second = holdForQuiet('t', heldMessage(conv, 'm2'), capsHere, far());
		expect(await first).toEqual({ newerId: 'm2' });
		const capped = await second;
		expect(capped).toMatchObject({ capLeftMs: 0, endedBy: 'maxWait' });
		const third = await holdForQuiet('t', heldMessage(conv, 'm3', 'm3', new Date(Date.now() + 2000)), holdCaps({ quietMs: 200, maxWaitMs: 1500 }), far());
		expect(third).not.toHaveProperty('endedBy');
	});

	test('a message written before the cap that arrives after it fired ends at once, as the last of that burst', async () => {
		const conv = `conv_${++conversation}`;
		const capsHere = holdCaps({ quietMs: 4000, maxWaitMs: 500 });
		const written = new Date();
		expect(await holdForQuiet('t', heldMessage(conv, 'm1', 'm1', written), capsHere, far())).toMatchObject({ endedBy: 'maxWait' });
		const straggler = await holdForQuiet('t', heldMessage(conv, 'm2', 'm2', new Date(written.getTime() + 400)), capsHere, far());
		expect(straggler).toMatchObject({ capLeftMs: 0, endedBy: 'maxWait' });
	});

	test('Max Messages and an End Word end the burst on arrival; a copy of that message ends the same way', async () => {
		const conv = `conv_${++conversation}`;
		const capsHere = holdCaps({ quietMs: 5000, maxMessages: 2, endWords: ['thanks'] });
		const first = holdForQuiet('t', heldMessage(conv, 'm1'), capsHere, far());
		expect(await holdForQuiet('t', heldMessage(conv, 'm2'), capsHere, far())).toMatchObject({ capLeftMs: 0, endedBy: 'maxMessages' });
		expect(await first).toEqual({ newerId: 'm2' });
		expect(await holdForQuiet('t', heldMessage(conv, 'm2'), capsHere, far())).toMatchObject({ endedBy: 'maxMessages' });
		expect(await holdForQuiet('t', heldMessage(conv, 'm3', 'Great, THANKS!'), capsHere, far())).toMatchObject({ endedBy: 'endWord' });
	});

	test('without caps the hold is today’s: the quiet period, then the execution', async () => {
		const conv = `conv_${++conversation}`;
		expect(await holdForQuiet('t', heldMessage(conv, 'm1'), holdCaps({ quietMs: 200 }), far())).toEqual({ waitedMs: expect.any(Number) });
	});
});

// --- the options' validation ---

const node = { name: 'Omnichannel Trigger' } as INode;

describe('validation of the caps', () => {
	test.each([
		[{ burstQuietSeconds: 10, burstMaxWaitSeconds: 5 }, /'Burst Max Wait \(Seconds\)' is shorter than the quiet period of 'Answer a Burst Once' \(10 seconds\)/, '5'],
		[{ burstQuietSeconds: 5, burstMaxWaitSeconds: 3601 }, /'Burst Max Wait \(Seconds\)' needs a number of seconds above 0 and at most 3600/, '3601'],
		[{ burstQuietSeconds: 5, burstMaxWaitSeconds: 0 }, /'Burst Max Wait \(Seconds\)' needs a number of seconds/, '0'],
		[{ burstMaxWaitSeconds: 30 }, /'Burst Max Wait \(Seconds\)' works with 'Answer a Burst Once'/, '30'],
		[{ burstQuietSeconds: 5, burstMaxMessages: 0 }, /'Burst Max Messages' needs a whole number from 1 to 100/, '0'],
		[{ burstQuietSeconds: 5, burstMaxMessages: 2.5 }, /'Burst Max Messages' needs a whole number from 1 to 100/, '2.5'],
		[{ burstQuietSeconds: 5, burstEndWords: 'thanks, ,bye' }, /'Burst End Words' has an empty word between its commas/, '"thanks, ,bye"'],
		[{ burstQuietSeconds: 5, burstEndWords: 'thanks,' }, /'Burst End Words' has an empty word between its commas/, '"thanks,"'],
	])('%p is refused, naming the option and the value', (options, message, value) => {
		const read = () => {
			maxWaitSecondsOf(node, options);
			maxMessagesOf(node, options);
			endWordsOf(node, options);
		};
		expect(read).toThrow(message);
		try {
			read();
		} catch (error) {
			expect((error as { description?: string }).description).toContain(`The option's value is ${value}.`);
		}
	});

	test('good values, and what is off', () => {
		const options = { burstQuietSeconds: 5, burstMaxWaitSeconds: 5, burstMaxMessages: 1, burstEndWords: " Thanks , that's all,?, 👍 " };
		expect(maxWaitSecondsOf(node, options)).toBe(5);
		expect(maxMessagesOf(node, options)).toBe(1);
		expect(endWordsOf(node, options)).toEqual(['thanks', "that's all", '?', '👍']);
		expect(endWordsOf(node, { burstQuietSeconds: 5, burstEndWords: '  ' })).toBeUndefined();
		expect(capsIn({}, 5)).toEqual({ quietMs: 5000, maxWaitMs: undefined, maxMessages: undefined, endWords: undefined });
	});
});

// --- the whole step, in the trigger host against the sandbox ---

const suite = useTriggerHosts({ seed: 'empty', clearFaults: true });

const capParameters = (options: IDataObject): INodeParameters => ({
	events: ['message.created'],
	options: { burstQuietSeconds: 1, directions: ['customer'], ...options },
});

type ItemBurst = { text: string; messages: IDataObject[]; count: number; endedBy: string; beganAt: string; endedAt: string };
const burstOf = (json: IDataObject) => json.burst as ItemBurst;
const inbound = async (world: World, text: string) => await inboundIn(suite.sb, world, text);

/** Waits until the continued bursts hold `sent` messages, then a little longer, for a second continuation to show. */
async function continuedAll(host: TriggerHost, sent: IDataObject[]): Promise<ItemBurst[]> {
	const count = () => host.executions.reduce((total, { json }) => total + burstOf(json).count, 0);
	await waitFor('every message in a continued burst', () => (count() >= sent.length ? true : undefined), 20_000);
	await pause(2500);
	return host.executions.map(({ json }) => burstOf(json));
}

/** Every sent message in exactly one continued burst, in order. */
function expectExactlyOnceInOrder(bursts: ItemBurst[], sent: IDataObject[]): void {
	expect(bursts.flatMap((burst) => ids(burst.messages))).toEqual(ids(sent));
}

describe('capped bursts through the trigger', () => {
	test('Max Wait: a customer who keeps writing is answered before they stop, every message once, in order', async () => {
		const world = await newWorld(suite.sb);
		const host = await suite.activeHost(world.key, capParameters({ burstQuietSeconds: 1, burstMaxWaitSeconds: 2 }));
		await control(suite.sb, 'DELETE', '/stats');
		const sent: IDataObject[] = [];
		for (let index = 0; index < 8; index++) {
			if (index > 0) await pause(300);
			sent.push(await inbound(world, `line ${index}`));
		}
		const bursts = await continuedAll(host, sent);
		expect(host.failedExecutions).toEqual([]);
		expectExactlyOnceInOrder(bursts, sent);
		expect(bursts.length).toBeGreaterThanOrEqual(2);
		expect(bursts[0].endedBy).toBe('maxWait');
		expect(bursts.at(-1)!.endedBy).toBe('quietPeriod');
		for (const burst of bursts) expect(burst.beganAt).toBe(burst.messages[0].created_at);
		// One read of the conversation per execution: the continued ones and those that ended in a burst.
		const reads = (await stats(suite.sb)).by_route['GET /messages'] ?? 0;
		expect(reads).toBe(host.executions.length + host.duplicateExecutions.length);
	});

	test('Max Messages: seven messages, a limit of three: bursts of at most three, every message once, in order', async () => {
		const world = await newWorld(suite.sb);
		const host = await suite.activeHost(world.key, capParameters({ burstQuietSeconds: 3, burstMaxMessages: 3 }));
		const sent: IDataObject[] = [];
		for (let index = 0; index < 7; index++) sent.push(await inbound(world, `part ${index}`));
		const bursts = await continuedAll(host, sent);
		expect(host.failedExecutions).toEqual([]);
		expectExactlyOnceInOrder(bursts, sent);
		expect(bursts.map((burst) => burst.count)).toEqual([3, 3, 1]);
		expect(bursts.slice(0, 2).map((burst) => burst.endedBy)).toEqual(['maxMessages', 'maxMessages']);
		// Not asserted: the last one's endedBy. It is 'quietPeriod' when the deliveries arrive in order; when the sandbox's concurrent deliveries bring the 7th before the 6th, the hold counts three and ends it at once, and its item says so ('maxMessages').

	});

	test('an End Word ends the burst at once, in another case and script', async () => {
		const world = await newWorld(suite.sb);
		const host = await suite.activeHost(world.key, capParameters({ burstQuietSeconds: 60, burstEndWords: 'спасибо, 👍' }));
		const sent = [await inbound(world, 'Мой заказ 1234 пришёл разбитым'), await inbound(world, 'СПАСИБО!')];
		const bursts = await continuedAll(host, sent);
		expectExactlyOnceInOrder(bursts, sent);
		// Continued long before the 60 s quiet period: the End Word ended it.
		expect(bursts).toMatchObject([{ endedBy: 'endWord', count: 2 }]);
	});

	test('duplicate deliveries reaching two processes: every message still in exactly one continued burst, in order', async () => {
		const world = await newWorld(suite.sb);
		const host = await suite.activeHost(world.key, capParameters({ burstQuietSeconds: 2, burstMaxMessages: 2 }), { processes: 2 });
		host.route = (requestNumber) => requestNumber % 2;
		await control(suite.sb, 'PUT', '/faults', { webhook_duplicate_rate: 1 });
		const sent: IDataObject[] = [];
		for (let index = 0; index < 6; index++) sent.push(await inbound(world, `d${index}`));
		const bursts = await continuedAll(host, sent);
		await control(suite.sb, 'DELETE', '/faults');
		expect(host.failedExecutions).toEqual([]);
		expectExactlyOnceInOrder(bursts, sent);
		// Not asserted: each burst's size. Each process counts the deliveries it received; a burst whose every delivery was held into another burst is continued by the next one (docs/trigger.md).
	});

	test('a restart in the middle of a capped burst: the new process holds what follows; every message once, in order, no burst above Max Messages', async () => {
		const world = await newWorld(suite.sb);
		const host = await suite.activeHost(world.key, capParameters({ burstQuietSeconds: 2, burstMaxMessages: 3 }));
		const sent = [await inbound(world, 'r1'), await inbound(world, 'r2')];
		// The process's memory (the held burst, its count) is gone; the ledger in the database stays.
		host.restart();
		for (const text of ['r3', 'r4', 'r5', 'r6', 'r7']) sent.push(await inbound(world, text));
		const bursts = await continuedAll(host, sent);
		expect(host.failedExecutions).toEqual([]);
		expectExactlyOnceInOrder(bursts, sent);
		for (const burst of bursts) expect(burst.count).toBeLessThanOrEqual(3);
	});

	test('publishing with a bad cap fails, naming the option and the value, and registers nothing', async () => {
		const world = await newWorld(suite.sb);
		const host = suite.newHost(world.key, capParameters({ burstQuietSeconds: 10, burstMaxWaitSeconds: 5 }));
		await host.listen();
		await expect(host.activate()).rejects.toThrow(/'Burst Max Wait \(Seconds\)' is shorter than the quiet period/);
		expect((await api(suite.sb, 'GET', '/webhooks', undefined, world.key)).data).toEqual([]);
	});
});

// --- a busy n8n, as the burst-cap bench's queue mode had it ---

describe('deliveries late, re-delivered and split between two processes', () => {
	test('with a reply among them: every item has its burst, and every customer message is in exactly one, in order', async () => {
		const world = await newWorld(suite.sb);
		const host = await suite.activeHost(world.key, capParameters({ burstQuietSeconds: 1, burstMaxWaitSeconds: 2 }), { processes: 2 });
		// The webhook process and main, in turn; half the deliveries sent twice.
		host.route = (requestNumber) => requestNumber % 2;
		await control(suite.sb, 'PUT', '/faults', { webhook_duplicate_rate: 0.5, retry_schedule_ms: [300, 600, 1200] });
		// Each request waits 0 to 2.5 s before n8n runs the node (a queue in a busy process); two wait past the sender's 10 s, which gives up and delivers again.
		// BUSY_SEED=<n> runs another schedule of the same load.
		let seed = Number(process.env.BUSY_SEED ?? 7);
		let requests = 0;
		host.beforeNode = async () => {
			seed = (seed * 48271) % 2147483647;
			const number = requests++;
			await pause(number === 4 || number === 11 ? 10_500 : seed % 2500);
		};
		// And its execution starts 0 to 2 s after the delivery's hold (a queue before the workers).
		host.beforeSave = async () => {
			seed = (seed * 48271) % 2147483647;
			await pause(seed % 2000);
		};
		const sent: IDataObject[] = [];
		for (let index = 0; index < 14; index++) {
			if (index > 0) await pause(250);
			sent.push(await inbound(world, `busy ${index}`));
			// An answer lands while the customer writes on.
			if (index === 6) await replyIn(suite.sb, world, 'An answer on its way');
		}
		const answered = () => host.answers.length + host.failedExecutions.length;
		let quietSince = Date.now();
		let last = -1;
		await waitFor(
			'every delivery answered, and nothing new for 3 s',
			() => {
				if (answered() !== last || host.received.length !== answered()) {
					last = answered();
					quietSince = Date.now();
				}
				return Date.now() - quietSince > 3000 ? true : undefined;
			},
			40_000,
		);
		await control(suite.sb, 'DELETE', '/faults');

		expect(host.failedExecutions).toEqual([]);
		expect(host.executions.filter(({ json }) => !Array.isArray((json.burst as IDataObject | undefined)?.messages)).map(({ json }) => json)).toEqual([]);
		const continued = host.executions.flatMap(({ json }) => ids(burstOf(json).messages));
		expect([...continued].sort()).toEqual(ids(sent).sort());
		for (const { json } of host.executions) expect(ids(burstOf(json).messages)).toEqual(ids(sent).filter((id) => ids(burstOf(json).messages).includes(id)));
	}, 60_000);
});
