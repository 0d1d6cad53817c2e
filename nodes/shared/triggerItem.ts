import type { IDataObject } from 'n8n-workflow';

import type { ConversationMessage } from './conversation';

/** The Omnichannel Trigger's output item, declared once: the trigger writes it, and the chat memory or any later node of this package reads it. */

/** The body of every delivery (docs/api-assumptions.md, "Webhook deliveries"). */
export interface TriggerEvent extends IDataObject {
	id: string;
	type: string;
	data: IDataObject;
}

/** Answer a Burst Once: the burst the item answers. */
export interface TriggerBurst extends IDataObject {
	/** The texts of the burst's messages, oldest first, joined with newlines. */
	text: string;
	/** The burst's messages, oldest first, as the messages list returns them. */
	messages: ConversationMessage[];
	count: number;
	quietSeconds: number;
	/** Why it continued: the quiet period passed, or Max Wait, Max Messages or an End Word ended it. */
	endedBy: 'quietPeriod' | 'maxWait' | 'maxMessages' | 'endWord' | 'reply';
	/** When its first message was created (the service's time). */
	beganAt: string;
	/** When the trigger ended it and continued (n8n's time). */
	endedAt: string;
}

/** Step Aside for a Person, after Conversation > Hand Over to a Person: no person answered within the hand-over's limit, so the bot answers again (shared/handOverToPerson/state.ts). */
export interface TriggerHandOver extends IDataObject {
	expired: true;
	/** When the conversation was handed over (the service's time). */
	since: string;
	/** When its limit passed. */
	expiredAt: string;
	limitHours: number;
}

/** Output Data Only: the message or contact of the event. */
export function dataOf(event: TriggerEvent): IDataObject {
	const { data } = event;
	return data !== null && typeof data === 'object' && !Array.isArray(data) ? data : { data };
}

const isObject = (value: unknown): value is IDataObject => value !== null && typeof value === 'object' && !Array.isArray(value);

const isMessage = (value: unknown): value is ConversationMessage =>
	isObject(value) &&
	typeof value.id === 'string' &&
	typeof value.conversation_id === 'string' &&
	(typeof value.from_customer === 'boolean' || typeof value.message_type === 'string');

/** The message an item carries: a whole message.created event's data, or the message itself. */
export function messageOfItem(json: IDataObject): ConversationMessage | undefined {
	if (isMessage(json.data)) return json.data;
	return isMessage(json) ? json : undefined;
}

/** The conversation an item belongs to, if it names one. */
export function conversationOfItem(json: IDataObject): string | undefined {
	const message = messageOfItem(json);
	if (message) return message.conversation_id;
	const data = isObject(json.data) ? json.data : json;
	return typeof data.conversation_id === 'string' && data.conversation_id !== '' ? data.conversation_id : undefined;
}

/** The messages an item answers now: the burst's, or the event's message; none for other items. */
export function currentMessagesOfItem(json: IDataObject): ConversationMessage[] {
	const burst = isObject(json.burst) && Array.isArray(json.burst.messages) ? json.burst.messages.filter(isMessage) : [];
	const message = messageOfItem(json);
	return message && !burst.some((listed) => listed.id === message.id) ? [...burst, message] : burst;
}
