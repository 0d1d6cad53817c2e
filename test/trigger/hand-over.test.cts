/**
 * Step Aside for a Person after a hand-over (Conversation > Hand Over to a
 * Person), through the trigger host against the sandbox: after the
 * hand-over's sends, customer messages do not continue until a person has
 * written and the period has passed after their last message, each with a
 * hint saying since when and until when; with no person within the
 * Hand-Over Limit the bot answers again and the item says the hand-over
 * expired; the hand-over adds no read of the conversation; the limit's
 * validation. The decision itself, on lists written by hand:
 * test/shared/hand-over.test.cts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { handOverKey } from '../../nodes/shared/handOverToPerson';
import type { TriggerHost } from '../support/host/trigger.cjs';
import { api, control, pause, stats, waitFor } from '../support/sandbox.cjs';
import { useTriggerHosts } from '../support/suite.cjs';
import { inbound, newPerson, newWorld, ownSend, reply } from '../support/world.cjs';
import type { World } from '../support/world.cjs';

/** Three seconds of Step Aside. */
const MINUTES = 0.05;
const PERIOD_MS = MINUTES * 60_000;
/** Six seconds. */
const LIMIT_HOURS = 6 / 3600;
const WAITING = /^Message msg_\w+: the conversation was handed over to a person at \S+ and no person of the workspace has written since, so the workflow stays quiet until a person has answered and 0\.05 minutes have passed after their last message, or until \S+ if no person answers \(Hand-Over Limit, [\d.]+ hours\)\. This execution ran nothing downstream\.$/;
const ANSWERED = /^Message msg_\w+: the conversation was handed over to a person at \S+, and a person of the workspace \(usr_\w+\) wrote at \S+, so the workflow steps aside until \S+\. This execution ran nothing downstream\.$/;

const suite = useTriggerHosts({ seed: 'empty' });

const parameters = (options: IDataObject = {}): INodeParameters => ({
	events: ['message.created'],
	options: { directions: ['customer'], stepAsideMinutes: MINUTES, ...options },
});

const activeHost = async (world: World, nodeParameters: INodeParameters): Promise<TriggerHost> => await suite.activeHost(world.key, nodeParameters);

async function settled(host: TriggerHost, count: number): Promise<void> {
	await waitFor(
		`${count} executions`,
		() => (host.executions.length + host.duplicateExecutions.length + host.failedExecutions.length >= count ? true : undefined),
		15_000,
	);
}

const hintsOf = (host: TriggerHost) => host.duplicateExecutions.flatMap((ended) => ended.hints);
const idOf = (json: IDataObject) => (json.data as IDataObject).id;
const time = (message: IDataObject) => Date.parse(String(message.created_at));
const EPISODE = '0123456789abcdef';

/** The two sends of a hand-over, as the operation makes them. */
async function handOver(world: World, limitSeconds?: number): Promise<IDataObject> {
	const message = await reply(suite.sb, world, 'A colleague will answer you here shortly.', { client_request_id: handOverKey('message', EPISODE, limitSeconds) });
	await reply(suite.sb, world, 'Handed over to a person by the bot. Reason: angry', { client_request_id: handOverKey('note', EPISODE, limitSeconds), as_system: true });
	return message;
}

