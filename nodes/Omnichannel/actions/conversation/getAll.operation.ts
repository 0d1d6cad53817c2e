import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionalId } from '../../../shared/parameterValues';
import { channelLocator } from '../../../shared/resourceLocators';
import { toUnixSeconds } from '../../helpers/dates';
import { listCall, timeWindow } from '../../helpers/list';
import { collection } from '../../helpers/parameters';
import { simplifyProperty } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import { filtersCollection, returnAllOrLimit } from '../../helpers/descriptions';
import type { OperationExecute } from '../../helpers/operation';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	...simplifyProperty('conversation'),
	filtersCollection([
		{
			...channelLocator(),
			required: false,
			description:
				'Only conversations of this channel. The API has no such filter, so n8n reads the pages and keeps the matching conversations.',
		},
		{
			displayName: 'Updated Before',
			name: 'updatedBefore',
			type: 'dateTime',
			default: '',
			description:
				'Only conversations last updated before this time, in the workflow time zone unless the value carries its own. The API has no such filter; it lists conversations by their last activity, newest first, so n8n finds the first page that reaches back to it by a search over page numbers.',
		},
		{
			displayName: 'Updated Since',
			name: 'updatedSince',
			type: 'dateTime',
			default: '',
			description:
				'Only conversations updated at or after this time (delta sync), in the workflow time zone unless the value carries its own',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['conversation'], operation: ['getAll'] } },
	properties,
);

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const filters = collection(this, itemIndex, 'filters');
	// Updated Since is the API's own filter (whole seconds); Updated Before is read as a window.
	const window = timeWindow(this, validator, 'updated_at', {
		after: { field: 'Updated Since', value: filters.updatedSince },
		before: { field: 'Updated Before', value: filters.updatedBefore },
	});
	delete window.afterMs;
	const qs: IDataObject = {};
	if (filters.updatedSince !== undefined && filters.updatedSince !== '') {
		qs.last_updated_at = toUnixSeconds(validator, 'Updated Since', filters.updatedSince, this.getTimezone());
	}
	const channelId = optionalId(filters.channelId);
	const keep = channelId ? (conversation: IDataObject) => conversation.channel_id === channelId : undefined;
	return listCall(this, itemIndex, run, '/conversations', qs, keep, window);
};
