import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { CHANNEL_TYPE_OPTIONS } from '../../shared/channelTypes';
import { onChannelTypes } from '../../shared/messageFilters';
import type { TriggerOption } from './option';

const description: INodeProperties = {
	displayName: 'Channel Types',
	name: 'channelTypes',
	type: 'multiOptions',
	default: [],
	description: 'Only messages on these channel types start the workflow. Leave empty for all. Other events are not affected.',
	options: CHANNEL_TYPE_OPTIONS,
};

/** The channel types chosen (none: every type); chat replies are routed on them only, too. */
export const channelTypesOf = (options: IDataObject): string[] => (options.channelTypes as string[] | undefined) ?? [];

export const channelTypes: TriggerOption<string[]> = {
	description,
	read: (_node, options) => channelTypesOf(options),
	passes: (message, types) => onChannelTypes(message, types),
};
