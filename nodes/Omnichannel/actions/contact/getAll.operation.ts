import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { LEAD_STATUSES, leadStatusOptions } from '../../../shared/leadStatuses';
import { optionalString } from '../../../shared/parameterValues';
import { createdWindow, listCall } from '../../helpers/list';
import { collection } from '../../helpers/parameters';
import { simplifyProperty } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import { createdWindowFilters, filtersCollection, returnAllOrLimit } from '../../helpers/descriptions';
import type { OperationExecute } from '../../helpers/operation';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	...simplifyProperty('contact'),
	filtersCollection([
		...createdWindowFilters('contacts'),
		{
			displayName: 'Lead Status',
			name: 'leadStatus',
			type: 'options',
			options: leadStatusOptions.filter((option) => option.value !== ''),
			default: 'new',
			description: 'Only contacts with this lead status',
		},
		{
			displayName: 'Search',
			name: 'search',
			type: 'string',
			default: '',
			placeholder: 'e.g. nathan',
			description: 'Text found in the name, email, company or phone (case-insensitive)',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['getAll'] } },
	properties,
);

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const filters = collection(this, itemIndex, 'filters');
	const window = createdWindow(this, validator, filters);
	const qs: IDataObject = {};
	const search = optionalString(filters.search);
	if (search) qs.search = search;
	if (filters.leadStatus !== undefined) {
		qs.lead_status = validator.oneOf('Lead Status', filters.leadStatus, LEAD_STATUSES);
	}
	return listCall(this, itemIndex, run, '/contacts', qs, undefined, window);
};
