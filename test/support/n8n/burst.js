'use strict';
// Answer a Burst Once in a real n8n, shared by the regular-mode and the
// queue-mode files: the workflow (the trigger with the option, then a
// downstream node) and one burst of customer messages, summarised from the
// executions' run data.
const { sleep, waitFor, workflows: w } = require('../../../harness');

const TRIGGER = 'On customer message';
const ANSWER = 'Answer';

/** `caps`: the cap options (burstMaxWaitSeconds, burstMaxMessages, burstEndWords), added beside the quiet period. */
function burstWorkflow({ id, credential, quietSeconds, caps = {} }) {
	return w.workflow({
		id,
		name: `Burst ${id}`,
		nodes: [
			w.omnichannelTrigger(TRIGGER, credential, {
				events: ['message.created'],
				options: { directions: ['customer'], burstQuietSeconds: quietSeconds, ...caps },
			}),
			w.node(ANSWER, 'n8n-nodes-base.noOp', {}),
		],
		connections: w.chain(TRIGGER, ANSWER),
	});
}

/** A new conversation (no earlier messages) on an active channel. */
async function newConversation(client) {
	const channel = (await client.listAll('/channels')).find((c) => c.is_active);
	return (await client.control('POST', '/conversations', { channel_id: channel.id })).id;
}

/** A customer writes in (the sandbox then delivers the event). */
const inbound = (client) => async (conversationId, text) => await client.control('POST', '/inbound', { conversation_id: conversationId, text });

/**
 * Sends `texts` as customer messages (with `send`), one right after the other, and waits
 * until the executions they started have finished, then for one more quiet
 * period, so that a second continuation would show. Returns what each
 * execution did. A message that a newer one of its burst reached in the same
 * n8n process during the quiet period starts no execution at all.
 */
async function runBurst({ n8n, client, workflowId, conversationId, texts, quietSeconds, send = inbound(client) }) {
	const before = new Set((await n8n.listExecutions({ workflowId })).map((e) => String(e.id)));
	const sent = [];
	for (const text of texts) sent.push(await send(conversationId, text));
	const finished = async () => {
		const fresh = (await n8n.listExecutions({ workflowId })).filter((e) => !before.has(String(e.id)));
		return fresh.length > 0 && fresh.every((e) => e.finished || e.stoppedAt) ? fresh : undefined;
	};
	await waitFor(finished, { what: 'an execution per message, all finished', timeoutMs: 120_000, intervalMs: 1000 });
	await sleep(quietSeconds * 1000 + 3000);
	const executions = await waitFor(finished, { what: 'every execution to finish', timeoutMs: 60_000, intervalMs: 1000 });

	const summary = { sent, executions: executions.length, continued: [], endedInBurst: 0, endedAsDuplicate: 0, endedAnswered: 0, continuedExecutions: 0, failed: 0, other: [] };
	for (const execution of executions) {
		const { data, status } = await n8n.api.getExecution(execution.id);
		const runData = data.resultData.runData;
		if (status !== 'success') {
			summary.failed++;
			continue;
		}
		const task = runData[TRIGGER][0];
		const items = task.data.main[0].map((item) => item.json);
		const hints = (task.hints ?? []).map((hint) => hint.message).join(' ');
		if (items.length > 0 && runData[ANSWER]) {
			// With caps, one execution can continue a complete burst besides its own: one item each.
			summary.continued.push(...items);
			summary.continuedExecutions++;
		}
		else if (hints.includes('is part of a burst')) summary.endedInBurst++;
		else if (hints.includes('already ran in an earlier execution')) summary.endedAsDuplicate++;
		else if (hints.includes('was already answered in an earlier burst')) summary.endedAnswered++;
		else summary.other.push({ id: execution.id, items, hints });
	}
	return summary;
}

function printSummary(label, summary, extra = '') {
	console.log(
		`[burst] ${label}: ${summary.sent.length} customer messages, ${summary.executions} executions: ` +
			`${summary.continued.length} continued (burst.count ${summary.continued.map((item) => item.burst?.count).join(', ')}; endedBy ${summary.continued.map((item) => item.burst?.endedBy).join(', ')}), ` +
			`${summary.endedInBurst} ended as part of the burst, ${summary.endedAsDuplicate} ended as duplicates, ${summary.failed} failed${extra}`,
	);
}

/**
 * What every scenario expects: one continuation carrying the texts in order;
 * every other execution ended without output (part of the burst, or a
 * duplicate).
 */
function expectOneContinuation(summary, texts) {
	expect(summary.failed).toBe(0);
	expect(summary.other).toEqual([]);
	expect(summary.continued).toHaveLength(1);
	const [item] = summary.continued;
	expect(item.burst).toMatchObject({ text: texts.join('\n'), count: texts.length });
	expect(item.burst.messages.map((m) => m.id)).toEqual(summary.sent.map((m) => m.id));
	expect(item.data.id).toBe(summary.sent.at(-1).id);
	expect(summary.executions).toBe(1 + summary.endedInBurst + summary.endedAsDuplicate);
}

/**
 * The quiet period is waited out where the deliveries arrive: besides the executions of each process's newest
 * message (`expected`), only those of a message whose hold waited out its quiet period before the next delivery
 * reached that process start, and they end as part of the burst. On a loaded machine (four real-n8n lanes on
 * two cores) a delivery can reach n8n seconds after it was sent, so their number is printed, not fixed; the
 * in-process tests (test/trigger/burst.test.cts) fix it where arrival times are the test's own.
 */
function expectHeldWhereDelivered(summary, expected) {
	expect(summary.executions - summary.endedInBurst).toBe(expected);
}

/** The continuations, oldest burst first. */
const inOrder = (summary) => [...summary.continued].sort((a, b) => a.burst.beganAt.localeCompare(b.burst.beganAt));

/** With caps: every sent message in exactly one continuation, in order, and no execution failed or ended otherwise. */
function expectEveryMessageOnce(summary) {
	expect(summary.failed).toBe(0);
	expect(summary.other).toEqual([]);
	const continued = inOrder(summary).flatMap((item) => item.burst.messages.map((m) => m.id));
	expect(continued).toEqual(summary.sent.map((m) => m.id));
	expect(summary.executions).toBe(summary.continuedExecutions + summary.endedInBurst + summary.endedAsDuplicate + summary.endedAnswered);
}

/** Sends like runBurst's default, `pauseMs` apart: a customer who keeps writing. */
const writingEvery = (client, pauseMs) => {
	let first = true;
	return async (conversationId, text) => {
		if (!first) await sleep(pauseMs);
		first = false;
		return await client.control('POST', '/inbound', { conversation_id: conversationId, text });
	};
};

module.exports = { expectHeldWhereDelivered, inOrder, writingEvery, expectEveryMessageOnce, burstWorkflow, newConversation, runBurst, printSummary, expectOneContinuation, TRIGGER, ANSWER };
