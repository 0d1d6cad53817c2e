/**
 * The memory's session: the conversation, and the messages the agent is
 * answering now, from the Omnichannel Trigger's event in the agent's input
 * item. The trigger outputs the whole event (`data` is the message) or, with
 * Output Data Only, the message itself; Answer a Burst Once adds `burst`.
 * The polling trigger outputs message records, which read the same way.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ConversationMessage } from '../shared/conversation';

const isObject = (value: unknown): value is IDataObject => value !== null && typeof value === 'object' && !Array.isArray(value);

const isMessage = (value: unknown): value is ConversationMessage =>
	isObject(value) &&
	typeof value.id === 'string' &&
	typeof value.conversation_id === 'string' &&
	(typeof value.from_customer === 'boolean' || typeof value.message_type === 'string');

/** The message an input item carries: a whole message.created event's data, or the message itself. */
export function messageOfItem(json: IDataObject): ConversationMessage | undefined {
	if (isMessage(json.data)) return json.data;
	return isMessage(json) ? json : undefined;
}

/** The conversation an input item belongs to, if it names one. */
export function conversationOfItem(json: IDataObject): string | undefined {
	const message = messageOfItem(json);
	if (message) return message.conversation_id;
	const data = isObject(json.data) ? json.data : json;
	return typeof data.conversation_id === 'string' && data.conversation_id !== '' ? data.conversation_id : undefined;
}

/** The messages being answered now: the burst's, or the event's message; none for other items. */
export function currentMessagesOfItem(json: IDataObject): ConversationMessage[] {
	const burst = isObject(json.burst) && Array.isArray(json.burst.messages) ? json.burst.messages.filter(isMessage) : [];
	const message = messageOfItem(json);
	return message && !burst.some((listed) => listed.id === message.id) ? [...burst, message] : burst;
}
