/** Step Aside for a Person: while a person of the workspace has written within the period, or after a hand-over until a person wrote or its limit passed, customer messages do not continue the workflow. */
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { timeOf } from '../../shared/conversation';
import type { ConversationMessage } from '../../shared/conversation';
import { expiredHandOverItem, handOverAnsweredHint, handOverVerdict, handOverWaitingHint, keepEndedHandOver } from '../../shared/handOverToPerson';
import { messageAuthor } from '../../shared/messageAuthors';
import { handOverLimitHoursIn } from './handOverLimit';
import { positiveAtMost } from './option';
import type { StepVerdict, TriggerOption } from './option';

/** A week: longer hand-overs are a conversation's status, not a pause. */
export const MAX_STEP_ASIDE_MINUTES = 7 * 24 * 60;

const description: INodeProperties = {
	displayName: 'Step Aside for a Person',
	name: 'stepAsideMinutes',
	type: 'number',
	default: 15,
	typeOptions: { minValue: 0.1, maxValue: MAX_STEP_ASIDE_MINUTES, numberPrecision: 1 },
	description:
		"The period, in minutes. For bots in a shared inbox: while a person of the workspace has written in the conversation within this many minutes, customer messages do not continue the workflow (the execution ends with a hint saying who answered and when the bot answers again). System messages and n8n's own sends don't count. After a hand-over (Omnichannel > Conversation > Hand Over to a Person), the bot stays quiet until a person has written, or until the Hand-Over Limit. Needs the Omnichannel API credential (messages:read).",
	hint: `0.1 to ${MAX_STEP_ASIDE_MINUTES.toLocaleString('en-US')} minutes (a week). The conversation is read once per customer message; with Answer a Burst Once, the same read serves both.`,
};

/** The period the node asks for in minutes, or undefined when the option is off; throws when it is not a positive number. */
export function stepAsideMinutesOf(node: INode, options: IDataObject, itemIndex?: number): number | undefined {
	const value = options.stepAsideMinutes;
	if (value === undefined) return undefined;
	return positiveAtMost(node, value, 'Step Aside for a Person', 'minutes', MAX_STEP_ASIDE_MINUTES, itemIndex);
}

/** The newest message of a person at most `minutes` before `message`, or after it: the bot steps aside. */
export function personAnswering(message: ConversationMessage, latest: ConversationMessage[], minutes: number): ConversationMessage | undefined {
	const since = timeOf(message) - minutes * 60_000;
	return latest.find((listed) => messageAuthor(listed) === 'person' && timeOf(listed) >= since);
}

export function stepAsideHint(message: ConversationMessage, person: ConversationMessage, minutes: number): string {
	const until = new Date(timeOf(person) + minutes * 60_000).toISOString();
	return `Message ${message.id}: a person of the workspace (${String(person.from_user_id)}) wrote in this conversation at ${String(person.created_at)}, so the workflow steps aside until ${until}. This execution ran nothing downstream.`;
}

export const stepAside: TriggerOption<number> = {
	description,
	read: stepAsideMinutesOf,
	readsConversation: true,
	check: ({ context, message, latest, values }, minutes): StepVerdict => {
		const verdict = handOverVerdict(message, latest, handOverLimitHoursIn(values));
		if (verdict.kind === 'waiting') return { stop: handOverWaitingHint(message, verdict, minutes) };
		const person = personAnswering(message, latest, minutes);
		if (person) return { stop: verdict.kind === 'answered' ? handOverAnsweredHint(message, verdict, person, minutes) : stepAsideHint(message, person, minutes) };
		if (verdict.kind !== 'expired') return {};
		// A hand-over in this execution (or its Retry) starts anew instead of repeating the expired one.
		keepEndedHandOver(context, verdict.episode);
		return { item: { handOver: expiredHandOverItem(verdict) } };
	},
};
