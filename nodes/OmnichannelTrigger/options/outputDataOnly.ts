import type { INodeProperties } from 'n8n-workflow';

import { dataOf } from '../../shared/triggerItem';
import type { TriggerEvent } from '../../shared/triggerItem';
import type { TriggerOption } from './option';

const description: INodeProperties = {
	displayName: 'Output Data Only',
	name: 'outputDataOnly',
	type: 'boolean',
	default: false,
	description: "Whether to output only the event's data (the message or contact) instead of the whole event",
};

export const outputDataOnly: TriggerOption<true> = {
	description,
	read: (_node, options) => (options.outputDataOnly === true ? true : undefined),
	shapeItem: (event) => dataOf(event as TriggerEvent),
};
