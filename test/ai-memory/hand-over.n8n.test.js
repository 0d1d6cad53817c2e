'use strict';
// Conversation > Hand Over to a Person as an AI Agent tool, in published
// workflows of a running n8n (regular mode), with a stand-in
// OpenAI-compatible model on 127.0.0.1 and the Omnichannel Chat Memory. The
// customer asks for a person: the model calls the tool, the customer gets the
// hand-over message once and the team the note once (also when two customer
// messages hand over at once); the next 3 customer messages get no model
// request and no bot reply (the trigger's hints say why); a person writes;
// after the step-aside period the bot answers again with the whole
// conversation in its memory, in order. With a short Hand-Over Limit and no
// person, the bot answers again and says the hand-over expired. A Retry of an
// execution that failed after the hand-over sends nothing again. Prints the
// counts as one JSON line per scenario. (Queue mode:
// test/queue-mode/hand-over.n8n.test.js.)
const { waitFor } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { modelCredential } = require('../support/n8n/chat-memory');
const {
	SHORT_LIMIT_HOURS,
	expectExpired,
	expectHandedOverUntilAPersonAnswers,
	handOverExpires,
	handOverWorkflow,
	handsOverAgainAfterExpiry,
	handsOverUntilAPersonAnswers,
	markers,
	startScriptedModel,
	talk,
} = require('../support/n8n/hand-over');

const TEST_TIMEOUT_MS = 5 * 60 * 1000;
const HANDS_OVER = { id: 'e2eHandOver00001', channel: 'telegram' };
const EXPIRES = { id: 'e2eHandOver00002', channel: 'whatsapp', limitHours: SHORT_LIMIT_HOURS };
const RETRIED = { id: 'e2eHandOver00003', channel: 'livechat', modelCredentialId: 'fakeChatModel02' };

describe('Hand Over to a Person, as an AI Agent tool, honoured by the trigger (regular mode)', () => {
	let ctx;
	let model;
	let failing;

	beforeAll(async () => {
		// Tool calls answered after 2 s: two executions handing over at once both read the conversation before either sends.
		model = await startScriptedModel({ toolCallDelayMs: 2000 });
		failing = await startScriptedModel({ failing: true });
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		// Its own name: on the run's shared n8n an import of the same name updates the credential (harness/n8n-rest.js).
		await n8n.importCredentials([credential, modelCredential(model.url), { ...modelCredential(failing.url), id: RETRIED.modelCredentialId, name: 'Failing chat model' }]);
		await n8n.importWorkflows([handOverWorkflow({ ...HANDS_OVER, credential }), handOverWorkflow({ ...EXPIRES, credential }), handOverWorkflow({ ...RETRIED, credential })]);
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		const hooksBefore = (await client.listAll('/webhooks')).length;
		for (const { id } of [HANDS_OVER, EXPIRES, RETRIED]) await n8n.publishWorkflow(id);
		await waitFor(async () => (await client.listAll('/webhooks')).length >= hooksBefore + 3, { what: 'the triggers to register their webhooks', timeoutMs: 60_000 });
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await ctx?.close();
		await model?.close();
		await failing?.close();
	});

	test(
		'the agent hands over: one message, one note (two hand-overs at once included); 3 customer messages get no model request and no reply; a person writes; after the period the bot answers with the whole conversation in order',
		async () => {
			const result = await handsOverUntilAPersonAnswers({ n8n: ctx.n8n, client: ctx.client, model, workflowId: HANDS_OVER.id, channel: HANDS_OVER.channel });
			console.log(JSON.stringify({ suite: 'hand-over regular mode', ...result.counts }));
			expectHandedOverUntilAPersonAnswers(result);
			// Both executions called the tool: the keys, not the trigger, made it one hand-over.
			expect(result.counts.toolCallsAtOnce).toBe(2);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'no person within a short Hand-Over Limit: the bot answers again, and its item and answer say the hand-over expired',
		async () => {
			const result = await handOverExpires({ n8n: ctx.n8n, client: ctx.client, model, workflowId: EXPIRES.id, channel: EXPIRES.channel });
			console.log(JSON.stringify({ suite: 'hand-over expired regular mode', ...result.counts }));
			expectExpired(result);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'after the limit, the customer asks for a person again: a new hand-over (a second message and note), and the bot is quiet again',
		async () => {
			const result = await handsOverAgainAfterExpiry({ n8n: ctx.n8n, client: ctx.client, model, workflowId: EXPIRES.id, channel: EXPIRES.channel });
			console.log(JSON.stringify({ suite: 'hand-over again after expiry regular mode', ...result.counts }));
			expect(result.againItem.handOver).toMatchObject({ expired: true });
			expect(result.counts).toEqual({ handOverMessages: 2, handOverNotes: 2, episodes: 2, modelRequestsAfterSecondHandOver: 0, botReplies: 0 });
			expect(result.heldHints).toEqual([expect.stringMatching(/handed over to a person at/)]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		"a Retry of an execution that failed after the hand-over's sends: one message, one note",
		async () => {
			const { n8n, client } = ctx;
			const t = talk({ n8n, client, workflowId: RETRIED.id });
			const conversationId = await t.newConversation(RETRIED.channel);
			const before = await t.executionIds();
			await t.inbound(conversationId, 'Please, a human');
			const [failed] = await t.finished(before, 1);
			const afterFailure = await t.messages(conversationId);
			failing.failing = false;
			const requestsBeforeRetry = failing.requests.length;
			await n8n.api.retryExecution(failed.id, { loadWorkflow: false });
			const runs = await t.finished(before, 2);
			const retried = runs.find((run) => String(run.id) !== String(failed.id));
			const all = await t.messages(conversationId);
			const inRetry = failing.requests.slice(requestsBeforeRetry);
			// n8n's agent either resumes from the tool's earlier result or asks the model again, which calls the tool again.
			const toolCallsInRetry = inRetry.filter((body) => body.messages.at(-1).role !== 'tool').length;
			const counts = {
				suite: 'hand-over retry regular mode',
				failedStatus: failed.status,
				retryStatus: retried?.status,
				modelRefusals: failing.refused,
				modelRequestsInRetry: inRetry.length,
				toolCallsInRetry,
				toolRunsInRetry: retried?.data.resultData.runData['Hand over to a person']?.length ?? 0,
				handOverMessages: markers(all, 'm').length,
				handOverNotes: markers(all, 'n').length,
				messagesSent: all.filter((m) => !m.from_customer).length,
			};
			console.log(JSON.stringify(counts));
			expect(failed.status).toBe('error');
			expect([markers(afterFailure, 'm').length, markers(afterFailure, 'n').length]).toEqual([1, 1]);
			expect(retried.status).toBe('success');
			expect(counts).toMatchObject({ handOverMessages: 1, handOverNotes: 1, messagesSent: 2 });
		},
		TEST_TIMEOUT_MS,
	);
});
