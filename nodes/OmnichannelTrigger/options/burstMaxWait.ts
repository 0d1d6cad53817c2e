/** Answer a Burst Once's Max Wait: a customer who keeps writing is answered this long after the burst's first message. */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { CAP_OPTION_NAMES } from '../common/burstCaps';
import type { TriggerOption } from './option';

/** A burst's messages are gathered from the last hour (burst.ts, MAX_BURST_AGE_MS). */
export const MAX_WAIT_SECONDS = 3600;
const DISPLAY_NAME = 'Burst Max Wait (Seconds)';

const description: INodeProperties = {
	displayName: DISPLAY_NAME,
	name: CAP_OPTION_NAMES.maxWait,
	type: 'number',
	default: 30,
	typeOptions: { minValue: 1, maxValue: MAX_WAIT_SECONDS },
	description: `With Answer a Burst Once: continue this many seconds after the burst's first customer message even if the customer is still writing ('burst.endedBy': maxWait); later messages start the next burst. At least the quiet period, at most ${MAX_WAIT_SECONDS}. Without this option, a burst waits for the quiet period however long the customer writes.`,
};

function refuse(node: INode, value: unknown, why: string, itemIndex?: number): never {
	throw new NodeOperationError(node, `'${DISPLAY_NAME}' ${why}`, {
		itemIndex,
		description: `The option's value is ${JSON.stringify(value)}. Set it to a number of seconds from the quiet period of 'Answer a Burst Once' to ${MAX_WAIT_SECONDS}, or remove the option.`,
	});
}

/** Max Wait in seconds, or undefined when the option is off; throws when it is not a number from the quiet period to its maximum, or Answer a Burst Once is off. */
export function maxWaitSecondsOf(node: INode, options: IDataObject, itemIndex?: number): number | undefined {
	const value = options[CAP_OPTION_NAMES.maxWait];
	if (value === undefined) return undefined;
	if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_WAIT_SECONDS) {
		refuse(node, value, `needs a number of seconds above 0 and at most ${MAX_WAIT_SECONDS}`, itemIndex);
	}
	const quiet = options.burstQuietSeconds;
	if (quiet === undefined) refuse(node, value, "works with 'Answer a Burst Once': add that option too", itemIndex);
	if (typeof quiet === 'number' && value < quiet) refuse(node, value, `is shorter than the quiet period of 'Answer a Burst Once' (${quiet} seconds)`, itemIndex);
	return value;
}

/** Read with Answer a Burst Once (burst.ts, common/burstCaps.ts); it has no effect of its own. */
export const burstMaxWait: TriggerOption<number> = { description, read: maxWaitSecondsOf };
