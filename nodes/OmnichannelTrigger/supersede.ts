import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { openCarrier, settlesWait } from '../shared/chatWait';
import type { ChatWait } from '../shared/chatWait';
import { newerFirst, timeOf } from '../shared/conversation';
import type { ServiceEvent } from './delivery';
import { handOver } from './handOver';
import type { HandOverOutcome } from './handOver';

/**
 * A newer question ends the older waits. A reply goes to the newest question
 * of the workflow before it (replyRouting.ts), so when two executions of one
 * workflow ask in the same conversation, no reply can reach the older one:
 * without this it would wait unseen, forever when it has no limit. The
 * trigger sees the newer question's own message.created (its
 * client_request_id is a carrier) and hands each older wait of the workflow
 * that is still open a signed "superseded" hand-over; the older execution
 * goes on with the no-answer item, naming the newer question
 * (docs/send-and-wait.md).
 */

/** Whether a reply after `question` (and before `until`) settled its wait, as routing would have decided. */
function settled(wait: ChatWait, question: IDataObject, until: IDataObject, messages: IDataObject[]): boolean {
	return messages.some((one) => newerFirst(one, question) < 0 && newerFirst(one, until) > 0 && settlesWait(wait, one));
}

interface OpenWait {
	wait: ChatWait;
	question: IDataObject;
}

/** The waits of this workflow asked before `newer` in the messages read, not expired and not settled by a reply. */
export function olderOpenWaits(key: Buffer, workflow: string, newer: IDataObject, messages: IDataObject[], now: number): OpenWait[] {
	const open: OpenWait[] = [];
	for (const question of messages) {
		if (question.id === newer.id || !(newerFirst(question, newer) > 0)) continue;
		const wait = openCarrier(key, question.client_request_id);
		if (wait?.workflow !== workflow || (wait.expiresAt !== undefined && wait.expiresAt <= now)) continue;
		if (!settled(wait, question, newer, messages)) open.push({ wait, question });
	}
	return open;
}

/**
 * Ends the older waits: `waitEnded` once none waits any more, whether this
 * ended it or it had ended already. Otherwise the worst outcome decides what
 * the question's own delivery answers (an older execution still starting its
 * wait: the sender delivers the question again, and it is ended then).
 */
export async function supersedeOlderWaits(
	context: IWebhookFunctions,
	key: Buffer,
	event: ServiceEvent,
	older: OpenWait[],
	deadline: number,
): Promise<HandOverOutcome> {
	const outcomes = await Promise.all(
		older.map(async ({ wait, question }) =>
			handOver(context, key, wait, { questionId: String(question.id), eventId: event.id, replies: [], supersededBy: String(event.data.id) }, deadline),
		),
	);
	return outcomes.find((outcome) => outcome === 'notWaitingYet' || outcome === 'unreachable') ?? 'waitEnded';
}

/** Whether a message is a question of this workflow, with the time that orders it among the others. */
export function isQuestionOf(key: Buffer, workflow: string, message: IDataObject): boolean {
	return openCarrier(key, message.client_request_id)?.workflow === workflow && !Number.isNaN(timeOf(message));
}
