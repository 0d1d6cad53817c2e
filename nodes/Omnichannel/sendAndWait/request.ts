import type { IDataObject } from 'n8n-workflow';

import type { ReplyParty } from '../../shared/chatWait';

export type ResponseType = 'approval' | 'freeText' | 'customForm' | 'chatReply';
export const RESPONSE_TYPES: readonly ResponseType[] = ['approval', 'freeText', 'customForm', 'chatReply'];

/** How an answer in the chat is read (Reply in Chat, or an approval that can be answered by reply). */
export interface ChatAnswer {
	party: ReplyParty;
	/** Approvals: the words as the user wrote them, shown in the message and the re-prompts. */
	approveWord?: string;
	declineWord?: string;
	/** Approvals: replies that are neither word and get a reminder. */
	reprompts: number;
	simplify: boolean;
}

export type FieldType = 'text' | 'textarea' | 'number' | 'email' | 'dropdown';
export const FIELD_TYPES: readonly FieldType[] = ['text', 'textarea', 'number', 'email', 'dropdown'];

export interface FormField {
	/** Shown above the input and used as the output key. */
	label: string;
	type: FieldType;
	required: boolean;
	/** The choices of a dropdown. */
	options?: string[];
}

/** Everything the pages need, fixed when the message is sent, so a page opened later shows what the person was asked. */
export interface ResponseRequest {
	/** Ties the links to this one wait: a link of an earlier wait of the same node is refused. */
	waitId: string;
	responseType: ResponseType;
	/** The message text without its links. */
	question: string;
	title: string;
	/** Label of the submit button of the free text and form pages. */
	buttonLabel: string;
	approveLabel: string;
	/** Present when the approval offers a second button. */
	declineLabel?: string;
	fields?: FormField[];
	/** When the wait ends without an answer (ISO 8601); absent when it has no limit. */
	expiresAt?: string;
	/** Whether the message has links (pages) and whether a chat reply answers. */
	links: boolean;
	chat?: ChatAnswer;
}

/** The output item of an answer; a chat answer adds the reply, a Message as Get Many outputs it. */
export function answerOutput(pending: PendingJson, data: IDataObject, respondedAt: Date, reply?: IDataObject): IDataObject {
	const output: IDataObject = {
		timedOut: false,
		respondedAt: respondedAt.toISOString(),
		data,
		messageId: pending.messageId,
		conversationId: pending.conversationId,
	};
	if (pending.sentAt) {
		output.waitedMs = Math.max(0, respondedAt.getTime() - Date.parse(pending.sentAt));
	}
	if (reply) {
		output.answeredIn = 'chat';
		output.reply = reply;
	} else if (pending.request.chat) {
		output.answeredIn = 'link';
	}
	return output;
}

/** The item that replaces the node's input while it waits: n8n passes it on as the output when the limit passes, and a webhook call reads it back. */
export interface PendingJson extends IDataObject {
	timedOut: true;
	data: IDataObject;
	messageId: string;
	conversationId: string;
	/** When the question was sent (ISO 8601). */
	sentAt?: string;
	request: ResponseRequest & IDataObject;
}

export function pendingJson(request: ResponseRequest, messageId: string, conversationId: string, sentAt: Date): PendingJson {
	return {
		timedOut: true,
		data: {},
		messageId,
		conversationId,
		sentAt: sentAt.toISOString(),
		request: request as ResponseRequest & IDataObject,
	};
}

/** The pending item read back in a webhook call, or undefined when the waiting input is not one. */
export function asPending(value: unknown): PendingJson | undefined {
	if (!value || typeof value !== 'object') return undefined;
	const json = value as IDataObject;
	const request = json.request as IDataObject | undefined;
	if (json.timedOut !== true || !request || typeof request.waitId !== 'string') return undefined;
	if (!RESPONSE_TYPES.includes(request.responseType as ResponseType)) return undefined;
	return json as PendingJson;
}
