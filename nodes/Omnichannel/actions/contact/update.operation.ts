import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { contactLocator } from '../../../shared/resourceLocators';
import { apiRequest } from '../../../shared/transport';
import { contactBody, contactFieldOptions } from './fields';
import { collection, requiredId } from '../../helpers/parameters';
import { simplifyProperty } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import type { OperationExecute } from '../../helpers/operation';

const properties: INodeProperties[] = [
	contactLocator(),
	...simplifyProperty('contact'),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Only the fields added here change; an empty value clears the field',
		options: contactFieldOptions(true),
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['update'] } },
	properties,
);

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const contactId = requiredId(this, validator, 'contactId', 'Contact');
	const body = contactBody(validator, collection(this, itemIndex, 'updateFields'));
	if (Object.keys(body).length === 0) {
		validator.fail('Update Fields', 'no field to update was added', "Add at least one field under 'Update Fields'.");
	}
	const path = `/contacts/${encodeURIComponent(contactId)}`;
	const request = { itemIndex, ...run.throttle };
	return async () => {
		// The API requires a name on every update (docs/api-assumptions.md, "Contacts"): keep the current one.
		if (body.name === undefined) {
			const current = (await apiRequest.call(this, 'GET', path, request)) as IDataObject;
			body.name = current.name;
		}
		await apiRequest.call(this, 'PATCH', path, { ...request, body });
		// The API answers with a bare confirmation; output the resulting contact.
		return (await apiRequest.call(this, 'GET', path, request)) as IDataObject;
	};
};
