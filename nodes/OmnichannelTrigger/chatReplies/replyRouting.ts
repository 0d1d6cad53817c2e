import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { credentialChatWaitKey, executionOf, isFromParty, openCarrier, relay, settlesWait, waitsInChat, workflowTag } from '../../shared/chatWait';
import type { ChatWait, Relay, RelayOutcome } from '../../shared/chatWait';
import { BoundedMap } from '../../shared/processMemory/boundedMap';
import { readRecentMessages, timeOf } from '../../shared/conversation';
import { isOwnSend } from '../../shared/messageAuthors';
import { onChannelTypes } from '../../shared/messageFilters';
import type { TriggerEvent } from '../../shared/triggerItem';
import { channelTypesOf } from '../options/channelTypes';

/** A reply to a waiting Send and Wait is relayed to that execution instead of starting a run: one read of the conversation and at most one call of n8n per message. */

/** Whether a node of this workflow after the trigger waits for answers in the chat (n8n versions without getChildNodes have none). */
function workflowWaitsInChat(context: IWebhookFunctions): boolean {
	if (typeof context.getChildNodes !== 'function') return false;
	return context.getChildNodes(context.getNode().name, { includeNodeParameters: true }).some(waitsInChat);
}

interface Answer {
	wait: ChatWait;
	relay: Relay;
}

/** The wait a message answers, if any: the newest open question of this workflow at or before it, from the party it listens to and not yet settled; times decide, not list positions (docs/api-assumptions.md, "Lists and pagination"). */
export function answeredWait(key: Buffer, workflow: string, event: TriggerEvent, messages: IDataObject[], now: number): Answer | undefined {
	const message = messages.find((one) => one.id === event.data.id) ?? event.data;
	const sentAt = timeOf(message);
	let question: IDataObject | undefined;
	let wait: ChatWait | undefined;
	for (const candidate of messages) {
		if (candidate.id === message.id || !(timeOf(candidate) <= sentAt)) continue;
		const opened = openCarrier(key, candidate.client_request_id);
		if (opened?.workflow === workflow && (!question || timeOf(candidate) > timeOf(question))) {
			question = candidate;
			wait = opened;
		}
	}
	if (!question || !wait) return undefined;
	if ((wait.expiresAt !== undefined && wait.expiresAt <= now) || !isFromParty(message, wait.party)) return undefined;
	const askedAt = timeOf(question);
	const earlier = messages
		.filter((one) => one.id !== message.id && timeOf(one) >= askedAt && timeOf(one) <= sentAt && isFromParty(one, wait.party))
		.reverse()
		.sort((a, b) => timeOf(a) - timeOf(b));
	const replies = [...earlier, message];
	const settledBy = replies.findIndex((one) => settlesWait(wait, one));
	if (settledBy >= 0 && settledBy < replies.length - 1) return undefined;
	return { wait, relay: { questionId: String(question.id), eventId: event.id, replies } };
}

/** The origin n8n serves this workflow's webhooks on, which is where its waiting executions resume. */
function n8nOrigin(context: IWebhookFunctions): string {
	return new URL(context.getNodeWebhookUrl('default') ?? '').origin;
}

/** Process memory: events this process relayed, so a copy is not relayed again. */
const relayed = new BoundedMap<string, string>(10_000);

/** What a message's delivery does about its workflow's waits: asUsual (it answers none), taken (a wait took it), retryLater (503: the sender delivers again). */
export type ReplyRoute = { route: 'asUsual' } | { route: 'taken'; execution: string } | { route: 'retryLater'; reason: string };

/** Past this, a reply whose wait cannot be reached starts the workflow as usual on one of the sender's last attempts instead of being dropped (docs/api-assumptions.md, "Webhook deliveries"). */
export const ROUTING_GIVES_UP_AFTER_MS = 30 * 60 * 1000;

const AS_USUAL: ReplyRoute = { route: 'asUsual' };

/** Whether the sender will still deliver this event again after a 503. */
function senderStillRetries(event: TriggerEvent, now: number): boolean {
	const createdAt = Date.parse(String(event.created_at ?? ''));
	return Number.isNaN(createdAt) || now - createdAt < ROUTING_GIVES_UP_AFTER_MS;
}

/** The one mapping of a relay's outcome to what the delivery does. */
function routeOf(outcome: RelayOutcome, wait: ChatWait, event: TriggerEvent, now: number): ReplyRoute {
	if (outcome === 'taken') return { route: 'taken', execution: executionOf(wait) };
	if (outcome === 'waitEnded' || !senderStillRetries(event, now)) return AS_USUAL;
	return {
		route: 'retryLater',
		reason: outcome === 'notWaitingYet' ? 'a waiting execution cannot take this reply yet; retry later' : 'the waiting execution could not be reached; retry later',
	};
}

