import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { contactLocator } from '../../../shared/resourceLocators';
import { apiRequest } from '../../../shared/transport';
import { requiredId } from '../../helpers/parameters';
import { simplifyProperty } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import type { OperationExecute } from '../../helpers/operation';

const properties: INodeProperties[] = [
	{
		...contactLocator('primaryContactId', 'Primary Contact'),
		description: 'The contact to keep; its non-empty fields win',
	},
	{
		...contactLocator('secondaryContactId', 'Secondary Contact'),
		description: 'The contact merged into the primary one and then deleted',
	},
	...simplifyProperty('contact'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['merge'] } },
	properties,
);

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const primaryId = requiredId(this, validator, 'primaryContactId', 'Primary Contact');
	const secondaryId = requiredId(this, validator, 'secondaryContactId', 'Secondary Contact');
	if (primaryId === secondaryId) {
		validator.fail('Secondary Contact', "it is the same contact as 'Primary Contact'", 'Choose two different contacts.');
	}
	const request = { itemIndex, ...run.throttle };
	return async () => {
		const response = (await apiRequest.call(this, 'POST', '/contacts/merge', {
			...request,
			body: { primary_id: primaryId, secondary_id: secondaryId },
		})) as IDataObject;
		// A merge returns the merged contact (docs/api-assumptions.md, "Contacts"); an answer without it is followed by a read.
		const merged = response.contact as IDataObject | undefined;
		return (
			merged ??
			((await apiRequest.call(this, 'GET', `/contacts/${encodeURIComponent(primaryId)}`, request)) as IDataObject)
		);
	};
};
