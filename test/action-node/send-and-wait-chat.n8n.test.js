'use strict';
// Send and Wait answered in the chat, in a running n8n (regular mode): each
// published workflow starts with an Omnichannel Trigger on customer messages
// of one channel type, asks in the conversation and waits; the customer's
// reply reaches the waiting execution through the trigger. Checks what the
// next node gets, that the reply starts no run of its own, replies created in
// the same moment as the question (the sandbox answers the send itself),
// approval words with reminders, a link and a reply racing, duplicate
// deliveries and a restart of n8n while waiting, the wait limit, and that
// nothing is left registered at the service. Prints its counts.
const { omnichannelCredential, sandboxClient, sleep, waitFor, workflows: w } = require('../../harness');
const { AFTER, afterOutputsIn } = require('../support/n8n/after-wait');
const { askedTwiceThenReplied, chatWaitWorkflow, conversationReader, expectSuperseded, readerClient } = require('../support/n8n/chat-waits');
const { openContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { linksOf, openForm, submit } = require('./send-and-wait-support');

const TEST_TIMEOUT_MS = 5 * 60 * 1000;
/** Time for anything that should not happen (a second run, a second resume) to show up. */
const QUIET_PERIOD_MS = 3000;
const SAME_MOMENT_RUNS = Number(process.env.CHAT_SAME_MOMENT_RUNS ?? 30);
/** Conversations started at once in the same-moment test. */
const SAME_MOMENT_BATCH = 10;

const FLOWS = {
	reply: {
		id: 'chatReplyFlow001',
		channel: 'livechat',
		question: 'What is your order number?',
		parameters: { responseType: 'chatReply', simplify: true },
	},
	approval: {
		id: 'chatApproval0001',
		channel: 'telegram',
		question: 'Refund 120 EUR to Dana?',
		parameters: {
			responseType: 'approval',
			approvalOptions: { values: { answerIn: 'both', approveWord: 'YES', declineWord: 'NO', reprompts: 1 } },
		},
	},
	twice: {
		id: 'chatTwice0000001',
		channel: 'email',
		question: 'Which size?',
		parameters: { responseType: 'chatReply' },
	},
	limited: {
		id: 'chatLimited00001',
		channel: 'instagram',
		question: 'Still there?',
		parameters: {
			responseType: 'chatReply',
			options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 3, resumeUnit: 'seconds' } } },
		},
	},
};

/**
 * A key with exactly the scopes docs/credentials.md listed for this workflow
 * before reply routing named messages:read (the trigger's webhooks:*, the
 * sends' messages:write): the trigger cannot read the conversation.
 */
const SCOPED_FLOW = {
	id: 'chatScopedKey001',
	channel: 'whatsapp',
	question: 'Which order is it about?',
	parameters: { responseType: 'chatReply' },
};
const SCOPES_WITHOUT_MESSAGES_READ = ['webhooks:read', 'webhooks:write', 'messages:write'];

/** A manual run that asks for a chat reply with no trigger to deliver it. */
function withoutTrigger(credential) {
	const nodes = [
		w.manualTrigger(),
		w.omnichannelNode('Ask', credential, {
			resource: 'message',
			operation: 'sendAndWait',
			conversationId: w.byId('conv_doesnotmatter00000'),
			message: 'Anyone?',
			responseType: 'chatReply',
		}),
	];
	return w.workflow({ id: 'chatNoTrigger001', name: 'Chat without a trigger', nodes, connections: w.chain('Start', 'Ask') });
}