/** Triggers whose key cannot read conversations, warned about once per process. */
const warnedCannotRead = new BoundedMap<string, true>(1_000);

/** A failed read of the conversation: a refusal no retry changes starts the workflow as usual (logged once per trigger); anything else is retried by the sender. */
function readFailed(context: IWebhookFunctions, event: TriggerEvent, error: unknown, now: number): ReplyRoute {
	const status = Number((error as { httpCode?: unknown }).httpCode);
	const where = `Omnichannel Trigger "${context.getNode().name}" of workflow ${context.getWorkflow().id ?? ''}`;
	const permanent = status >= 400 && status < 500 && status !== 408 && status !== 429;
	if (permanent || !senderStillRetries(event, now)) {
		if (!warnedCannotRead.get(where)) {
			warnedCannotRead.set(where, true);
			context.logger.warn(
				`${where} cannot check whether messages answer its waiting executions, so they start the workflow as usual: ${(error as Error).message}. Give its Omnichannel API key the scope messages:read.`,
			);
		}
		return AS_USUAL;
	}
	return { route: 'retryLater', reason: `could not check whether a message answers a waiting execution: ${(error as Error).message}` };
}

/** The conversation's newest messages, or how the delivery goes on without them. */
async function readConversation(context: IWebhookFunctions, event: TriggerEvent, deadline: number): Promise<IDataObject[] | ReplyRoute> {
	try {
		return await readRecentMessages(context, String(event.data.conversation_id), { deadline });
	} catch (error) {
		return readFailed(context, event, error, Date.now());
	}
}

/** The chat-wait key of the trigger's credential; without a usable one, replies are not relayed (logged once per trigger). */
async function chatWaitKeyOf(context: IWebhookFunctions, event: TriggerEvent): Promise<Buffer | ReplyRoute> {
	const where = `Omnichannel Trigger "${context.getNode().name}" of workflow ${context.getWorkflow().id ?? ''}`;
	const cannotRoute = (why: string): ReplyRoute => {
		if (!warnedCannotRead.get(`${where}|key`)) {
			warnedCannotRead.set(`${where}|key`, true);
			context.logger.warn(`${where} cannot relay chat replies to waiting executions: ${why}`);
		}
		return AS_USUAL;
	};
	if (!context.getNode().credentials?.omnichannelApi) {
		return cannotRoute('it has no Omnichannel API credential. Give it the same Omnichannel API credential as the node that waits.');
	}
	try {
		return await credentialChatWaitKey(context);
	} catch (error) {
		const message = (error as Error).message;
		// Our check of its form, or n8n's own refusals: no retry changes them.
		if (error instanceof NodeOperationError || /does not exist for type|was not found|cannot be used in workflows|could not be decrypted/i.test(message)) {
			return cannotRoute(`${message}. Give it the same Omnichannel API credential as the node that waits.`);
		}
		if (!senderStillRetries(event, Date.now())) return AS_USUAL;
		return { route: 'retryLater', reason: `could not read the trigger's Omnichannel API credential from n8n's database: ${message}` };
	}
}

/** Called for every verified delivery, before the trigger's own subscription and filters (an agent's reply counts even where the trigger passes on only customers' messages). */
export async function routeChatReply(context: IWebhookFunctions, event: TriggerEvent, deadline: number): Promise<ReplyRoute> {
	const message = event.data;
	if (event.type !== 'message.created' || !message || typeof message.conversation_id !== 'string') return AS_USUAL;
	// This package's sends never answer a wait; the node that asks a question ends the older waits itself.
	if (isOwnSend(message)) return AS_USUAL;
	// A reply is in the conversation of its question, which this trigger's channel types let through.
	if (!onChannelTypes(message, channelTypesOf(context.getNodeParameter('options', {}) as IDataObject)) || !workflowWaitsInChat(context)) return AS_USUAL;
	const routed = `${context.getWorkflow().id ?? ''}|${event.id}`;
	const earlier = relayed.get(routed);
	if (earlier !== undefined) return { route: 'taken', execution: earlier };
	const key = await chatWaitKeyOf(context, event);
	if (!Buffer.isBuffer(key)) return key;
	const messages = await readConversation(context, event, deadline);
	if (!Array.isArray(messages)) return messages;
	const answer = answeredWait(key, workflowTag(context.getWorkflow().id), event, messages, Date.now());
	if (!answer) return AS_USUAL;
	const route = routeOf(await relay(context, n8nOrigin(context), key, answer.wait, answer.relay, deadline), answer.wait, event, Date.now());
	if (route.route === 'taken') relayed.set(routed, route.execution);
	return route;
}
