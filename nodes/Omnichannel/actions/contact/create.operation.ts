import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkName, contactBody, contactFieldOptions, nameProperty } from './fields';
import { collection } from '../../helpers/parameters';
import { simplifyProperty } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import { apiRequest } from '../../../shared/transport';
import type { OperationExecute } from '../../helpers/operation';

const properties: INodeProperties[] = [
	{ ...nameProperty, required: true },
	...simplifyProperty('contact'),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: contactFieldOptions(false),
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['create'] } },
	properties,
);

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const body = {
		...contactBody(validator, collection(this, itemIndex, 'additionalFields')),
		name: checkName(validator, this.getNodeParameter('name', itemIndex, '')),
	};
	// Not retried after a dropped connection: with no idempotency key, a repeat could create the contact twice (see the transport).
	return async () =>
		(await apiRequest.call(this, 'POST', '/contacts', { body, itemIndex, ...run.throttle })) as IDataObject;
};
