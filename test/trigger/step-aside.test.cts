/**
 * Step Aside for a Person, through the trigger host against the
 * sandbox: a person's message holds the bot back for the period (counted on
 * the service's clock), this package's own sends and System do not, the
 * bot answers again after the period, a person writing during a burst's
 * quiet period stops that burst's answer, and the option's validation at
 * publishing and at run time. The decision itself, on lists written by hand:
 * test/shared/conversation-readers.test.cts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { TriggerHost } from '../support/host/trigger.cjs';
import { api, control, pause, stats, waitFor } from '../support/sandbox.cjs';
import { useTriggerHosts } from '../support/suite.cjs';
import { inbound, newPerson, newWorld, ownSend, reply } from '../support/world.cjs';
import type { World } from '../support/world.cjs';

/** Three seconds: short enough to wait out, long enough for the messages written within it. */
const MINUTES = 0.05;
const PERIOD_MS = MINUTES * 60_000;
const QUIET_SECONDS = 1;
const STEPS_ASIDE = /^Message msg_\w+: a person of the workspace \(usr_\w+\) wrote in this conversation at \S+, so the workflow steps aside until \S+\. This execution ran nothing downstream\.$/;

const suite = useTriggerHosts({ seed: 'empty' });

const parameters = (options: IDataObject = {}): INodeParameters => ({
	events: ['message.created'],
	options: { directions: ['customer'], stepAsideMinutes: MINUTES, ...options },
});

const newHost = (world: World, nodeParameters: INodeParameters): TriggerHost => suite.newHost(world.key, nodeParameters);
const activeHost = async (world: World, nodeParameters: INodeParameters): Promise<TriggerHost> => await suite.activeHost(world.key, nodeParameters);

/** Waits until `count` customer messages in all have had their answer: an execution that finished its trigger step, or a hold into a newer message's burst. */
async function settled(host: TriggerHost, count: number): Promise<void> {
	await waitFor(
		`${count} executions or burst answers`,
		() => (host.executions.length + host.duplicateExecutions.length + host.failedExecutions.length + host.heldInBurst().length >= count ? true : undefined),
		15_000,
	);
}

const hintsOf = (host: TriggerHost) => host.duplicateExecutions.flatMap((ended) => ended.hints);
const idOf = (json: IDataObject) => (json.data as IDataObject).id;
const time = (message: IDataObject) => Date.parse(String(message.created_at));

/** Until the period after `message` has passed on the service's clock (the sandbox's is this machine's). */
async function pastPeriodAfter(message: IDataObject): Promise<void> {
	await pause(Math.max(0, time(message) + PERIOD_MS + 100 - Date.now()));
}

