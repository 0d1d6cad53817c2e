/**
 * The trigger's step for a customer's message when an option reads the
 * conversation (Answer a Burst Once, Step Aside for a Person): one
 * read of its latest messages serves both, and the same read is kept for the
 * rest of the execution, so the Omnichannel Chat Memory does not read again
 * (shared/conversation.ts).
 */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IHookFunctions, INode } from 'n8n-workflow';

import { readRecentMessages } from '../../shared/conversation';
import { messageAuthor } from '../../shared/messageAuthors';
import { answerBurst, quietSecondsOf, waitUnlessCancelled } from './burst';
import type { Burst, BurstMessage } from './burst';
import { DEFAULT_HAND_OVER_HOURS, expiredHandOverItem, handOverAnsweredHint, handOverVerdict, handOverWaitingHint, keepEndedHandOver } from '../../shared/handOverToPerson';
import type { TriggerHandOver } from '../../shared/triggerItem';
import { handOverLimitHoursOf, personAnswering, stepAsideHint, stepAsideMinutesOf } from './stepAside';

/** The message of a `message.created` event that a customer wrote; undefined for every other event. */
export function customerMessageOf(event: { type: string; data?: IDataObject }): IDataObject | undefined {
	return event.type === 'message.created' && event.data && messageAuthor(event.data) === 'customer' ? event.data : undefined;
}

export interface ConversationOptions {
	quietSeconds?: number;
	stepAsideMinutes?: number;
	/** Read only with Step Aside, which honours hand-overs; its default when absent. */
	handOverLimitHours?: number;
}

/** The options that read the conversation, checked; both undefined when neither is on. */
export function conversationOptionsOf(node: INode, options: IDataObject, itemIndex?: number): ConversationOptions {
	return {
		quietSeconds: quietSecondsOf(node, options, itemIndex),
		stepAsideMinutes: stepAsideMinutesOf(node, options, itemIndex),
		handOverLimitHours: handOverLimitHoursOf(node, options, itemIndex),
	};
}

const readsConversation = (options: ConversationOptions) => options.quietSeconds !== undefined || options.stepAsideMinutes !== undefined;

function requireApiCredential(node: INode, itemIndex?: number): void {
	if (node.credentials?.omnichannelApi === undefined) {
		throw new NodeOperationError(node, "'Answer a Burst Once' and 'Step Aside for a Person' need an Omnichannel API credential", {
			itemIndex,
			description:
				"They read the conversation's latest messages (scope messages:read). Select or create an Omnichannel API credential in the node, or remove the options.",
		});
	}
}

/** Activation's check: valid values, and the API credential the options read with (manual registration does not need it otherwise). */
export function checkConversationOptions(context: IHookFunctions): void {
	const node = context.getNode();
	if (readsConversation(conversationOptionsOf(node, context.getNodeParameter('options', {}) as IDataObject))) requireApiCredential(node);
}

export type CustomerMessageOutcome = { continue: true; burst?: Burst; handOver?: TriggerHandOver } | { continue: false; hint: string };

export async function customerMessageStep(
	context: IExecuteFunctions,
	message: BurstMessage,
	options: ConversationOptions,
	itemIndex: number,
	/** How much of the quiet period the delivery was already held (quietHold.ts). */
	quietWaitedMs = 0,
): Promise<CustomerMessageOutcome> {
	if (!readsConversation(options)) return { continue: true };
	const node = context.getNode();
	requireApiCredential(node, itemIndex);
	if (typeof message.id !== 'string' || typeof message.conversation_id !== 'string') {
		throw new NodeOperationError(node, 'The message event has no message id or conversation id', {
			itemIndex,
			description: 'Answer a Burst Once and Step Aside need both, as every message.created event of the service carries them. Remove the options for events of another shape.',
		});
	}
	// From the delivery's arrival, not the message's created_at: the service's
	// clock may differ from n8n's, and a late delivery then still waits.
	const quietLeftMs = options.quietSeconds === undefined ? 0 : options.quietSeconds * 1000 - quietWaitedMs;
	if (quietLeftMs > 0) await waitUnlessCancelled(context, quietLeftMs, itemIndex);
	const latest = (await readRecentMessages(context, message.conversation_id, { itemIndex, keepForExecution: true })) as BurstMessage[];
	let handOver: TriggerHandOver | undefined;
	if (options.stepAsideMinutes !== undefined) {
		const verdict = handOverVerdict(message, latest, options.handOverLimitHours ?? DEFAULT_HAND_OVER_HOURS);
		if (verdict.kind === 'waiting') return { continue: false, hint: handOverWaitingHint(message, verdict, options.stepAsideMinutes) };
		const person = personAnswering(message, latest, options.stepAsideMinutes);
		if (person) {
			const hint = verdict.kind === 'answered' ? handOverAnsweredHint(message, verdict, person, options.stepAsideMinutes) : stepAsideHint(message, person, options.stepAsideMinutes);
			return { continue: false, hint };
		}
		if (verdict.kind === 'expired') {
			handOver = expiredHandOverItem(verdict);
			// A hand-over in this execution (or its Retry) starts anew instead of repeating the expired one.
			keepEndedHandOver(context, verdict.episode);
		}
	}
	if (options.quietSeconds === undefined) return { continue: true, handOver };
	const outcome = await answerBurst(context, message, latest, options.quietSeconds);
	return 'hint' in outcome ? { continue: false, hint: outcome.hint } : { continue: true, burst: outcome.burst, handOver };
}
