import { sleep } from 'n8n-workflow';
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import {
	answerOf,
	chatResumeUrl,
	HAND_OVER_SIGNATURE_HEADER,
	isFromParty,
	openCarrier,
	signHandOver,
	workflowTag,
} from '../shared/chatWait';
import type { ChatWait, HandOver } from '../shared/chatWait';
import { BoundedMap } from '../shared/boundedMap';
import { readRecentMessages, timeOf } from '../shared/conversation';
import { isOwnSend } from '../shared/messageAuthors';
import { onChannelTypes } from '../shared/messageFilters';
import { credentialChatWaitKey } from '../shared/transport';
import type { ServiceEvent } from './delivery';
import { eventFilters } from './parameters';

/**
 * A chat reply to a waiting Send and Wait (shared/chatWait.ts explains the
 * carrier). This trigger sees every message of the conversation; when one is
 * the answer of a wait of this workflow, it hands the reply to the waiting
 * execution instead of starting a run, so one inbound message costs one read
 * of the conversation and at most one call of n8n, however many executions
 * wait.
 */

/**
 * How long after the question a waiting execution can still be starting its
 * wait: the question is sent just before the node returns, and n8n then saves
 * the execution as waiting. Until then n8n answers 409 "running"; after it,
 * 409 "running" means the wait was already answered and the run goes on.
 */
const ARMING_MS = 30_000;
/** Retries of a hand-over n8n answered "running", within one delivery (the sender allows 10 s). */
const RETRY_WITHIN_DELIVERY_MS = 6_000;
const RETRY_PAUSE_MS = 100;
const HAND_OVER_TIMEOUT_MS = 8_000;

/** Process memory: events this process handed over, so a copy is acknowledged at once. */
const handedOver = new BoundedMap<string, true>(10_000);

export type Routing = 'handedOver' | 'retryLater';

/** Whether a node of this workflow after the trigger waits for answers in the chat (n8n versions without getChildNodes have none). */
function workflowWaitsInChat(context: IWebhookFunctions): boolean {
	if (typeof context.getChildNodes !== 'function') return false;
	return context.getChildNodes(context.getNode().name, { includeNodeParameters: true }).some((node) => {
		const parameters = (node.parameters ?? {}) as IDataObject;
		if (node.disabled || !node.type.endsWith('.omnichannel') || parameters.operation !== 'sendAndWait') return false;
		if (parameters.responseType === 'chatReply') return true;
		const approval = (parameters.approvalOptions as IDataObject | undefined)?.values as IDataObject | undefined;
		return (parameters.responseType ?? 'approval') === 'approval' && (approval?.answerIn ?? 'links') !== 'links';
	});
}

interface Answer {
	wait: ChatWait;
	handOver: HandOver;
}

/**
 * The wait a message answers, if any: the newest question of this workflow
 * (sealed with its credential's key) at or before it, not expired, with the message from the party
 * it listens to and no earlier reply having settled it. Times decide, not
 * list positions: a reply created in the same millisecond as its question
 * may be listed either side of it (docs/api-assumptions.md, "Lists and
 * pagination"). `messages` are the conversation's newest, newest first.
 */
export function answeredWait(key: Buffer, workflow: string, event: ServiceEvent, messages: IDataObject[], now: number): Answer | undefined {
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
	// A free reply is settled by the first; an approval by the first that is one of the words.
	const settledBy = wait.approve ? replies.findIndex((one) => answerOf(wait, one.content)) : 0;
	if (settledBy >= 0 && settledBy < replies.length - 1) return undefined;
	return { wait, handOver: { questionId: String(question.id), eventId: event.id, replies } };
}

/** The origin n8n serves this workflow's webhooks on, which is where its waiting executions resume. */
function n8nOrigin(context: IWebhookFunctions): string {
	return new URL(context.getNodeWebhookUrl('default') ?? '').origin;
}

interface HandOverAnswer {
	statusCode: number;
	body: unknown;
}

