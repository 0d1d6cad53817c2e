import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { newerFirst, timeOf } from '../conversation';
import { openCarrier } from './carrier';
import type { ChatWait } from './carrier';
import { relay } from './relay';
import { settlesWait } from './replies';

/** A newer question ends its workflow's older waits in the conversation, which no reply could reach any more (docs/send-and-wait.md). */

export interface OpenWait {
	wait: ChatWait;
	question: IDataObject;
}

/** Whether a reply after `question` (and before `until`) settled its wait, as reply routing decides. */
function settled(wait: ChatWait, question: IDataObject, until: IDataObject, messages: IDataObject[]): boolean {
	return messages.some((one) => newerFirst(one, question) < 0 && newerFirst(one, until) > 0 && settlesWait(wait, one));
}

/** The waits of `workflow` asked before `newer` in `messages`, not expired and not settled by a reply. */
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

/** Whether a message is a question of `workflow`, with the time that orders it among the others. */
export function isQuestionOf(key: Buffer, workflow: string, message: IDataObject): boolean {
	return openCarrier(key, message.client_request_id)?.workflow === workflow && !Number.isNaN(timeOf(message));
}

/** Ends the older waits with a "superseded" relay naming `newer`: each goes on with its no-answer item. */
export async function supersedeOlderWaits(
	context: IExecuteFunctions,
	origin: string,
	key: Buffer,
	newer: IDataObject,
	older: OpenWait[],
	deadline: number,
): Promise<OpenWait[]> {
	const outcomes = await Promise.all(
		older.map(async ({ wait, question }) =>
			relay(context, origin, key, wait, { questionId: String(question.id), eventId: String(newer.id), replies: [], supersededBy: String(newer.id) }, deadline),
		),
	);
	return older.filter((_, index) => outcomes[index] === 'notWaitingYet' || outcomes[index] === 'unreachable');
}