test('after a hand-over: three customer messages wait, with hints; a person writes; after the period the bot answers again; no extra read', async () => {
	const world = await newWorld(suite.sb);
	const person = await newPerson(suite.sb, world);
	const host = await activeHost(world, parameters());

	const first = await inbound(suite.sb, world, 'I want a human');
	await settled(host, 1);
	await ownSend(suite.sb, world, 'Bot: let me see');
	const handedOver = await handOver(world);
	await control(suite.sb, 'DELETE', '/stats');
	const held = [];
	for (const text of ['hello?', 'anyone?', 'please']) held.push(await inbound(suite.sb, world, text));
	await settled(host, 4);
	const readsWhileHandedOver = (await stats(suite.sb)).by_route['GET /messages'] ?? 0;
	const taken = await reply(suite.sb, world, 'Priya here', { from_user_id: person });
	const during = await inbound(suite.sb, world, 'thanks');
	await settled(host, 5);
	await pause(Math.max(0, time(taken) + PERIOD_MS + 100 - Date.now()));
	const later = await inbound(suite.sb, world, 'back again');
	await settled(host, 6);

	console.log(JSON.stringify({ suite: 'trigger hand-over', continued: host.executions.length, waited: hintsOf(host).length, readsPerCustomerMessage: readsWhileHandedOver / 3 }));
	expect(host.failedExecutions).toEqual([]);
	expect(host.executions.map(({ json }) => idOf(json))).toEqual([first.id, later.id]);
	expect(host.duplicateExecutions.map(({ json }) => idOf(json))).toEqual([...held, during].map((message) => message.id));
	expect(hintsOf(host)).toEqual([...held.map(() => expect.stringMatching(WAITING)), expect.stringMatching(ANSWERED)]);
	expect(hintsOf(host)[0]).toContain(`handed over to a person at ${String(handedOver.created_at)}`);
	expect(hintsOf(host)[0]).toContain(`or until ${new Date(time(handedOver) + 24 * 3_600_000).toISOString()} if no person answers`);
	expect(hintsOf(host)[3]).toContain(`(${person}) wrote at ${String(taken.created_at)}`);
	// The trigger's one read per customer message serves the hand-over.
	expect(readsWhileHandedOver).toBe(3);
	expect(host.executions[1].json.handOver).toBeUndefined();
});

test('no person within the Hand-Over Limit: the bot answers again and the item says the hand-over expired, until the bot has answered', async () => {
	const world = await newWorld(suite.sb);
	const host = await activeHost(world, parameters({ handOverLimitHours: LIMIT_HOURS }));
	const handedOver = await handOver(world);
	const held = await inbound(suite.sb, world, 'hello?');
	await settled(host, 1);
	await pause(Math.max(0, time(handedOver) + LIMIT_HOURS * 3_600_000 + 100 - Date.now()));
	const later = await inbound(suite.sb, world, 'anybody?');
	await settled(host, 2);
	await ownSend(suite.sb, world, 'Bot: sorry, I am back');
	const after = await inbound(suite.sb, world, 'ok');
	await settled(host, 3);

	expect(host.duplicateExecutions.map(({ json }) => idOf(json))).toEqual([held.id]);
	expect(host.executions.map(({ json }) => idOf(json))).toEqual([later.id, after.id]);
	expect(host.executions[0].json.handOver).toEqual({
		expired: true,
		since: handedOver.created_at,
		expiredAt: new Date(time(handedOver) + LIMIT_HOURS * 3_600_000).toISOString(),
		limitHours: LIMIT_HOURS,
	});
	expect(host.executions[1].json.handOver).toBeUndefined();
});

test("a hand-over's own limit wins over the trigger's", async () => {
	const world = await newWorld(suite.sb);
	const host = await activeHost(world, parameters({ handOverLimitHours: 100 }));
	const handedOver = await handOver(world, 3);
	await pause(Math.max(0, time(handedOver) + 3100 - Date.now()));
	const later = await inbound(suite.sb, world, 'anybody?');
	await settled(host, 1);
	expect(host.executions.map(({ json }) => idOf(json))).toEqual([later.id]);
	expect(host.executions[0].json.handOver).toMatchObject({ expired: true, limitHours: 3 / 3600 });
});

test('without Step Aside, a hand-over changes nothing and the conversation is not read', async () => {
	const world = await newWorld(suite.sb);
	const host = await activeHost(world, { events: ['message.created'], options: { directions: ['customer'], handOverLimitHours: 1 } });
	await handOver(world);
	await control(suite.sb, 'DELETE', '/stats');
	await inbound(suite.sb, world, 'hello');
	await settled(host, 1);
	expect(host.executions).toHaveLength(1);
	expect((await stats(suite.sb)).by_route['GET /messages'] ?? 0).toBe(0);
});

test.each([0, -1, null, 'soon', 169])('publishing with a Hand-Over Limit of %p fails, naming the option, and registers nothing', async (value) => {
	const world = await newWorld(suite.sb);
	const host = await suite.listeningHost(world.key, parameters({ handOverLimitHours: value }));
	await expect(host.activate()).rejects.toThrow(/'Hand-Over Limit \(Hours\)' needs a positive number of hours/);
	expect((await api(suite.sb, 'GET', '/webhooks', undefined, world.key)).data).toEqual([]);
});
