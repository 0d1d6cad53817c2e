/** Answer a Burst Once's Max Messages: a burst continues at once when it holds this many customer messages. */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { RECENT_MESSAGES } from '../../shared/conversation';
import { CAP_OPTION_NAMES } from '../common/burstCaps';
import type { TriggerOption } from './option';

/** A burst is gathered from one read of the conversation's latest messages. */
export const MAX_BURST_MESSAGES = RECENT_MESSAGES;
const DISPLAY_NAME = 'Burst Max Messages';

const description: INodeProperties = {
	displayName: DISPLAY_NAME,
	name: CAP_OPTION_NAMES.maxMessages,
	type: 'number',
	default: 10,
	typeOptions: { minValue: 1, maxValue: MAX_BURST_MESSAGES, numberPrecision: 0 },
	description: `With Answer a Burst Once: continue at once when the burst holds this many customer messages ('burst.endedBy': maxMessages); later messages start the next burst. 1 to ${MAX_BURST_MESSAGES}. Without this option: no limit.`,
};

/** Max Messages, or undefined when the option is off; throws when it is not a whole number from 1 to its maximum, or Answer a Burst Once is off. */
export function maxMessagesOf(node: INode, options: IDataObject, itemIndex?: number): number | undefined {
	const value = options[CAP_OPTION_NAMES.maxMessages];
	if (value === undefined) return undefined;
	const fits = typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_BURST_MESSAGES;
	if (!fits || options.burstQuietSeconds === undefined) {
		throw new NodeOperationError(
			node,
			fits ? `'${DISPLAY_NAME}' works with 'Answer a Burst Once': add that option too` : `'${DISPLAY_NAME}' needs a whole number from 1 to ${MAX_BURST_MESSAGES}`,
			{
				itemIndex,
				description: `The option's value is ${JSON.stringify(value)}. Set it to a whole number of customer messages from 1 to ${MAX_BURST_MESSAGES}, with 'Answer a Burst Once', or remove the option.`,
			},
		);
	}
	return value as number;
}

/** Read with Answer a Burst Once (burst.ts, common/burstCaps.ts); it has no effect of its own. */
export const burstMaxMessages: TriggerOption<number> = { description, read: maxMessagesOf };