describe('a bot that steps aside', () => {
	test('a person writes: the next three customer messages do not continue, each with a hint; after the period the bot answers again', async () => {
		const world = await newWorld(suite.sb);
		const person = await newPerson(suite.sb, world);
		const host = await activeHost(world, parameters());

		const first = await inbound(suite.sb, world, 'Hi, my parcel is late');
		await settled(host, 1);
		const taken = await reply(suite.sb, world, 'Dana here, I am looking into it', { from_user_id: person });
		const held = [];
		for (const text of ['ok', 'thanks', 'any news?']) held.push(await inbound(suite.sb, world, text));
		await settled(host, 4);
		// The premise: every held message came within the period after the person's.
		for (const message of held) expect(time(message) - time(taken)).toBeLessThan(PERIOD_MS);
		await pastPeriodAfter(taken);
		const later = await inbound(suite.sb, world, 'hello again');
		await settled(host, 5);

		expect(host.failedExecutions).toEqual([]);
		expect(host.executions.map(({ json }) => idOf(json))).toEqual([first.id, later.id]);
		expect(host.duplicateExecutions.map(({ json }) => idOf(json))).toEqual(held.map((message) => message.id));
		expect(hintsOf(host)).toEqual(held.map(() => expect.stringMatching(STEPS_ASIDE)));
		expect(hintsOf(host)[0]).toContain(`(${person}) wrote in this conversation at ${String(taken.created_at)}`);
		expect(hintsOf(host)[0]).toContain(`until ${new Date(time(taken) + PERIOD_MS).toISOString()}`);
	});

	test("this package's own send and System do not make it step aside; a send through the API with the caller's own key does", async () => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, parameters());

		const own = await ownSend(suite.sb, world, 'Bot: how can I help?');
		await reply(suite.sb, world, 'Your ticket was opened', { as_system: true });
		const answered = await inbound(suite.sb, world, 'my parcel is late');
		await settled(host, 1);
		expect(time(answered) - time(own)).toBeLessThan(PERIOD_MS);
		// Attributed to the key's creator, with a key of the caller's own: a person (docs/trigger.md).
		await reply(suite.sb, world, 'Written by a CRM integration');
		const held = await inbound(suite.sb, world, 'hello?');
		await settled(host, 2);

		expect(host.failedExecutions).toEqual([]);
		expect(host.executions.map(({ json }) => idOf(json))).toEqual([answered.id]);
		expect(host.duplicateExecutions.map(({ json }) => idOf(json))).toEqual([held.id]);
	});

	test('with Answer a Burst Once: a person writing during the quiet period stops that burst; after the period the next burst is answered', async () => {
		const world = await newWorld(suite.sb);
		const person = await newPerson(suite.sb, world);
		const host = await activeHost(world, parameters({ burstQuietSeconds: QUIET_SECONDS }));

		await inbound(suite.sb, world, 'b1');
		await inbound(suite.sb, world, 'b2');
		// Within the quiet period: b2's delivery is still held, b1's was answered as part of b2's burst.
		const taken = await reply(suite.sb, world, 'Dana here', { from_user_id: person });
		await settled(host, 2);
		expect(host.executions).toEqual([]);
		expect(host.heldInBurst()).toHaveLength(1);
		// b2's execution reads the conversation after the person wrote: it steps aside, before any burst decision.
		expect(hintsOf(host)).toEqual([expect.stringMatching(STEPS_ASIDE)]);

		await pastPeriodAfter(taken);
		const later = await inbound(suite.sb, world, 'b3');
		await settled(host, 3);
		expect(host.failedExecutions).toEqual([]);
		expect(host.executions).toHaveLength(1);
		// The person's message ends the earlier customer messages: the burst is the new message alone.
		expect(host.executions[0].json).toMatchObject({ data: { id: later.id }, burst: { text: 'b3', count: 1 } });
	});

	test('off unless set: a person writing changes nothing, and the conversation is not read', async () => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, { events: ['message.created'], options: { directions: ['customer'] } });
		await reply(suite.sb, world, 'a person writes');
		await control(suite.sb, 'DELETE', '/stats');
		await inbound(suite.sb, world, 'hello');
		await settled(host, 1);
		expect(host.executions).toHaveLength(1);
		expect((await stats(suite.sb)).by_route['GET /messages'] ?? 0).toBe(0);
	});
});

describe('validation before any request', () => {
	test.each([0, -1, null, 'soon'])('publishing with a period of %p fails, naming the option, and registers nothing', async (value) => {
		const world = await newWorld(suite.sb);
		const host = newHost(world, parameters({ stepAsideMinutes: value }));
		await host.listen();
		await expect(host.activate()).rejects.toThrow(/'Step Aside for a Person' needs a positive number of minutes/);
		expect((await api(suite.sb, 'GET', '/webhooks', undefined, world.key)).data).toEqual([]);
	});

	test('a period that is not a positive number at run time fails the execution before reading the conversation', async () => {
		const world = await newWorld(suite.sb);
		const host = await activeHost(world, parameters());
		host.setParameters(parameters({ stepAsideMinutes: -5 }));
		await control(suite.sb, 'DELETE', '/stats');
		await inbound(suite.sb, world, 'hello');
		await settled(host, 1);
		expect(host.failedExecutions[0].error).toMatch(/'Step Aside for a Person' needs a positive number of minutes/);
		expect(host.executions).toEqual([]);
		expect((await stats(suite.sb)).by_route['GET /messages'] ?? 0).toBe(0);
	});
});
