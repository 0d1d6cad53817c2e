import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionalId } from '../../../shared/parameterValues';
import { conversationLocator } from '../../../shared/resourceLocators';
import { createdWindow, listCall } from '../../helpers/list';
import { collection } from '../../helpers/parameters';
import { simplifyProperty } from '../../helpers/simplify';
import { createdWindowFilters, filtersCollection, returnAllOrLimit } from '../../helpers/descriptions';
import { ItemValidator } from '../../helpers/validation';
import type { OperationExecute } from '../../helpers/operation';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	...simplifyProperty('message'),
	filtersCollection([
		{
			...conversationLocator(),
			required: false,
			description: 'Only messages of this conversation',
		},
		{
			displayName: 'Message Session ID',
			name: 'messageSessionId',
			type: 'string',
			default: '',
			placeholder: 'e.g. ses_3VtN7hB1qX9mK5wR2zLc',
			description: 'Only messages of this message session',
		},
		...createdWindowFilters('messages'),
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['getAll'] } },
	properties,
);

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const filters = collection(this, itemIndex, 'filters');
	const window = createdWindow(this, validator, filters);
	const qs: IDataObject = {};
	const conversationId = optionalId(filters.conversationId);
	if (conversationId) qs.conversation_id = conversationId;
	const messageSessionId = optionalId(filters.messageSessionId);
	if (messageSessionId) qs.message_session_id = messageSessionId;
	return listCall(this, itemIndex, run, '/messages', qs, undefined, window);
};
