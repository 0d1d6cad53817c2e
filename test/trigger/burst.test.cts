/**
 * Answer a Burst Once: the decision on a conversation's latest messages, the
 * option's validation at activation and at run time, and the whole step
 * through the trigger host against the sandbox (one continuation per burst,
 * no message in two continued bursts, duplicates and two "processes").
 */
import { randomBytes } from 'crypto';

import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { answerBurst, decide, quietSecondsOf, MAX_BURST_AGE_MS } from '../../nodes/OmnichannelTrigger/options/burst';
import { customerMessageStep } from '../../nodes/OmnichannelTrigger/step/customerMessage';
import type { BurstMessage } from '../../nodes/OmnichannelTrigger/options/burst';
import { ProcessedDataTable } from '../support/host/processed-data.cjs';
import type { TriggerHost } from '../support/host/trigger.cjs';
import { api, control, pause, stats, waitFor } from '../support/sandbox.cjs';
import { simulate, useSimulatedTime } from '../support/simulated-time.cjs';
import { useTriggerHosts } from '../support/suite.cjs';
import { inbound as inboundIn, newWorld, reply as replyIn } from '../support/world.cjs';
import type { World } from '../support/world.cjs';

const QUIET_SECONDS = 1;

// --- the decision, on lists written by hand (newest first, as the API orders them) ---

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, second)).toISOString();
const customer = (id: string, second: number): BurstMessage => ({ id, from_customer: true, created_at: at(second), content: id });
const agent = (id: string, second: number): BurstMessage => ({ id, from_customer: false, from_user_id: 'usr_1', created_at: at(second), content: id });
const ids = (messages: BurstMessage[]) => messages.map((message) => message.id);

describe('the burst decision', () => {
	const list = [customer('c3', 30), customer('c2', 20), agent('o1', 10), customer('c0', 5)];

	test('a newer customer message ends the execution: that message continues the burst', () => {
		expect(decide(list[1], list)).toEqual({ kind: 'newer', newerId: 'c3' });
	});

	test('the newest customer message continues with every customer message since the last outbound one, oldest first', () => {
		const decision = decide(list[0], list);
		expect(decision.kind).toBe('continue');
		expect(decision.kind === 'continue' && ids(decision.candidates)).toEqual(['c2', 'c3']);
	});

	test('an outbound message newer than the message (an earlier answer on its way) does not end the burst', () => {
		const withLateAnswer = [agent('o2', 40), ...list];
		const decision = decide(list[0], withLateAnswer);
		expect(decision.kind === 'continue' && ids(decision.candidates)).toEqual(['c2', 'c3']);
	});

	test('the event’s message is placed by the API’s order when the list does not hold it yet', () => {
		const decision = decide(customer('c4', 50), list);
		expect(decision.kind === 'continue' && ids(decision.candidates)).toEqual(['c2', 'c3', 'c4']);
		expect(decide(customer('c1', 25), list)).toEqual({ kind: 'newer', newerId: 'c3' });
	});

	test('a reply between two customer messages ends the earlier one’s burst: it continues, ended by the reply', () => {
		const withReply = [customer('c5', 50), agent('o2', 45), customer('c4', 40), ...list];
		const beforeReply = decide(withReply[2], withReply);
		expect(beforeReply).toMatchObject({ kind: 'continue', endedBy: 'reply', earlier: [] });
		expect(beforeReply.kind === 'continue' && ids(beforeReply.candidates)).toEqual(['c2', 'c3', 'c4']);
		// A reply after the newest customer message ends nothing yet: no customer message came after it.
		expect(decide(withReply[0], withReply)).toMatchObject({ kind: 'continue', earlier: [] });
		expect(decide(withReply[0], withReply)).not.toHaveProperty('endedBy', 'reply');
	});

	test('the runs a reply cut off from the burst its hold joined are continued by the burst’s last message, oldest first', () => {
		const list2 = [customer('c6', 60), agent('o3', 55), customer('c5', 50), agent('o2', 45), customer('c4', 40), customer('c3', 30), ...list.slice(1)];
		// c3's hold took c4, c5 and c6 into its burst: their deliveries started no execution of their own.
		const decision = decide(list2[0], list2, undefined, undefined, 'c3');
		expect(decision.kind === 'continue' && decision.earlier.map(ids)).toEqual([['c2', 'c3', 'c4'], ['c5']]);
		expect(decision.kind === 'continue' && ids(decision.candidates)).toEqual(['c6']);
		// The held first message is in the burst itself, or not in the list: nothing earlier.
		expect(decide(list2[0], list2, undefined, undefined, 'c6')).toMatchObject({ earlier: [] });
		expect(decide(list2[0], list2, undefined, undefined, 'gone')).toMatchObject({ earlier: [] });
	});

	test('a burst still open continues elsewhere, but the runs a reply cut off from the burst its hold joined go out here', async () => {
		const list3 = [customer('c6', 60), customer('c5', 50), agent('o2', 45), customer('c4', 40), agent('o1', 35)];
		// c5's delivery reached this process after c4's, which its hold took in; c6's reached another process.
		expect(decide(list3[1], list3, undefined, undefined, 'c4')).toEqual({ kind: 'newer', newerId: 'c6', earlier: [[list3[3]]] });
		const manual = { getMode: () => 'manual' } as unknown as import('n8n-workflow').IExecuteFunctions;
		const outcome = await answerBurst(manual, list3[1], list3, 1, undefined, { waitedMs: 1000, firstId: 'c4' });
		expect('bursts' in outcome && outcome.bursts.map((one) => [one.text, one.endedBy])).toEqual([['c4', 'reply']]);
		// Without a held first message: the newer message continues it, nothing goes out here.
		expect(await answerBurst(manual, list3[1], list3, 1, undefined, { waitedMs: 1000 })).toHaveProperty('hint');
	});

	test('customer messages older than the age bound are left out', () => {
		const newest = customer('late', 0);
		newest.created_at = new Date(Date.parse(at(0)) + MAX_BURST_AGE_MS + 1000).toISOString();
		const decision = decide(newest, [newest, customer('old', 0)]);
		expect(decision.kind === 'continue' && ids(decision.candidates)).toEqual(['late']);
	});
});

