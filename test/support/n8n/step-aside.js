'use strict';
// Step Aside for a Person in a real n8n, shared by the
// regular-mode and the queue-mode files: a workflow (the trigger with the
// option on one channel type, then a Send Text "bot: <text>" into the
// conversation, so the bot's answers are visible there), a person of the
// workspace writing through the API, and the scenarios, each summarised from
// the conversation (the bot's answers) and the executions' run data (the
// trigger's hints).
const { sleep, waitFor, workflows: w } = require('../../../harness');

const TRIGGER = 'On customer message';
const BOT = 'Bot answer';
const BOT_PREFIX = 'bot: ';
/** Twelve seconds: short enough to wait out, long enough for the messages a scenario writes within it. */
const MINUTES = 0.2;
const PERIOD_MS = MINUTES * 60_000;
/** The trigger's hint when it steps aside (nodes/OmnichannelTrigger/options/stepAside.ts). */
const STEPS_ASIDE = /^Message (msg_\w+): a person of the workspace \(usr_\w+\) wrote in this conversation at \S+, so the workflow steps aside until \S+\./;

/** The trigger with Step Aside (and Answer a Burst Once when `quietSeconds` is given), on `channel` only. */
function triggerOptions({ channel, minutes = MINUTES, quietSeconds, ...more }) {
	return {
		directions: ['customer'],
		channelTypes: [channel],
		stepAsideMinutes: minutes,
		...(quietSeconds === undefined ? {} : { burstQuietSeconds: quietSeconds }),
		...more,
	};
}

function stepAsideWorkflow({ id, credential, channel, minutes, quietSeconds }) {
	return w.workflow({
		id,
		name: `Step aside ${id}`,
		nodes: [
			w.omnichannelTrigger(TRIGGER, credential, { events: ['message.created'], options: triggerOptions({ channel, minutes, quietSeconds }) }),
			// Sent with the package's default key: the bot's own answer, which must not make it step aside.
			w.omnichannelNode(BOT, credential, {
				resource: 'message',
				operation: 'sendText',
				conversationId: w.byId('={{ $json.data.conversation_id }}'),
				text: `={{ '${BOT_PREFIX}' + ($json.burst ? $json.burst.text : $json.data.content) }}`,
			}),
		],
		connections: w.chain(TRIGGER, BOT),
	});
}

const time = (message) => Date.parse(message.created_at);

/** Talking in conversations of the sandbox: a customer, a person of the workspace, and reading back the bot's answers. */
function conversations(client) {
	const messages = async (conversationId) => await client.listAll('/messages', { conversation_id: conversationId });
	const botAnswers = async (conversationId) => (await messages(conversationId)).filter((m) => m.content.startsWith(BOT_PREFIX));
	return {
		messages,
		botAnswers,
		async newConversation(channelType) {
			const channel = (await client.listAll('/channels')).find((c) => c.type === channelType && c.is_active);
			return (await client.control('POST', '/conversations', { channel_id: channel.id })).id;
		},
		inbound: async (conversationId, text) => await client.control('POST', '/inbound', { conversation_id: conversationId, text }),
		async newPerson(name = 'Agent Dana') {
			return (await client.control('POST', '/users', { name })).id;
		},
		/** A person writes through the API, under their own user and with a key of the caller's own (not the package's n8n_ prefix). */
		async personWrites(conversationId, personId, text) {
			const body = { conversation_id: conversationId, text, from_user_id: personId, client_request_id: `person-${Date.now()}-${Math.random().toString(36).slice(2)}` };
			return (await client.api('POST', '/messages/text', body)).message;
		},
		/** The bot's answer whose text is `text`, once it is in the conversation. */
		botAnswer: async (conversationId, text) =>
			await waitFor(async () => (await botAnswers(conversationId)).find((m) => m.content === `${BOT_PREFIX}${text}`), {
				what: `the bot's answer to "${text}"`,
				timeoutMs: 60_000,
				intervalMs: 250,
			}),
	};
}

/** Until the period after `message` has passed on the service's clock (the sandbox's is this machine's). */
async function pastPeriodAfter(message, periodMs = PERIOD_MS) {
	await sleep(Math.max(0, time(message) + periodMs + 200 - Date.now()));
}

