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

import { TriggerHost, loadTriggerType } from '../support/host/trigger.cjs';
import { api, control, pause, startSandbox, stats, waitFor } from '../support/sandbox.cjs';
import type { Sandbox } from '../support/sandbox.cjs';
import { inbound, newPerson, newWorld, ownSend, reply } from '../support/world.cjs';
import type { World } from '../support/world.cjs';

/** Three seconds: short enough to wait out, long enough for the messages written within it. */
const MINUTES = 0.05;
const PERIOD_MS = MINUTES * 60_000;
const QUIET_SECONDS = 1;
const STEPS_ASIDE = /^Message msg_\w+: a person of the workspace \(usr_\w+\) wrote in this conversation at \S+, so the workflow steps aside until \S+\. This execution ran nothing downstream\.$/;

let sandbox: Sandbox;
const hosts: TriggerHost[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, seed: 'empty' });
});

afterAll(async () => {
	await Promise.all(hosts.map(async (host) => await host.close()));
	await sandbox.close();
});

const parameters = (options: IDataObject = {}): INodeParameters => ({
	events: ['message.created'],
	options: { directions: ['customer'], stepAsideMinutes: MINUTES, ...options },
});

function newHost(world: World, nodeParameters: INodeParameters): TriggerHost {
	const host = new TriggerHost({ credentials: { baseUrl: sandbox.base_url, apiKey: world.key }, parameters: nodeParameters, loadNodeType: loadTriggerType });
	hosts.push(host);
	return host;
}

async function activeHost(world: World, nodeParameters: INodeParameters): Promise<TriggerHost> {
	const host = newHost(world, nodeParameters);
	await host.listen();
	await host.activate();
	return host;
}

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
		const world = await newWorld(sandbox);
		const person = await newPerson(sandbox, world);
		const host = await activeHost(world, parameters());

		const first = await inbound(sandbox, world, 'Hi, my parcel is late');
		await settled(host, 1);
		const taken = await reply(sandbox, world, 'Dana here, I am looking into it', { from_user_id: person });
		const held = [];
		for (const text of ['ok', 'thanks', 'any news?']) held.push(await inbound(sandbox, world, text));
		await settled(host, 4);
		// The premise: every held message came within the period after the person's.
		for (const message of held) expect(time(message) - time(taken)).toBeLessThan(PERIOD_MS);
		await pastPeriodAfter(taken);
		const later = await inbound(sandbox, world, 'hello again');
		await settled(host, 5);

		expect(host.failedExecutions).toEqual([]);
		expect(host.executions.map(({ json }) => idOf(json))).toEqual([first.id, later.id]);
		expect(host.duplicateExecutions.map(({ json }) => idOf(json))).toEqual(held.map((message) => message.id));
		expect(hintsOf(host)).toEqual(held.map(() => expect.stringMatching(STEPS_ASIDE)));
		expect(hintsOf(host)[0]).toContain(`(${person}) wrote in this conversation at ${String(taken.created_at)}`);
		expect(hintsOf(host)[0]).toContain(`until ${new Date(time(taken) + PERIOD_MS).toISOString()}`);
	});

	test("this package's own send and System do not make it step aside; a send through the API with the caller's own key does", async () => {
		const world = await newWorld(sandbox);
		const host = await activeHost(world, parameters());

		const own = await ownSend(sandbox, world, 'Bot: how can I help?');
		await reply(sandbox, world, 'Your ticket was opened', { as_system: true });
		const answered = await inbound(sandbox, world, 'my parcel is late');
		await settled(host, 1);
		expect(time(answered) - time(own)).toBeLessThan(PERIOD_MS);
		// Attributed to the key's creator, with a key of the caller's own: a person (docs/trigger.md).
		await reply(sandbox, world, 'Written by a CRM integration');
		const held = await inbound(sandbox, world, 'hello?');
		await settled(host, 2);

		expect(host.failedExecutions).toEqual([]);
		expect(host.executions.map(({ json }) => idOf(json))).toEqual([answered.id]);
		expect(host.duplicateExecutions.map(({ json }) => idOf(json))).toEqual([held.id]);
	});

	test('with Answer a Burst Once: a person writing during the quiet period stops that burst; after the period the next burst is answered', async () => {
		const world = await newWorld(sandbox);
		const person = await newPerson(sandbox, world);
		const host = await activeHost(world, parameters({ burstQuietSeconds: QUIET_SECONDS }));

		await inbound(sandbox, world, 'b1');
		await inbound(sandbox, world, 'b2');
		// Within the quiet period: b2's delivery is still held, b1's was answered as part of b2's burst.
		const taken = await reply(sandbox, world, 'Dana here', { from_user_id: person });
		await settled(host, 2);
		expect(host.executions).toEqual([]);
		expect(host.heldInBurst()).toHaveLength(1);
		// b2's execution reads the conversation after the person wrote: it steps aside, before any burst decision.
		expect(hintsOf(host)).toEqual([expect.stringMatching(STEPS_ASIDE)]);

		await pastPeriodAfter(taken);
		const later = await inbound(sandbox, world, 'b3');
		await settled(host, 3);
		expect(host.failedExecutions).toEqual([]);
		expect(host.executions).toHaveLength(1);
		// The person's message ends the earlier customer messages: the burst is the new message alone.
		expect(host.executions[0].json).toMatchObject({ data: { id: later.id }, burst: { text: 'b3', count: 1 } });
	});

	test('off unless set: a person writing changes nothing, and the conversation is not read', async () => {
		const world = await newWorld(sandbox);
		const host = await activeHost(world, { events: ['message.created'], options: { directions: ['customer'] } });
		await reply(sandbox, world, 'a person writes');
		await control(sandbox, 'DELETE', '/stats');
		await inbound(sandbox, world, 'hello');
		await settled(host, 1);
		expect(host.executions).toHaveLength(1);
		expect((await stats(sandbox)).by_route['GET /messages'] ?? 0).toBe(0);
	});
});

describe('validation before any request', () => {
	test.each([0, -1, null, 'soon'])('publishing with a period of %p fails, naming the option, and registers nothing', async (value) => {
		const world = await newWorld(sandbox);
		const host = newHost(world, parameters({ stepAsideMinutes: value }));
		await host.listen();
		await expect(host.activate()).rejects.toThrow(/'Step Aside for a Person' needs a positive number of minutes/);
		expect((await api(sandbox, 'GET', '/webhooks', undefined, world.key)).data).toEqual([]);
	});

	test('a period that is not a positive number at run time fails the execution before reading the conversation', async () => {
		const world = await newWorld(sandbox);
		const host = await activeHost(world, parameters());
		host.setParameters(parameters({ stepAsideMinutes: -5 }));
		await control(sandbox, 'DELETE', '/stats');
		await inbound(sandbox, world, 'hello');
		await settled(host, 1);
		expect(host.failedExecutions[0].error).toMatch(/'Step Aside for a Person' needs a positive number of minutes/);
		expect(host.executions).toEqual([]);
		expect((await stats(sandbox)).by_route['GET /messages'] ?? 0).toBe(0);
	});
});