// --- the option's validation ---

const node = { name: 'Omnichannel Trigger' } as INode;

describe('the quiet period', () => {
	test.each([0, -5, 0.5, 61, '10', Number.NaN])('%p is refused with an error naming the option', (value) => {
		expect(() => quietSecondsOf(node, { burstQuietSeconds: value })).toThrow(
			/'Answer a Burst Once' needs a quiet period from 1 to 60 seconds/,
		);
	});

	test('absent means off; 1 to 60 are accepted', () => {
		expect(quietSecondsOf(node, {})).toBeUndefined();
		expect(quietSecondsOf(node, { burstQuietSeconds: 1 })).toBe(1);
		expect(quietSecondsOf(node, { burstQuietSeconds: 60 })).toBe(60);
	});
});

// --- the whole step, in the trigger host against the sandbox ---

const suite = useTriggerHosts({ seed: 'empty', clearFaults: true });

const burstParameters = (options: IDataObject = {}): INodeParameters => ({
	events: ['message.created'],
	options: { burstQuietSeconds: QUIET_SECONDS, directions: ['customer'], ...options },
});

const newHost = (world: World, parameters: INodeParameters): TriggerHost => suite.newHost(world.key, parameters);
const activeHost = async (world: World, parameters: INodeParameters, processes = 1): Promise<TriggerHost> =>
	await suite.activeHost(world.key, parameters, { processes });

const inbound = async (world: World, text: string) => await inboundIn(suite.sb, world, text);
const reply = async (world: World, text: string) => await replyIn(suite.sb, world, text);

/** Every customer message has had its answer: an execution (continued, or ended), or held into a newer message's burst. */
async function settled(host: TriggerHost, messages: number): Promise<void> {
	await waitFor('an execution or a burst answer per customer message', () =>
		host.executions.length + host.duplicateExecutions.length + host.failedExecutions.length + host.heldInBurst().length >= messages ? true : undefined,
	10_000);
	// Time for a late duplicate delivery's execution to show up.
	await pause(QUIET_SECONDS * 1000 + 500);
}

const burstOf = (json: IDataObject) => json.burst as { text: string; messages: IDataObject[]; count: number; quietSeconds: number };