/**
 * What each execution of the workflow since `before` did with its message:
 * `continued` (message ids whose execution ran the bot), `steppedAside`
 * (message ids from the hints), `other`. Waits until `count` executions
 * have finished, then for `settleMs`, so a late one shows.
 */
async function executionsSince(n8n, workflowId, before, count, settleMs = 3000) {
	const fresh = async () => {
		const list = (await n8n.listExecutions({ workflowId })).filter((e) => !before.has(String(e.id)));
		return list.length >= count && list.every((e) => e.finished || e.stoppedAt) ? list : undefined;
	};
	await waitFor(fresh, { what: `${count} finished executions of ${workflowId}`, timeoutMs: 120_000, intervalMs: 1000 });
	await sleep(settleMs);
	const executions = await waitFor(fresh, { what: `every execution of ${workflowId} to finish`, timeoutMs: 60_000, intervalMs: 1000 });
	const result = { executions: executions.length, continued: [], steppedAside: [], failed: 0, other: [] };
	for (const execution of executions) {
		const { data, status } = await n8n.api.getExecution(execution.id);
		if (status !== 'success') {
			result.failed++;
			continue;
		}
		const runData = data.resultData.runData;
		const task = runData[TRIGGER][0];
		const items = task.data.main[0].map((item) => item.json);
		const hints = (task.hints ?? []).map((hint) => hint.message);
		const aside = hints.map((hint) => hint.match(STEPS_ASIDE)).find(Boolean);
		if (items.length > 0 && runData[BOT]) result.continued.push(items[0].data.id);
		else if (aside) result.steppedAside.push(aside[1]);
		else result.other.push({ id: execution.id, items: items.length, hints });
	}
	return result;
}

const executionIds = async (n8n, workflowId) => new Set((await n8n.listExecutions({ workflowId })).map((e) => String(e.id)));

/**
 * The bot answers, then answers the next customer message although its own
 * answer is within the period; a person writes; the next three customer
 * messages get no answer; after the period the bot answers again.
 */
async function personTakesOver({ n8n, client, workflowId, channel }) {
	const talk = conversations(client);
	const conversationId = await talk.newConversation(channel);
	const person = await talk.newPerson();
	const before = await executionIds(n8n, workflowId);

	const first = await talk.inbound(conversationId, 'Hi, my parcel is late');
	const firstAnswer = await talk.botAnswer(conversationId, first.content);
	const second = await talk.inbound(conversationId, 'Order 1234');
	await talk.botAnswer(conversationId, second.content);
	const taken = await talk.personWrites(conversationId, person, 'Dana here, I am looking into it');
	const held = [];
	for (const text of ['ok', 'thanks', 'any news?']) held.push(await talk.inbound(conversationId, text));
	const duringPeriod = await executionsSince(n8n, workflowId, before, 5);
	const answersWhileActive = (await talk.botAnswers(conversationId)).filter((m) => time(m) > time(taken)).length;
	await pastPeriodAfter(taken);
	const later = await talk.inbound(conversationId, 'Hello again?');
	await talk.botAnswer(conversationId, later.content);
	const all = await executionsSince(n8n, workflowId, before, 6);

	return {
		premises: {
			// The bot's own answer was within the period before the next customer message.
			ownAnswerWithinPeriod: time(second) - time(firstAnswer) < PERIOD_MS,
			heldWithinPeriod: held.every((m) => time(m) - time(taken) < PERIOD_MS),
			laterAfterPeriod: time(later) - time(taken) >= PERIOD_MS,
		},
		ids: { first: first.id, second: second.id, held: held.map((m) => m.id), later: later.id },
		duringPeriod,
		answersWhileActive,
		all,
		botAnswers: (await talk.botAnswers(conversationId)).map((m) => m.content),
	};
}

/**
 * With Answer a Burst Once: two customer messages, a person writes during
 * the quiet period; no answer. After the step-aside period a customer
 * message is answered, as a burst of its own.
 */
