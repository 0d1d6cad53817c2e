import type { INodeProperties } from 'n8n-workflow';

import { MESSAGE_DIRECTION_OPTIONS } from '../../shared/messageAuthors';
import type { MessageDirection } from '../../shared/messageAuthors';
import { inDirections } from '../../shared/messageFilters';
import type { TriggerOption } from './option';

const description: INodeProperties = {
	displayName: 'Message Directions',
	name: 'directions',
	type: 'multiOptions',
	default: [],
	description: 'Only messages sent this way start the workflow. Leave empty for all. Other events are not affected.',
	options: MESSAGE_DIRECTION_OPTIONS,
};

export const directions: TriggerOption<MessageDirection[]> = {
	description,
	read: (_node, options) => (options.directions as MessageDirection[] | undefined) ?? [],
	passes: (message, chosen) => inDirections(message, chosen),
};
