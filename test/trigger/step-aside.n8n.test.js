'use strict';
// Step Aside for a Person in published workflows of a running n8n
// (regular mode). A person of the workspace writes: the next three customer
// messages get no bot answer, and after the period the bot answers again;
// the bot's own answers (the package's default key) do not make it step
// aside. With Answer a Burst Once, a person writing during the quiet period
// stops that burst's answer. A customer's chat reply to a waiting Send and
// Wait still reaches the wait while a person is active. Publishing with a
// period that is not a positive number fails, naming the option, in n8n's
// publication status. Prints the
// counts as one JSON line.
const { sleep, waitFor } = require('../../harness');
const { afterOutputsIn } = require('../support/n8n/after-wait');
const { chatWaitWorkflow } = require('../support/n8n/chat-waits');
const { openContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const {
	PERIOD_MS,
	STEPS_ASIDE,
	conversations,
	expectSteppedAside,
	personTakesBurst,
	personTakesOver,
	printCounts,
	stepAsideWorkflow,
	triggerOptions,
} = require('../support/n8n/step-aside');

const TEST_TIMEOUT_MS = 4 * 60 * 1000;
const QUIET_SECONDS = 3;
const ALONE = { id: 'stepAsideAlone01', channel: 'telegram' };
const BURST = { id: 'stepAsideBurst01', channel: 'whatsapp', quietSeconds: QUIET_SECONDS };
const WAIT = { id: 'stepAsideWait001', channel: 'livechat', question: 'What is your order number?', parameters: { responseType: 'chatReply', simplify: true } };
const INVALID = { id: 'stepAsideBad0001', channel: 'instagram' };
/** Time for an execution that should not start to show up. */
const QUIET_PERIOD_MS = 3000;

const time = (message) => Date.parse(message.created_at);

describe('Step Aside for a Person in a published n8n workflow', () => {
	let ctx;
	let talk;
	const counts = {};

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		talk = conversations(client);
		const invalid = stepAsideWorkflow({ ...INVALID, credential });
		invalid.nodes[0].parameters.options.stepAsideMinutes = 0;
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows([
			stepAsideWorkflow({ ...ALONE, credential }),
			stepAsideWorkflow({ ...BURST, credential }),
			chatWaitWorkflow(credential, WAIT, { trigger: { options: triggerOptions({ channel: WAIT.channel, outputDataOnly: true }) } }),
			invalid,
		]);
		// The sender's retries, shortened: a reply that reaches n8n before its wait is saved is answered 503.
		await client.control('PUT', '/faults', { retry_schedule_ms: [1000, 2000, 4000, 8000, 16000] });
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		for (const { id } of [ALONE, BURST, WAIT]) await n8n.publishWorkflow(id);
		await waitFor(async () => (await client.listAll('/webhooks')).length >= 3, { what: 'the triggers to register their webhooks', timeoutMs: 60_000 });
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		console.log(`[step-aside] regular mode, send and wait: ${JSON.stringify(counts)}`);
		await ctx?.close();
	});

	test(
		'a person writes: three customer messages get no answer, the bot answers again after the period; with a burst, a person during the quiet period stops the answer',
		async () => {
			const alone = await personTakesOver({ n8n: ctx.n8n, client: ctx.client, workflowId: ALONE.id, channel: ALONE.channel });
			const burst = await personTakesBurst({ n8n: ctx.n8n, client: ctx.client, workflowId: BURST.id, channel: BURST.channel, quietSeconds: QUIET_SECONDS });
			printCounts('regular', alone, burst);
			expectSteppedAside(alone, burst);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		"a customer's chat reply to a waiting Send and Wait reaches the wait while a person is active; the next customer message steps aside",
		async () => {
			const { n8n } = ctx;
			const conversationId = await talk.newConversation(WAIT.channel);
			const person = await talk.newPerson('Agent Noor');
			await talk.inbound(conversationId, 'Hi, where is my order?');
			await waitFor(async () => (await talk.messages(conversationId)).find((m) => m.content === WAIT.question), { what: 'the question', timeoutMs: 60_000 });
			const taken = await talk.personWrites(conversationId, person, 'Noor here, I can see your question');
			const reply = await talk.inbound(conversationId, 'A-1042');
			const [output] = await waitFor(
				async () => {
					const outputs = afterOutputsIn(await talk.messages(conversationId));
					return outputs.length > 0 ? outputs : undefined;
				},
				{ what: 'the node after the wait', timeoutMs: 60_000 },
			);
			const further = await talk.inbound(conversationId, 'thanks, and when will it arrive?');
			await waitFor(
				async () => {
					const list = await n8n.listExecutions({ workflowId: WAIT.id });
					return list.length >= 2 && list.every((e) => e.finished || e.stoppedAt) ? list : undefined;
				},
				{ what: 'two finished executions', timeoutMs: 60_000, intervalMs: 500 },
			);
			// Time for an execution that should not start (one for the reply) to show up.
			await sleep(QUIET_PERIOD_MS);
			const executions = await n8n.listExecutions({ workflowId: WAIT.id });
			const hints = [];
			for (const execution of executions) {
				const { data } = await n8n.api.getExecution(execution.id);
				hints.push(...(data.resultData.runData['Customer writes'][0].hints ?? []).map((hint) => hint.message));
			}
			const questions = (await talk.messages(conversationId)).filter((m) => m.content === WAIT.question);
			Object.assign(counts, {
				replyReachedWait: output.data?.text === 'A-1042',
				executions: executions.length,
				questionsAsked: questions.length,
				furtherMessageSteppedAside: hints.filter((hint) => STEPS_ASIDE.test(hint) && hint.includes(further.id)).length,
			});

			expect(time(reply) - time(taken)).toBeLessThan(PERIOD_MS);
			expect(time(further) - time(taken)).toBeLessThan(PERIOD_MS);
			expect(output).toMatchObject({ data: { text: 'A-1042' }, answeredIn: 'chat', reply: { id: reply.id } });
			// The opening message's run (the reply resumed it: no execution of its own) and the further message's.
			expect(executions).toHaveLength(2);
			expect(questions).toHaveLength(1);
			const asides = hints.filter((hint) => STEPS_ASIDE.test(hint));
			expect(asides).toHaveLength(1);
			expect(asides[0]).toContain(further.id);
			expect(hints.filter((hint) => !STEPS_ASIDE.test(hint))).toEqual([]);
		},
		TEST_TIMEOUT_MS,
	);

	test('publishing with a period that is not a positive number fails, naming the option, and registers nothing', async () => {
		const hooksBefore = (await ctx.client.listAll('/webhooks')).length;
		// n8n 2.40 accepts the publish request and activates the triggers afterwards: the failure is in the publication status.
		await ctx.n8n.publishWorkflow(INVALID.id);
		const status = await waitFor(
			async () => {
				const current = await ctx.n8n.api.rest('GET', `/workflows/${INVALID.id}/publication-status`);
				return current && current.status !== 'in_progress' && current.status !== 'not_published' ? current : undefined;
			},
			{ what: 'the publication to settle', timeoutMs: 60_000, intervalMs: 500 },
		);
		const failed = status.triggers.filter((trigger) => trigger.status === 'failed');
		counts.invalidPeriodPublication = { status: status.status, triggers: status.triggers };
		expect(failed).toEqual([expect.objectContaining({ errorMessage: expect.stringMatching(/'Step Aside for a Person' needs a positive number of minutes/) })]);
		expect((await ctx.client.listAll('/webhooks')).length).toBe(hooksBefore);
	});
});