async function personTakesBurst({ n8n, client, workflowId, channel, quietSeconds }) {
	const talk = conversations(client);
	const conversationId = await talk.newConversation(channel);
	const person = await talk.newPerson();
	const before = await executionIds(n8n, workflowId);

	const burst = [await talk.inbound(conversationId, 'b1: hello'), await talk.inbound(conversationId, 'b2: my order')];
	const taken = await talk.personWrites(conversationId, person, 'Dana here');
	// b1's delivery is answered as part of b2's burst where both arrive: one execution, b2's.
	const duringPeriod = await executionsSince(n8n, workflowId, before, 1, quietSeconds * 1000 + 1000);
	const answersWhileActive = (await talk.botAnswers(conversationId)).length;
	await pastPeriodAfter(taken);
	const later = await talk.inbound(conversationId, 'b3: anyone?');
	await talk.botAnswer(conversationId, later.content);
	const all = await executionsSince(n8n, workflowId, before, 2, quietSeconds * 1000 + 1000);

	return {
		premises: {
			// The person wrote before the burst's quiet period ended.
			duringQuietPeriod: time(taken) - time(burst[1]) < quietSeconds * 1000,
			laterAfterPeriod: time(later) - time(taken) >= PERIOD_MS,
		},
		ids: { burst: burst.map((m) => m.id), later: later.id },
		duringPeriod,
		answersWhileActive,
		all,
		botAnswers: (await talk.botAnswers(conversationId)).map((m) => m.content),
	};
}

/** The counts of both scenarios, as one JSON line. */
function printCounts(mode, alone, burst, extra = {}) {
	const counts = {
		mode,
		periodMinutes: MINUTES,
		alone: {
			customerMessagesWhilePersonActive: alone.ids.held.length,
			botAnswersWhilePersonActive: alone.answersWhileActive,
			executionsSteppedAside: alone.duringPeriod.steppedAside.length,
			botAnsweredAfterOwnReply: alone.all.continued.includes(alone.ids.second),
			answersAfterPeriod: alone.all.continued.filter((id) => id === alone.ids.later).length,
		},
		burst: {
			customerMessagesInBurst: burst.ids.burst.length,
			botAnswersWhilePersonActive: burst.answersWhileActive,
			executionsSteppedAside: burst.duringPeriod.steppedAside.length,
			answersAfterPeriod: burst.all.continued.filter((id) => id === burst.ids.later).length,
		},
		...extra,
	};
	console.log(`[step-aside] ${JSON.stringify(counts)}`);
	return counts;
}

/** What both modes expect of the two scenarios. */
function expectSteppedAside(alone, burst) {
	expect(alone.premises).toEqual({ ownAnswerWithinPeriod: true, heldWithinPeriod: true, laterAfterPeriod: true });
	expect(alone.duringPeriod.failed).toBe(0);
	expect(alone.duringPeriod.other).toEqual([]);
	expect(alone.answersWhileActive).toBe(0);
	expect(alone.duringPeriod.steppedAside.sort()).toEqual([...alone.ids.held].sort());
	expect(alone.all.continued.sort()).toEqual([alone.ids.first, alone.ids.second, alone.ids.later].sort());
	expect(alone.botAnswers).toEqual(['bot: Hi, my parcel is late', 'bot: Order 1234', 'bot: Hello again?'].reverse());

	expect(burst.premises).toEqual({ duringQuietPeriod: true, laterAfterPeriod: true });
	expect(burst.all.failed).toBe(0);
	expect(burst.all.other).toEqual([]);
	expect(burst.answersWhileActive).toBe(0);
	expect(burst.duringPeriod.steppedAside).toEqual([burst.ids.burst.at(-1)]);
	expect(burst.all.continued).toEqual([burst.ids.later]);
	// The person's message ends the earlier customer messages: the answer is to the new message alone.
	expect(burst.botAnswers).toEqual(['bot: b3: anyone?']);
}

module.exports = {
	MINUTES,
	PERIOD_MS,
	STEPS_ASIDE,
	TRIGGER,
	conversations,
	executionsSince,
	expectSteppedAside,
	pastPeriodAfter,
	personTakesBurst,
	personTakesOver,
	printCounts,
	stepAsideWorkflow,
	triggerOptions,
};