describe('a burst through the trigger', () => {
	test('five customer messages within the quiet period: one execution, continued with the five texts in order; the other four deliveries are answered without one', async () => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, burstParameters());
		const texts = ['Hi', 'I ordered a lamp', 'order 1234', 'it arrived broken', 'what now?'];
		const sent: IDataObject[] = [];
		for (const text of texts) sent.push(await inbound(world, text));
		await settled(host, texts.length);

		expect(host.failedExecutions).toEqual([]);
		expect(host.executions).toHaveLength(1);
		const [{ json }] = host.executions;
		// The whole event of the burst's last message, plus the burst.
		expect(json).toMatchObject({ type: 'message.created', data: { id: sent[4].id, content: 'what now?' } });
		expect(burstOf(json)).toMatchObject({ text: texts.join('\n'), count: 5, quietSeconds: QUIET_SECONDS });
		expect(burstOf(json).messages.map((message) => message.id)).toEqual(sent.map((message) => message.id));
		// The quiet period was waited out where the deliveries arrived: the older four started no execution.
		expect(host.duplicateExecutions).toEqual([]);
		expect(host.heldInBurst().map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
	});

	test('Output Data Only: the message plus the burst', async () => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, burstParameters({ outputDataOnly: true }));
		const first = await inbound(world, 'one');
		const second = await inbound(world, 'two');
		await settled(host, 2);
		expect(host.executions).toHaveLength(1);
		const { json } = host.executions[0];
		expect(json).toMatchObject({ id: second.id, content: 'two', from_customer: true });
		expect(burstOf(json).messages.map((message) => message.id)).toEqual([first.id, second.id]);
		expect(burstOf(json).text).toBe('one\ntwo');
	});

	test('a message is never in two continued bursts, also when the workflow has not answered the first one yet', async () => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, burstParameters());
		await inbound(world, 'a1');
		await inbound(world, 'a2');
		await settled(host, 2);
		// No answer yet (an AI agent still thinking): the next burst starts.
		await inbound(world, 'b1');
		await inbound(world, 'b2');
		await settled(host, 4);
		// The answer to the first burst arrives while the third one is being collected.
		await inbound(world, 'c1');
		await reply(world, 'Answer to a1 and a2');
		await settled(host, 5);

		expect(host.failedExecutions).toEqual([]);
		expect(host.executions.map(({ json }) => burstOf(json).text)).toEqual(['a1\na2', 'b1\nb2', 'c1']);
		const continued = host.executions.flatMap(({ json }) => burstOf(json).messages.map((message) => message.id));
		expect(new Set(continued).size).toBe(continued.length);
	});

	/** A customer message, an outbound one (an earlier answer, or a person, while the customer is still typing), another customer message; each continued once, no execution failed. */
	async function aReplyBetweenTwoMessages(world: Awaited<ReturnType<typeof newWorld>>, host: Awaited<ReturnType<typeof activeHost>>) {
		const before = await inbound(world, 'before the reply');
		await reply(world, 'An answer on its way');
		const after = await inbound(world, 'after the reply');
		await settled(host, 2);
		expect(host.failedExecutions).toEqual([]);
		const continued = host.executions.flatMap(({ json }) => burstOf(json).messages.map((message) => message.id));
		expect(continued.sort()).toEqual([before.id, after.id].sort());
	}

	test.each([
		['without caps', {}],
		['with Max Wait and Max Messages', { burstMaxWaitSeconds: 10, burstMaxMessages: 5 }],
	])('a reply between two customer messages of one quiet period (%s): each message is continued once, in the burst its side of the reply makes', async (_, caps) => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, burstParameters(caps));
		await aReplyBetweenTwoMessages(world, host);
		expect(host.executions.map(({ json }) => burstOf(json).text)).toEqual(['before the reply', 'after the reply']);
		expect(host.executions.map(({ json }) => (json.burst as IDataObject).endedBy)).toEqual(['reply', 'quietPeriod']);
	});

	test.each([
		['while the newer one is held', QUIET_SECONDS * 500],
		['after the newer one’s execution started', QUIET_SECONDS * 1000 + 1000],
	])('a reply between two customer messages whose deliveries arrive the other way round (the older %s): each message is continued once', async (_, lateMs) => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, burstParameters());
		// The first message's delivery is late (a busy process, a retry): the newer one's reaches the process first.
		let requests = 0;
		host.beforeNode = async () => {
			if (requests++ === 0) await pause(lateMs);
		};
		await aReplyBetweenTwoMessages(world, host);
		expect(host.executions.map(({ json }) => [burstOf(json).text, (json.burst as IDataObject).endedBy]).sort()).toEqual([
			['after the reply', 'quietPeriod'],
			['before the reply', 'reply'],
		]);
	});

	test('other events pass as before: without a direction filter, a person’s message goes on as its plain event, without a burst', async () => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, burstParameters({ directions: [] }));
		const answer = await reply(world, 'A person writes');
		await waitFor('the reply’s execution', () => (host.executions.length > 0 ? true : undefined), 10_000);
		await pause(QUIET_SECONDS * 1000 + 500);

		expect(host.failedExecutions).toEqual([]);
		expect(host.executions).toHaveLength(1);
		expect(host.executions[0].json).toMatchObject({ type: 'message.created', data: { id: answer.id, from_customer: false } });
		expect(host.executions[0].json).not.toHaveProperty('burst');
	});

	test('duplicate deliveries reaching two processes change nothing', async () => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, burstParameters(), 2);
		host.route = (requestNumber) => requestNumber % 2;
		await control(suite.sb, 'PUT', '/faults', { webhook_duplicate_rate: 1 });
		const texts = ['d1', 'd2', 'd3', 'd4', 'd5'];
		for (const text of texts) await inbound(world, text);
		await settled(host, texts.length);
		await control(suite.sb, 'DELETE', '/faults');

		expect(host.failedExecutions).toEqual([]);
		expect(host.executions).toHaveLength(1);
		expect(burstOf(host.executions[0].json).text).toBe(texts.join('\n'));
		// Each process held its deliveries and started one execution for the newest message; the ledger ended the second.
		expect(host.executions.length + host.duplicateExecutions.length).toBeLessThanOrEqual(2);
	});
});

