import { createHash, randomUUID } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

import { SEND_KEY_PREFIX } from '../../shared/sendKeys';
import { runSeed } from '../../shared/runSeed';

/** The default client_request_id of a send: a hash of where the send happens (run seed, node, run index, item), never of what it says, so a retried send is sent once (docs/api-assumptions.md, "Messages"). */
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
