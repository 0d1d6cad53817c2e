import type { IDataObject } from 'n8n-workflow';

import { messageAuthor } from '../../shared/messageAuthors';

/** Every call of a delivery ends by then, within the sender's 10 s (docs/development/trigger-internals.md, "One deadline per delivery"). */
export const DELIVERY_BUDGET_MS = 8_000;

/** The key of the input item that tells the execution how long its delivery was held. */
export const QUIET_WAITED_KEY = 'quietWaitedMs';

/** The message of a `message.created` event that a customer wrote; undefined for every other event. */
export function customerMessageOf(event: { type: string; data?: IDataObject }): IDataObject | undefined {
	return event.type === 'message.created' && event.data && messageAuthor(event.data) === 'customer' ? event.data : undefined;
}