describe('Send and Wait answered in the chat (regular mode)', () => {
	let ctx;
	let client;
	let reader;
	let messages;
	let startingWith;
	let inbound;
	let newConversation;
	let afterOutputs;
	let waitForMessage;
	const counts = {};

	const executions = async (workflowId) => await ctx.n8n.api.listExecutions({ workflowId });

	beforeAll(async () => {
		ctx = await openContext();
		client = await readerClient(ctx.client, ctx.sandbox, sandboxClient);
		reader = conversationReader(client);
		({ messages, startingWith, inbound, newConversation, afterOutputs, waitForMessage } = reader);
		const { n8n, credential } = ctx;
		const { key: scopedKey } = await ctx.client.control('POST', '/keys', { mode: 'test', scopes: SCOPES_WITHOUT_MESSAGES_READ });
		const scoped = omnichannelCredential({ id: 'e2eScopedCred001', name: 'Scoped key', baseUrl: ctx.sandbox.base_url, apiKey: scopedKey });
		await n8n.importCredentials([credential, scoped]);
		await n8n.importWorkflows([
			...Object.values(FLOWS).map((flow) => chatWaitWorkflow(credential, flow)),
			chatWaitWorkflow(scoped, SCOPED_FLOW),
			withoutTrigger(credential),
		]);
		// The sender's retries, shortened: a reply that reaches n8n before its wait is saved is answered 503.
		await client.control('PUT', '/faults', { retry_schedule_ms: [1000, 2000, 4000, 8000, 16000] });
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		for (const flow of [...Object.values(FLOWS), SCOPED_FLOW]) await n8n.publishWorkflow(flow.id);
		await waitFor(async () => (await client.listAll('/webhooks')).length >= Object.keys(FLOWS).length + 1, {
			what: 'the triggers to register their webhooks',
			timeoutMs: 60_000,
		});
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		console.log(`send-and-wait chat counts: ${JSON.stringify(counts)}`);
		await ctx?.close();
	});

	test(
		'a reply resumes the wait with the reply as a Message, starts no run of its own, and a second reply changes nothing',
		async () => {
			const conversation = await newConversation('livechat');
			await inbound(conversation.id, 'Hi, where is my order?');
			const [question] = await waitForMessage(conversation.id, FLOWS.reply.question);
			expect(question.content).toBe(FLOWS.reply.question);
			const reply = await inbound(conversation.id, 'A-1042');
			const [output] = await waitFor(async () => ((await afterOutputs(conversation.id)).length > 0 ? afterOutputs(conversation.id) : undefined), {
				what: 'the node after the wait',
				timeoutMs: 60_000,
			});
			expect(output).toEqual({
				timedOut: false,
				respondedAt: expect.any(String),
				waitedMs: expect.any(Number),
				data: { text: 'A-1042' },
				answeredIn: 'chat',
				reply: expect.objectContaining({ id: reply.id, content: 'A-1042', conversation_id: conversation.id, from_customer: true }),
				messageId: question.id,
				conversationId: conversation.id,
			});
			// Simplify is on: the reply has the fields Get Many's Simplify keeps.
			expect(Object.keys(output.reply)).not.toContain('client_request_id');
			await sleep(QUIET_PERIOD_MS);
			expect(startingWith(await messages(conversation.id), FLOWS.reply.question)).toHaveLength(1);
			// One customer message, one execution: the reply resumed the run that asked and started none of its own.
			const runs = await executions(FLOWS.reply.id);
			expect(runs.map((run) => run.status)).toEqual(['success']);

			// The wait is over: a later message is a new conversation turn, which starts the workflow again.
			await inbound(conversation.id, 'thanks');
			await waitForMessage(conversation.id, FLOWS.reply.question, 2);
			await sleep(QUIET_PERIOD_MS);
			const outputs = await afterOutputs(conversation.id);
			expect(outputs).toHaveLength(1);
			expect(outputs[0].data).toEqual({ text: 'A-1042' });
			counts.reply = { questions: 2, resumes: outputs.length };
		},
		TEST_TIMEOUT_MS,
	);

	test(
		`a reply created in the same moment as the question is captured (${SAME_MOMENT_RUNS} times)`,
		async () => {
			const runs = [];
			for (let start = 0; start < SAME_MOMENT_RUNS; start += SAME_MOMENT_BATCH) {
				const batch = await Promise.all(
					Array.from({ length: Math.min(SAME_MOMENT_BATCH, SAME_MOMENT_RUNS - start) }, async (_, offset) => {
						const conversation = await newConversation('livechat');
						const text = `R-${start + offset}`;
						await client.control('POST', '/replies-on-send', { conversation_id: conversation.id, text });
						await inbound(conversation.id, 'Hi');
						return { conversation, text };
					}),
				);
				runs.push(...batch);
				await Promise.all(
					batch.map(({ conversation }) =>
						waitFor(async () => ((await afterOutputs(conversation.id)).length > 0 ? true : undefined), {
							what: `the node after the wait in ${conversation.id}`,
							timeoutMs: 120_000,
							intervalMs: 500,
						}),
					),
				);
			}
			await sleep(QUIET_PERIOD_MS);
			let captured = 0;
			let extraRuns = 0;
			let sameMillisecond = 0;
			for (const { conversation, text } of runs) {
				const all = await messages(conversation.id);
				const outputs = afterOutputsIn(all);
				const [question] = startingWith(all, FLOWS.reply.question);
				const reply = all.find((m) => m.content === text);
				if (reply.created_at === question.created_at) sameMillisecond++;
				if (outputs.length === 1 && outputs[0].data.text === text) captured++;
				extraRuns += startingWith(all, FLOWS.reply.question).length - 1 + Math.max(0, outputs.length - 1);
			}
			counts.sameMoment = { runs: runs.length, captured, extraRuns, sameMillisecond };
			console.log(`same-moment replies: ${JSON.stringify(counts.sameMoment)}`);
			expect({ captured, extraRuns }).toEqual({ captured: runs.length, extraRuns: 0 });
		},
		20 * 60 * 1000,
	);

	test(
		'an approval answered in the chat: a reply that is neither word gets one reminder, never decides; " Yes! " approves',
		async () => {
			const conversation = await newConversation('telegram');
			await inbound(conversation.id, 'I want my money back');
			const [question] = await waitForMessage(conversation.id, FLOWS.approval.question);
			const lines = question.content.split('\n');
			expect(lines[lines.length - 1]).toBe('Reply YES to approve or NO to decline.');
			expect(linksOf(question.content).map((link) => link.label)).toEqual(['Approve', 'Decline']);

			await inbound(conversation.id, 'maybe later');
			await waitForMessage(conversation.id, 'Please reply YES to approve or NO to decline.');
			// A manager opens the Decline link's page now and presses its button after the chat answered.
			const declineForm = await openForm(linksOf(question.content)[1].url);
			await inbound(conversation.id, 'hmm?');
			await sleep(QUIET_PERIOD_MS);
			expect(startingWith(await messages(conversation.id), 'Please reply')).toHaveLength(1);
			expect(await afterOutputs(conversation.id)).toHaveLength(0);

			await inbound(conversation.id, ' Yes! ');
			await waitForMessage(conversation.id, AFTER);
			const [output] = await afterOutputs(conversation.id);
			expect(output).toMatchObject({ timedOut: false, data: { approved: true }, answeredIn: 'chat', messageId: question.id });
			expect(output.reply.content).toBe(' Yes! ');

			// The links are settled too: the first answer won.
			const late = await submit(declineForm);
			expect(late.html).not.toContain('Your answer:');
			await sleep(QUIET_PERIOD_MS);
			const all = await messages(conversation.id);
			counts.approval = {
				questions: startingWith(all, FLOWS.approval.question).length,
				reminders: startingWith(all, 'Please reply').length,
				resumes: startingWith(all, AFTER).length,
			};
			expect(counts.approval).toEqual({ questions: 1, reminders: 1, resumes: 1 });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a link and a chat reply at the same moment: the first answer wins, once',
		async () => {
			const winners = { link: 0, chat: 0 };
			for (let round = 0; round < 5; round++) {
				const conversation = await newConversation('telegram');
				await inbound(conversation.id, 'refund?');
				const [question] = await waitForMessage(conversation.id, FLOWS.approval.question);
				const approveLink = linksOf(question.content)[0].url;
				// Wait until n8n saved the wait, so that both answers can win.
				const executionId = new URL(approveLink).pathname.split('/')[2];
				await waitFor(async () => (await ctx.n8n.api.getExecution(executionId, { includeData: false })).status === 'waiting', {
					what: 'the wait to be saved',
					timeoutMs: 30_000,
					intervalMs: 100,
				});
				// The link's page is open; its button is pressed later round by round, so that either answer can come first.
				const approveForm = await openForm(approveLink);
				await Promise.all([sleep(round * 150).then(() => submit(approveForm)), inbound(conversation.id, 'NO')]);
				await waitForMessage(conversation.id, AFTER);
				await sleep(QUIET_PERIOD_MS);
				const outputs = await afterOutputs(conversation.id);
				expect(outputs).toHaveLength(1);
				const [output] = outputs;
				expect(output.data).toEqual({ approved: output.answeredIn === 'link' });
				winners[output.answeredIn]++;
				// A reply that lost to the link finds the execution finished: n8n's answer cannot tell that from the
				// reply's own earlier relay, so it is taken as answered and starts no run (docs/send-and-wait.md).
				await sleep(QUIET_PERIOD_MS);
				expect(startingWith(await messages(conversation.id), FLOWS.approval.question)).toHaveLength(1);
			}
			counts.race = winners;
			expect(winners.link + winners.chat).toBe(5);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'every delivery twice, and n8n restarted while the execution waits: one resume',
		async () => {
			const conversation = await newConversation('livechat');
			await client.control('PUT', '/faults', { webhook_duplicate_rate: 1, retry_schedule_ms: [1000, 2000, 4000, 8000, 16000] });
			try {
				await inbound(conversation.id, 'Hello');
				const [question] = await waitForMessage(conversation.id, FLOWS.reply.question);
				// The question is out a moment before n8n has saved the wait.
				const executionId = await waitFor(async () => (await executions(FLOWS.reply.id)).find((run) => run.status === 'waiting')?.id, {
					what: 'the execution to be saved as waiting',
					timeoutMs: 30_000,
					intervalMs: 100,
				});
				await ctx.n8n.stop();
				await ctx.n8n.start();
				await inbound(conversation.id, 'B-77');
				await waitForMessage(conversation.id, AFTER);
				await sleep(QUIET_PERIOD_MS);
				const outputs = await afterOutputs(conversation.id);
				expect(outputs).toEqual([expect.objectContaining({ data: { text: 'B-77' }, messageId: question.id })]);
				counts.duplicatesAndRestart = { resumes: outputs.length };
				expect(startingWith(await messages(conversation.id), FLOWS.reply.question)).toHaveLength(1);
			} finally {
				await client.control('PUT', '/faults', { webhook_duplicate_rate: 0 });
			}
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'the wait limit ends the wait with a timedOut item; a later reply starts a new turn',
		async () => {
			const conversation = await newConversation('instagram');
			await inbound(conversation.id, 'hello?');
			const [question] = await waitForMessage(conversation.id, FLOWS.limited.question);
			// n8n's wait tracker looks for ended waits once a minute.
			await waitForMessage(conversation.id, AFTER, 1, 120_000);
			const [output] = await afterOutputs(conversation.id);
			expect(output).toMatchObject({ timedOut: true, messageId: question.id, conversationId: conversation.id });
			await inbound(conversation.id, 'sorry, here now');
			await waitForMessage(conversation.id, FLOWS.limited.question, 2);
			expect(await afterOutputs(conversation.id)).toHaveLength(1);
			counts.limit = { timedOut: 1 };
		},
		TEST_TIMEOUT_MS,
	);

	test.each([
		['stopped in n8n', async (executionId) => await ctx.n8n.api.rest('POST', `/executions/${executionId}/stop`)],
		['deleted', async (executionId) => await ctx.n8n.api.publicApi('DELETE', `/executions/${executionId}`)],
	])(
		'a wait %s takes no reply: the next message starts the workflow as usual',
		async (way, end) => {
			const conversation = await newConversation('telegram');
			await inbound(conversation.id, 'refund please');
			const [question] = await waitForMessage(conversation.id, FLOWS.approval.question);
			const executionId = new URL(linksOf(question.content)[0].url).pathname.split('/')[2];
			await waitFor(async () => (await ctx.n8n.api.getExecution(executionId, { includeData: false })).status === 'waiting' || undefined, {
				what: 'the wait to be saved',
				timeoutMs: 30_000,
				intervalMs: 100,
			});
			await end(executionId, question, conversation);
			// Neither word: a wait still waiting would send a reminder instead.
			await inbound(conversation.id, 'hello again');
			await waitForMessage(conversation.id, FLOWS.approval.question, 2);
			await sleep(QUIET_PERIOD_MS);
			const all = await messages(conversation.id);
			const seen = { questions: startingWith(all, FLOWS.approval.question).length, reminders: startingWith(all, 'Please reply').length };
			counts.waitEnded = { ...counts.waitEnded, [way]: seen };
			expect(seen).toEqual({ questions: 2, reminders: 0 });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'two executions ask in one conversation: the older ends at once, saying which question superseded it; the reply answers the newer',
		async () => {
			const seen = await askedTwiceThenReplied(reader, FLOWS.twice.channel, FLOWS.twice.question, 'A-7');
			counts.superseded = { questions: seen.questions, outputs: seen.outputs.map((output) => (output.supersededBy ? 'superseded' : output.data.text)) };
			expectSuperseded(seen);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		`a key without messages:read (${SCOPES_WITHOUT_MESSAGES_READ.join(', ')}): every customer message starts the workflow`,
		async () => {
			const conversation = await newConversation(SCOPED_FLOW.channel);
			const sent = ['first', 'second', 'third'];
			for (const [index, text] of sent.entries()) {
				await inbound(conversation.id, text);
				await waitForMessage(conversation.id, SCOPED_FLOW.question, index + 1);
			}
			await sleep(QUIET_PERIOD_MS);
			const runs = await executions(SCOPED_FLOW.id);
			counts.scopedKey = { messages: sent.length, questions: startingWith(await messages(conversation.id), SCOPED_FLOW.question).length, executions: runs.length };
			expect(counts.scopedKey).toEqual({ messages: 3, questions: 3, executions: 3 });
		},
		TEST_TIMEOUT_MS,
	);

	test('without an Omnichannel Trigger upstream, the run fails before anything is sent, saying why', async () => {
		await expect(ctx.n8n.executeWorkflow('chatNoTrigger001')).rejects.toThrow(/Answers in the chat need an Omnichannel Trigger/);
	});

	test('nothing is left registered at the service: only the triggers’ own webhooks', async () => {
		const hooks = await client.listAll('/webhooks');
		counts.registeredAtService = hooks.length;
		expect(hooks).toHaveLength(Object.keys(FLOWS).length + 1);
	});
});
