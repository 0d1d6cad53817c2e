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

/**
 * A chat reply to a waiting Send and Wait (shared/chatWait explains the
 * carrier). This trigger sees every message of the conversation; when one is
 * the answer of a wait of this workflow, it relays the reply to the waiting
 * execution instead of starting a run, so one inbound message costs one read
 * of the conversation and at most one call of n8n, however many executions
 * wait.
 */

/** Whether a node of this workflow after the trigger waits for answers in the chat (n8n versions without getChildNodes have none). */
function workflowWaitsInChat(context: IWebhookFunctions): boolean {
	if (typeof context.getChildNodes !== 'function') return false;
	return context.getChildNodes(context.getNode().name, { includeNodeParameters: true }).some(waitsInChat);
}

interface Answer {
	wait: ChatWait;
	relay: Relay;
}

/**
 * The wait a message answers, if any: the newest question of this workflow
 * (sealed with its credential's key) at or before it, not expired, with the message from the party
 * it listens to and no earlier reply having settled it. Times decide, not
 * list positions: a reply created in the same millisecond as its question
 * may be listed either side of it (docs/api-assumptions.md, "Lists and
 * pagination"). `messages` are the conversation's newest, newest first.
 */
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

/**
 * What the delivery of a message does about the waits of its workflow:
 * - `asUsual`: it answers no wait (or no more): the trigger goes on as for
 *   any message;
 * - `taken`: a wait took it (`execution`); no other execution starts for
 *   it. A copy reaching this process later is taken from process memory, one
 *   reaching n8n after the wait finished gets n8n's finished page (shared/chatWait);
 * - `retryLater`: it may still answer a wait that cannot take it now: 503,
 *   the sender delivers again.
 */
export type ReplyRoute = { route: 'asUsual' } | { route: 'taken'; execution: string } | { route: 'retryLater'; reason: string };

/**
 * The sender's retries last 1 h 43 min (docs/api-assumptions.md, "Webhook
 * deliveries"); a message whose wait could not be reached for this long
 * starts the workflow as usual on one of the last two attempts, instead of
 * being dropped after the last.
 */
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

/**
 * A read of the conversation that failed. A refusal that a retry cannot
 * change (the key lacks messages:read, a 4xx) never holds the message back:
 * it starts the workflow as usual, and the log says once per trigger what
 * to fix. Anything else (5xx, timeout, the delivery's deadline) is retried by
 * the sender while it still retries.
 */
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

/**
 * The key both nodes derive from the credential. Without one (manual
 * registration needs none) or with one that cannot work (malformed, deleted),
 * replies cannot be routed: undefined, logged once per trigger. A read that
 * failed otherwise (n8n's database busy or down) is retried by the sender.
 */
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

/**
 * Called for every verified delivery, before the trigger's own subscription
 * and filters (an agent's reply counts even where the trigger passes on only
 * customers' messages). Every call it makes ends by `deadline`.
 */
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
