import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { DEFAULT_HAND_OVER_HOURS, MAX_HAND_OVER_HOURS } from '../../shared/handOverToPerson';
import { positiveAtMost } from './option';
import type { OptionValues, TriggerOption } from './option';

const description: INodeProperties = {
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

/** The limit among the values the step read: always a number, its default when the option was not added. */
export const handOverLimitHoursIn = (values: OptionValues): number => values[description.name] as number;

/** Step Aside for a Person reads it (stepAside.ts); it has no effect of its own. */
export const handOverLimit: TriggerOption<number> = { description, read: handOverLimitHoursOf };
