/**
 * The default Client Request ID is derived from the execution, the node, the
 * run and the item: repeating the same execution never sends twice, a new
 * execution sends again, and an override makes "once per record" possible.
 */
import { newExecutionId, runNode } from '../support/host/action-node.cjs';
import { clearFaults, messagesOf, newConversation, resetStats, setFaults, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { byId, useSandbox } from '../support/suite.cjs';

const suite = useSandbox();

const sendText = async (conversationId: string, extra: Json = {}, items?: Json[]) =>
	await runNode({
		credentials: suite.credentials,
		parameters: { resource: 'message', operation: 'sendText', conversationId: byId(conversationId), text: 'Your order shipped', ...extra },
		items: items as never,
		executionId: extra.executionId as string | undefined,
	});

test('the same execution run again sends nothing new and outputs the original message', async () => {
	const conversation = await newConversation(suite.sb);
	const executionId = newExecutionId();
	const first = await runNode({
		credentials: suite.credentials,
		parameters: { resource: 'message', operation: 'sendText', conversationId: byId(conversation.id), text: 'Hello' },
		items: [{ json: {} }, { json: {} }],
		executionId,
	});
	const again = await runNode({
		credentials: suite.credentials,
		parameters: { resource: 'message', operation: 'sendText', conversationId: byId(conversation.id), text: 'Hello, edited' },
		items: [{ json: {} }, { json: {} }],
		executionId,
	});
	expect(again.json.map((message) => message.id)).toEqual(first.json.map((message) => message.id));
	expect(again.json[0].content).toBe('Hello');
	expect(await messagesOf(suite.sb, conversation.id)).toHaveLength(2);
});

test('a new execution (a manual re-run) is a new send', async () => {
	const conversation = await newConversation(suite.sb);
	const first = await sendText(conversation.id);
	const second = await sendText(conversation.id);
	expect(second.json[0].id).not.toBe(first.json[0].id);
	expect(second.json[0].client_request_id).not.toBe(first.json[0].client_request_id);
	expect(await messagesOf(suite.sb, conversation.id)).toHaveLength(2);
});

test('an expression override sends once per upstream record, across executions', async () => {
	const conversation = await newConversation(suite.sb);
	const items = [{ json: { orderId: 'order-1' } }, { json: { orderId: 'order-2' } }];
	const options = { options: { clientRequestId: '={{ "shipped-" + $json.orderId }}' } };
	await sendText(conversation.id, options, items);
	const repeat = await sendText(conversation.id, options, [...items, { json: { orderId: 'order-3' } }]);
	expect(repeat.json.map((message) => message.client_request_id)).toEqual(['n8n_shipped-order-1', 'n8n_shipped-order-2', 'n8n_shipped-order-3']);
	expect(await messagesOf(suite.sb, conversation.id)).toHaveLength(3);
});

test("n8n's Retry On Fail repeats the node without sending twice", async () => {
	const conversation = await newConversation(suite.sb);
	// Every request fails; writes fail half of the time after being applied
	// (the client never learns that its message was stored). The node gives
	// up after 7 attempts per item, n8n waits and runs it again: by then the
	// faults are gone and the repeated sends must find their first copies.
	await setFaults(suite.sb, { error_rate: 1, error_status: 500 });
	await resetStats(suite.sb);
	const items = [{ json: {} }, { json: {} }, { json: {} }];
	let storedBeforeRetry = -1;
	const watcher = (async () => {
		for (let polls = 0; polls < 400; polls++) {
			const { by_route: byRoute } = await stats(suite.sb);
			if ((byRoute['POST /messages/text'] ?? 0) >= 21) {
				await clearFaults(suite.sb);
				storedBeforeRetry = (await messagesOf(suite.sb, conversation.id)).length;
				return;
			}
			await new Promise((resolve) => setTimeout(resolve, 25));
		}
	})();
	const result = await runNode({
		credentials: suite.credentials,
		parameters: { resource: 'message', operation: 'sendText', conversationId: byId(conversation.id), text: '={{ "Item " + $itemIndex }}' },
		items,
		settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 5000 },
	});
	await watcher;
	expect(result.status).toBe('success');
	// Some copies were stored by the failed first try (each item's 7 attempts
	// all failing without any being applied has odds of 1 in 2^21).
	expect(storedBeforeRetry).toBeGreaterThan(0);
	const stored = await messagesOf(suite.sb, conversation.id);
	expect(stored).toHaveLength(3);
	expect(new Set(stored.map((message) => message.id))).toEqual(new Set(result.json.map((message) => message.id)));
	// 3 items × 7 failed attempts in the first try, 3 sends in the second.
	expect((await stats(suite.sb)).by_route['POST /messages/text']).toBe(24);
}, 40_000);