describe('validation before any request', () => {
	test('publishing with a quiet period out of range fails and registers nothing', async () => {
		const world = await newWorld(suite.sb);
		const host = newHost(world, burstParameters({ burstQuietSeconds: 0 }));
		await host.listen();
		await expect(host.activate()).rejects.toThrow(/'Answer a Burst Once' needs a quiet period from 1 to 60 seconds/);
		expect((await api(suite.sb, 'GET', '/webhooks', undefined, world.key)).data).toEqual([]);
	});

	test('manual registration without an API credential: publishing fails and says which credential', async () => {
		const world = await newWorld(suite.sb);
		const host = newHost(world, { ...burstParameters(), registration: 'manual' });
		host.useSigningSecret(`whsec_${randomBytes(24).toString('base64')}`);
		delete host.node.credentials!.omnichannelApi;
		await host.listen();
		await expect(host.activate()).rejects.toThrow(/'Answer a Burst Once' and 'Step Aside for a Person' need an Omnichannel API credential/);
	});

	test('a quiet period out of range at run time fails the execution before reading the conversation', async () => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, burstParameters());
		host.setParameters(burstParameters({ burstQuietSeconds: 120 }));
		await control(suite.sb, 'DELETE', '/stats');
		await inbound(world, 'hello');
		await waitFor('the failed execution', () => (host.failedExecutions.length > 0 ? true : undefined), 10_000);
		expect(host.failedExecutions[0].error).toMatch(/'Answer a Burst Once' needs a quiet period from 1 to 60 seconds/);
		expect(host.executions).toEqual([]);
		expect((await stats(suite.sb)).by_route['GET /messages'] ?? 0).toBe(0);
	});
});

describe('cancellation', () => {
	test('a cancelled execution stops waiting and reads nothing', async () => {
		const controller = new AbortController();
		const request = jest.fn();
		const context = {
			getNode: () => ({ ...node, credentials: { omnichannelApi: { id: 'c', name: 'c' } } }),
			getExecutionCancelSignal: () => controller.signal,
			helpers: { httpRequestWithAuthentication: request },
		} as unknown as import('n8n-workflow').IExecuteFunctions;
		const waiting = customerMessageStep(context, { ...customer('msg_1', 0), conversation_id: 'conv_1' }, { burstQuietSeconds: 60 }, 0);
		controller.abort();
		await expect(waiting).rejects.toThrow(/cancelled while it waited/);
		expect(request).not.toHaveBeenCalled();
	});
});

describe('claims in the ledger', () => {
	useSimulatedTime(Date.UTC(2026, 0, 1));

	test('overlapping claims from two processes at once: each message is claimed once', async () => await simulate(async () => {
		const table = new ProcessedDataTable(4);
		const load = () => {
			let module: typeof import('../../nodes/OmnichannelTrigger/common/eventsInDatabase') | undefined;
			jest.isolateModules(() => {
				module = require('../../nodes/OmnichannelTrigger/common/eventsInDatabase');
			});
			module!.setLockTiming({ staleMs: 30_000, confirmStaleMs: 3_000, renewMs: 50, giveUpMs: 20_000 });
			return module!;
		};
		const processes = [load(), load()];
		const helpers = table.helpers('wf1', 'node1');
		const owner = { workflowId: 'wf1', nodeId: 'node1' };
		const log = { warn: () => undefined };
		const claims = Array.from({ length: 20 }, (_, index) => Array.from({ length: 4 }, (__, k) => `burst:m${index + k}`));
		const verdicts = await Promise.all(claims.map(async (claim, index) => await processes[index % 2].recordIds(helpers, owner, claim, log)));
		const won = claims.flatMap((claim, index) => claim.filter((_, k) => verdicts[index][k] === 'first'));
		expect(won.sort()).toEqual([...new Set(claims.flat())].sort());
	}));
});