/** One call of the waiting execution's resume URL: n8n itself, not the service. */
async function callWaitingExecution(context: IWebhookFunctions, url: string, body: string, signature: string): Promise<HandOverAnswer> {
	const response = (await context.helpers.httpRequest({
		method: 'POST',
		url,
		body,
		headers: { 'Content-Type': 'application/json', [HAND_OVER_SIGNATURE_HEADER]: signature },
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: HAND_OVER_TIMEOUT_MS,
		json: false,
	})) as { statusCode: number; body: unknown };
	let parsed = response.body;
	try {
		parsed = typeof parsed === 'string' ? JSON.parse(parsed) : parsed;
	} catch {
		// n8n's own pages are HTML.
	}
	return { statusCode: response.statusCode, body: parsed };
}

const isRunning = (answer: HandOverAnswer) =>
	answer.statusCode === 409 && /running/i.test(String((answer.body as IDataObject | undefined)?.message ?? answer.body));

/**
 * Hands the reply over, retrying while the waiting execution is still
 * starting its wait. Resolves to 'handedOver' once the wait has it or is
 * settled (answered by this or another reply or a link, timed out, stopped,
 * deleted: n8n's lock lets one answer resume it), 'retryLater' when the
 * execution may still be starting its wait: the sender delivers again.
 */
async function handOver(context: IWebhookFunctions, key: Buffer, answer: Answer, question: IDataObject): Promise<Routing> {
	const body = JSON.stringify(answer.handOver);
	const url = chatResumeUrl(n8nOrigin(context), answer.wait);
	const questionAt = Date.parse(String(question.created_at ?? ''));
	const deadline = Date.now() + RETRY_WITHIN_DELIVERY_MS;
	for (;;) {
		let result: HandOverAnswer | undefined;
		try {
			result = await callWaitingExecution(context, url, body, signHandOver(key, body));
		} catch (error) {
			context.logger.warn(`Omnichannel Trigger "${context.getNode().name}" could not reach n8n to hand over a chat reply: ${(error as Error).message}`);
			return 'retryLater';
		}
		if (result.statusCode >= 200 && result.statusCode < 300) return 'handedOver';
		// Our node's own failure page: the sender delivers again.
		if (result.statusCode === 500 && typeof result.body === 'string') return 'retryLater';
		if (!isRunning(result)) return 'handedOver';
		const stillArming = Number.isNaN(questionAt) || Date.now() - questionAt < ARMING_MS;
		if (!stillArming) return 'handedOver';
		if (Date.now() >= deadline) return 'retryLater';
		await sleep(RETRY_PAUSE_MS);
	}
}

/**
 * Called for every verified delivery, before the trigger's own subscription
 * and filters (an agent's reply counts even where the trigger passes on only
 * customers' messages). Undefined: the event is not an answer, and the
 * trigger goes on as usual.
 */
export async function routeChatReply(context: IWebhookFunctions, event: ServiceEvent): Promise<Routing | undefined> {
	const message = event.data;
	if (event.type !== 'message.created' || !message || typeof message.conversation_id !== 'string' || isOwnSend(message)) return undefined;
	// A reply is in the conversation of its question, which this trigger's channel types let through.
	if (!onChannelTypes(message, eventFilters(context).channelTypes) || !workflowWaitsInChat(context)) return undefined;
	const routed = `${context.getWorkflow().id ?? ''}|${event.id}`;
	if (handedOver.get(routed)) return 'handedOver';
	let key: Buffer;
	try {
		key = await credentialChatWaitKey(context);
	} catch (error) {
		// Manual registration without an API credential: the trigger cannot read the conversation.
		context.logger.warn(
			`Omnichannel Trigger "${context.getNode().name}" of workflow ${context.getWorkflow().id ?? ''} cannot hand chat replies to waiting executions: ${(error as Error).message}. Give it the same Omnichannel API credential as the node that waits.`,
		);
		return undefined;
	}
	const messages: IDataObject[] = await readRecentMessages(context, message.conversation_id);
	const answer = answeredWait(key, workflowTag(context.getWorkflow().id), event, messages, Date.now());
	if (!answer) return undefined;
	const question = messages.find((one) => String(one.id) === answer.handOver.questionId) ?? {};
	const routing = await handOver(context, key, answer, question);
	if (routing === 'handedOver') handedOver.set(routed, true);
	return routing;
}
