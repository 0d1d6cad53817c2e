'use strict';
// Send and Wait answered in the chat in n8n's queue mode (harness/queue.js:
// PostgreSQL, Redis, main, 2 workers, a webhook process). The trigger's
// webhook runs on the process a delivery reaches, the waiting execution and
// its resumption on workers. One workflow registers its webhook itself (the
// sandbox delivers to the webhook process); the other is registered by hand,
// so the test delivers each event itself: copies of one reply at the same
// moment to main and to the webhook process. Also a reply in the same moment
// as the question, and the webhook process killed and started again while an
// execution waits. Prints its counts.
const crypto = require('crypto');

const { sandboxClient, sleep } = require('../../harness');
const { askedTwiceThenReplied, chatWaitWorkflow, conversationReader, expectSuperseded, readerClient } = require('../support/n8n/chat-waits');
const { openQueueContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { customerMessageEvent } = require('../support/n8n/signed-events');

const TEST_TIMEOUT_MS = 5 * 60 * 1000;
const QUIET_PERIOD_MS = 3000;
const SAME_MOMENT_RUNS = Number(process.env.CHAT_QUEUE_SAME_MOMENT_RUNS ?? 20);

const SIGNING_SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;
const SIGNING_CREDENTIAL = { id: 'chatQueueSigning', name: 'Chat queue signing secret', type: 'omnichannelWebhookSigningApi', data: { signingSecret: SIGNING_SECRET } };

const FLOWS = {
	automatic: { id: 'chatQueueAuto001', channel: 'livechat', question: 'Queue: your order number?', parameters: { responseType: 'chatReply' } },
	manual: { id: 'chatQueueManual1', channel: 'telegram', question: 'Queue (manual): your order number?', parameters: { responseType: 'chatReply' } },
};

let ctx;
let sandbox;
let cluster;
let reader;
const counts = {};

/** The workflow registered by hand: its production URL, from the webhook id the harness gave its trigger. */
let manualPath;

/** Delivers a customer message's event to one n8n process, signed as the service signs. */
async function deliver(n8n, event) {
	const { headers, body } = event();
	const response = await fetch(`${n8n.baseUrl}/webhook/${manualPath}`, { method: 'POST', headers, body });
	await response.text();
	return response.status;
}
const eventOf = (message) =>
	customerMessageEvent({ secret: SIGNING_SECRET, eventId: `evt_${crypto.randomBytes(10).toString('hex')}`, appId: sandbox.app_id, message });

beforeAll(async () => {
	ctx = await openQueueContext({
		credential: { id: 'chatQueueCred001', name: 'Chat queue sandbox' },
		// It kills the webhook process: a cluster of its own.
		ownCluster: true,
		setUp: async ({ sandbox: opened, client, credential }) => {
			reader = conversationReader(await readerClient(client, opened, sandboxClient));
			await client.control('PUT', '/faults', { retry_schedule_ms: [1000, 2000, 4000, 8000, 16000] });
			const manual = chatWaitWorkflow(credential, FLOWS.manual, {
				trigger: { registration: 'manual' },
				triggerExtra: { credentials: { omnichannelApi: { id: credential.id, name: credential.name }, omnichannelWebhookSigningApi: { id: SIGNING_CREDENTIAL.id, name: SIGNING_CREDENTIAL.name } } },
			});
			manualPath = `${manual.nodes[0].webhookId}/omnichannel`;
			return {
				credentials: [SIGNING_CREDENTIAL],
				workflows: [chatWaitWorkflow(credential, FLOWS.automatic), manual],
				publish: [FLOWS.automatic.id, FLOWS.manual.id],
			};
		},
		// Only the automatic trigger registers one.
		webhooks: 1,
	});
	({ sandbox, cluster } = ctx);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	console.log(`send-and-wait chat queue counts: ${JSON.stringify(counts)}`);
	await ctx?.close();
});

describe('Send and Wait answered in the chat (queue mode)', () => {
	test(
		'two executions ask in one conversation: the older ends at once, saying which question superseded it; the reply answers the newer',
		async () => {
			const seen = await askedTwiceThenReplied(reader, FLOWS.automatic.channel, FLOWS.automatic.question, 'A-7');
			counts.superseded = { questions: seen.questions, outputs: seen.outputs.map((output) => (output.supersededBy ? 'superseded' : output.data.text)) };
			expectSuperseded(seen);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a reply reaches the waiting execution through the webhook process and a worker resumes it, once',
		async () => {
			const { id } = await reader.newConversation('livechat');
			await reader.inbound(id, 'Hi');
			const [question] = await reader.waitForMessage(id, FLOWS.automatic.question);
			const reply = await reader.inbound(id, 'Q-1');
			await reader.waitForMessage(id, 'after ');
			await sleep(QUIET_PERIOD_MS);
			const outputs = await reader.afterOutputs(id);
			expect(outputs).toEqual([expect.objectContaining({ data: { text: 'Q-1' }, messageId: question.id, answeredIn: 'chat', reply: expect.objectContaining({ id: reply.id }) })]);
			expect(reader.startingWith(await reader.messages(id), FLOWS.automatic.question)).toHaveLength(1);
			counts.reply = { resumes: outputs.length };
		},
		TEST_TIMEOUT_MS,
	);

	test(
		`a reply in the same moment as the question is captured (${SAME_MOMENT_RUNS} times)`,
		async () => {
			const client = sandboxClient(sandbox);
			const runs = await Promise.all(
				Array.from({ length: SAME_MOMENT_RUNS }, async (_, index) => {
					const { id } = await reader.newConversation('livechat');
					const text = `QR-${index}`;
					await client.control('POST', '/replies-on-send', { conversation_id: id, text });
					await reader.inbound(id, 'Hi');
					return { id, text };
				}),
			);
			for (const { id } of runs) await reader.waitForMessage(id, 'after ', 1, 180_000);
			await sleep(QUIET_PERIOD_MS);
			let captured = 0;
			let extraRuns = 0;
			for (const { id, text } of runs) {
				const outputs = await reader.afterOutputs(id);
				if (outputs.length === 1 && outputs[0].data.text === text) captured++;
				extraRuns += Math.max(0, outputs.length - 1) + reader.startingWith(await reader.messages(id), FLOWS.automatic.question).length - 1;
			}
			counts.sameMoment = { runs: runs.length, captured, extraRuns };
			expect({ captured, extraRuns }).toEqual({ captured: runs.length, extraRuns: 0 });
		},
		10 * 60 * 1000,
	);

	test(
		'copies of a reply at the same moment to main and to the webhook process, and a late copy: one resume',
		async () => {
			const { id } = await reader.newConversation('telegram');
			const first = await reader.inbound(id, 'Hello');
			expect(await deliver(cluster.webhook, eventOf(first))).toBe(200);
			await reader.waitForMessage(id, FLOWS.manual.question);
			const reply = await reader.inbound(id, 'M-9');
			const copies = [eventOf(reply), eventOf(reply)];
			const statuses = await Promise.all([deliver(cluster.main, copies[0]), deliver(cluster.webhook, copies[1]), deliver(cluster.main, copies[1])]);
			await reader.waitForMessage(id, 'after ');
			expect(await deliver(cluster.webhook, copies[0])).toBe(200);
			await sleep(QUIET_PERIOD_MS);
			const outputs = await reader.afterOutputs(id);
			expect(outputs).toEqual([expect.objectContaining({ data: { text: 'M-9' } })]);
			expect(reader.startingWith(await reader.messages(id), FLOWS.manual.question)).toHaveLength(1);
			counts.copies = { statuses, resumes: outputs.length };
			for (const status of statuses) expect([200, 503]).toContain(status);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'the webhook process killed and started again while an execution waits: the reply resumes it once',
		async () => {
			const { id } = await reader.newConversation('livechat');
			await reader.inbound(id, 'Hi there');
			await reader.waitForMessage(id, FLOWS.automatic.question);
			await cluster.webhook.kill();
			await cluster.webhook.start();
			await reader.inbound(id, 'K-5');
			await reader.waitForMessage(id, 'after ', 1, 120_000);
			await sleep(QUIET_PERIOD_MS);
			const outputs = await reader.afterOutputs(id);
			expect(outputs).toEqual([expect.objectContaining({ data: { text: 'K-5' } })]);
			counts.webhookKilled = { resumes: outputs.length };
		},
		TEST_TIMEOUT_MS,
	);

	test('nothing is left registered at the service: only the automatic trigger’s webhook', async () => {
		const hooks = await sandboxClient(sandbox).listAll('/webhooks');
		counts.registeredAtService = hooks.length;
		expect(hooks).toHaveLength(1);
	});
});
