/**
 * "Step Aside for a Person": while a person of the workspace has
 * written in the conversation within the chosen period before a customer's
 * message (or after it, during a burst's quiet period), the customer's
 * message does not continue the workflow; the execution says so in a hint.
 * A person is anyone the package's one classifier calls so
 * (shared/messageAuthors.ts): not System, not this package's own sends. Times
 * are the service's own (created_at), so n8n's clock does not matter.
 *
 * After Conversation > Hand Over to a Person (shared/handOverToPerson), the
 * bot keeps quiet until a person has written and the period has passed after
 * their last message, or until the Hand-Over Limit passes with no person's
 * answer; the same read decides it.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { timeOf } from '../../shared/conversation';
import type { ConversationMessage } from '../../shared/conversation';
import { messageAuthor } from '../../shared/messageAuthors';
import { DEFAULT_HAND_OVER_HOURS, MAX_HAND_OVER_HOURS } from '../../shared/handOverToPerson';

/** A week: longer hand-overs are a conversation's status, not a pause. */
export const MAX_STEP_ASIDE_MINUTES = 7 * 24 * 60;

export const stepAsideOption: INodeProperties = {
	displayName: 'Step Aside for a Person',
	name: 'stepAsideMinutes',
	type: 'number',
	default: 15,
	typeOptions: { minValue: 0.1, maxValue: MAX_STEP_ASIDE_MINUTES, numberPrecision: 1 },
	description:
		"The period, in minutes. For bots in a shared inbox: while a person of the workspace has written in the conversation within this many minutes, customer messages do not continue the workflow (the execution ends with a hint saying who answered and when the bot answers again). System messages and n8n's own sends don't count. After a hand-over (Omnichannel > Conversation > Hand Over to a Person), the bot stays quiet until a person has written, or until the Hand-Over Limit. Needs the Omnichannel API credential (messages:read).",
	hint: 'The conversation is read once per customer message; with Answer a Burst Once, the same read serves both.',
};

/** An option's number above 0 and at most `max`, or the error naming the option, its unit and the value. */
function positiveAtMost(node: INode, value: unknown, option: string, unit: string, max: number, itemIndex?: number): number {
	if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max) {
		throw new NodeOperationError(node, `'${option}' needs a positive number of ${unit}, at most ${max}`, {
			itemIndex,
			description: `The option's value is ${JSON.stringify(value)}. Set it to a number of ${unit} above 0 and at most ${max}.`,
		});
	}
	return value;
}

/** The period the node asks for in minutes, or undefined when the option is off; throws when it is not a positive number. */
export function stepAsideMinutesOf(node: INode, options: IDataObject, itemIndex?: number): number | undefined {
	const value = options.stepAsideMinutes;
	if (value === undefined) return undefined;
	return positiveAtMost(node, value, 'Step Aside for a Person', 'minutes', MAX_STEP_ASIDE_MINUTES, itemIndex);
}

export const handOverLimitOption: INodeProperties = {
	displayName: 'Hand-Over Limit (Hours)',
	name: 'handOverLimitHours',
	type: 'number',
	default: 24,
	typeOptions: { minValue: 0.001, maxValue: MAX_HAND_OVER_HOURS, numberPrecision: 3 },
	description: `With Step Aside for a Person, after a hand-over (Omnichannel > Conversation > Hand Over to a Person): if no person of the workspace writes within this many hours, the bot answers again and the item says so ('handOver.expired'). A hand-over that sets its own limit keeps it. Without this option: ${DEFAULT_HAND_OVER_HOURS} hours.`,
};

/** The hand-over limit in hours (its default when the option is not added); throws when it is not a positive number. */
export function handOverLimitHoursOf(node: INode, options: IDataObject, itemIndex?: number): number {
	const value = options.handOverLimitHours;
	if (value === undefined) return DEFAULT_HAND_OVER_HOURS;
	return positiveAtMost(node, value, 'Hand-Over Limit (Hours)', 'hours', MAX_HAND_OVER_HOURS, itemIndex);
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
