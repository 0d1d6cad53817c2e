import { createHash, randomUUID } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * The default client_request_id of a send: a hash of where the send happens,
 * never of what it says.
 *
 * - Same execution, node, run and item → same key. n8n's "Retry On Fail"
 *   repeats the node within the same run, so a retried send is answered with
 *   the original message instead of being sent twice
 *   (docs/api-assumptions.md, "Messages").
 * - The run index keeps apart the sends of a node that runs several times in
 *   one execution (loops, and each call of the node as an AI agent's tool).
 * - A new execution (a manual re-run, the next trigger) has a new execution
 *   id and therefore sends again, which is what a re-run means.
 * - The text is left out on purpose: an expression such as {{ $now }} would
 *   otherwise change the key between two tries of the same send.
 *
 * Without an execution id (never the case in a saved or manual execution,
 * but the case of a tool called through n8n's MCP Server Trigger), there is
 * nothing stable to derive from, so the key is random.
 *
 * As a tool, every call is a new run index (or has no execution at all), so a
 * model that retries a send gets a new key and the message is sent again.
 * The remedy is the Client Request ID option filled by the model:
 * `{{ $fromAI('clientRequestId', ...) }}`, one key per message, reused when
 * retrying it (README "Use with AI agents").
 */
export function defaultClientRequestId(
	context: IExecuteFunctions,
	itemIndex: number,
	runIndex: number,
	operation: string,
): string {
	const executionId = context.getExecutionId();
	const node = context.getNode();
	const source = executionId
		? JSON.stringify([context.getWorkflow().id ?? '', executionId, node.id || node.name, runIndex, itemIndex, operation])
		: randomUUID();
	return `n8n_${createHash('sha256').update(source).digest('hex').slice(0, 40)}`;
}

/** The run index of the node in this execution (0 unless it runs in a loop or as a tool). */
export function currentRunIndex(context: IExecuteFunctions): number {
	const runIndex = context.getWorkflowDataProxy(0).$runIndex as unknown;
	return typeof runIndex === 'number' ? runIndex : 0;
}
