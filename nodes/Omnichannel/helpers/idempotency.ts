import { createHash, randomUUID } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

import { SEND_KEY_PREFIX } from '../../shared/sendKeys';
import { runSeed } from '../../shared/runSeed';

/**
 * The default client_request_id of a send: a hash of where the send happens,
 * never of what it says.
 *
 * - Same run seed, node, run index and item → same key. n8n's "Retry On Fail"
 *   repeats the node within the same execution and n8n's Retry of a failed
 *   execution keeps the seed (see shared/runSeed.ts), so a repeated send is answered
 *   with the original message instead of being sent twice (the API's
 *   idempotency rule: docs/api-assumptions.md, "Messages").
 * - The run index keeps apart the sends of a node that runs several times in
 *   one execution (loops, and each call of the node as an AI agent's tool).
 * - The text is left out on purpose: an expression such as {{ $now }} would
 *   otherwise change the key between two tries of the same send.
 *
 * Without an execution id (a tool called through n8n's MCP Server Trigger)
 * there is nothing stable to derive from, so the key is random.
 *
 * As a tool, every call is a new run index (or has no execution at all), so a
 * model that retries a send gets a new key and the message is sent again.
 * The remedy is the Client Request ID option filled by the model:
 * `{{ $fromAI('clientRequestId', ...) }}`, one key per message, reused when
 * retrying it (docs/ai-agents.md, "Sending once when a call is retried").
 */
export function defaultClientRequestId(
	context: IExecuteFunctions,
	itemIndex: number,
	runIndex: number,
	operation: string,
): string {
	const seed = runSeed(context);
	const node = context.getNode();
	const source = seed
		? JSON.stringify([context.getWorkflow().id ?? '', seed, node.id || node.name, runIndex, itemIndex, operation])
		: randomUUID();
	// The prefix tells the Omnichannel Trigger that a message is this package's own send, never a reply.
	return `${SEND_KEY_PREFIX}${createHash('sha256').update(source).digest('hex').slice(0, 40)}`;
}

/** The run index of the node in this execution (0 unless it runs in a loop or as a tool). */
export function currentRunIndex(context: IExecuteFunctions): number {
	const runIndex = context.getWorkflowDataProxy(0).$runIndex as unknown;
	return typeof runIndex === 'number' ? runIndex : 0;
}
