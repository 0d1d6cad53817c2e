import type { IDataObject } from 'n8n-workflow';

import { BoundedMap } from './processMemory/boundedMap';
import { apiRequest } from './transport';
import type { OmnichannelContext } from './transport';

/** The one reader of a conversation's recent messages, one page newest first (docs/api-assumptions.md, "Lists and pagination"). */
export const RECENT_MESSAGES = 100;

/** A message as the messages list and the message.created event carry it (docs/api-assumptions.md, "Messages"). */
export interface ConversationMessage extends IDataObject {
	id: string;
	conversation_id?: string;
	content?: string;
	message_type?: string;
	from_customer?: boolean;
	from_user_id?: string | null;
	client_request_id?: string;
	created_at?: string;
}

/** A message's creation time at the service (ms), NaN when it has none. */
export const timeOf = (message: IDataObject): number => Date.parse(String(message.created_at ?? ''));

/** The API's order for messages: created_at descending, then id descending. */
export function newerFirst(left: IDataObject, right: IDataObject): number {
	const byTime = timeOf(right) - timeOf(left);
	if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
	const [l, r] = [String(left.id), String(right.id)];
	return r < l ? -1 : r > l ? 1 : 0;
}

export interface ReadOptions {
	itemIndex?: number;
	/** The caller's deadline (ms since the epoch), passed to the transport. */
	deadline?: number;
	/** Serve and keep the read for the rest of the execution: the trigger's step reads once, and the chat memory of the same execution takes that read instead of a second one. */
	keepForExecution?: boolean;
}

/** Process memory: the latest read of a conversation per running execution. */
const readsOfExecutions = new BoundedMap<string, ConversationMessage[]>(500);

function executionIdOf(context: OmnichannelContext): string | undefined {
	return 'getExecutionId' in context && typeof context.getExecutionId === 'function' ? context.getExecutionId() : undefined;
}

/** The conversation's newest messages, newest first (scope messages:read). */
export async function readRecentMessages(
	context: OmnichannelContext,
	conversationId: string,
	options: ReadOptions = {},
): Promise<ConversationMessage[]> {
	const executionId = options.keepForExecution ? executionIdOf(context) : undefined;
	const kept = executionId === undefined ? undefined : `${executionId}|${conversationId}`;
	const earlier = kept === undefined ? undefined : readsOfExecutions.get(kept);
	if (earlier) return earlier;
	const page = await apiRequest.call(context, 'GET', '/messages', {
		qs: { conversation_id: conversationId, per_page: RECENT_MESSAGES },
		itemIndex: options.itemIndex,
		deadline: options.deadline,
	});
	const data = (page as IDataObject).data;
	const messages = (Array.isArray(data) ? data : []) as ConversationMessage[];
	if (kept !== undefined) readsOfExecutions.set(kept, messages);
	return messages;
}
