import type { IDataObject } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { contactLocator } from '../../../shared/resourceLocators';
import { apiRequest } from '../../../shared/transport';
import { requiredId } from '../../helpers/parameters';
import { simplifyProperty } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import type { OperationExecute } from '../../helpers/operation';

export const description = updateDisplayOptions({ show: { resource: ['contact'], operation: ['get'] } }, [
	contactLocator(),
	...simplifyProperty('contact'),
]);

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const contactId = requiredId(this, validator, 'contactId', 'Contact');
	const path = `/contacts/${encodeURIComponent(contactId)}`;
	return async () => (await apiRequest.call(this, 'GET', path, { itemIndex, ...run.throttle })) as IDataObject;
};
