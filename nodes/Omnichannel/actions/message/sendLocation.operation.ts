import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionalString } from '../../../shared/parameterValues';
import { conversationLocator } from '../../../shared/resourceLocators';
import { readSendFields, sendCall } from './send';
import { simplifyProperty } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import { sendOptionsCollection } from '../../helpers/descriptions';
import type { OperationExecute } from '../../helpers/operation';

const properties: INodeProperties[] = [
	conversationLocator(),
	{
		displayName: 'Latitude',
		name: 'latitude',
		type: 'number',
		typeOptions: { minValue: -90, maxValue: 90, numberPrecision: 6 },
		default: 0,
		required: true,
		description: 'Latitude in degrees, -90 to 90',
	},
	{
		displayName: 'Longitude',
		name: 'longitude',
		type: 'number',
		typeOptions: { minValue: -180, maxValue: 180, numberPrecision: 6 },
		default: 0,
		required: true,
		description: 'Longitude in degrees, -180 to 180',
	},
	...simplifyProperty('message'),
	sendOptionsCollection([
		{
			displayName: 'Address',
			name: 'address',
			type: 'string',
			default: '',
			placeholder: 'e.g. Alexanderplatz 1, 10178 Berlin',
			description: 'Street address shown with the location',
		},
		{
			displayName: 'Place Name',
			name: 'placeName',
			type: 'string',
			default: '',
			placeholder: 'e.g. Head Office',
			description: 'Name of the place shown with the location',
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendLocation'] } },
	properties,
);

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const { fields, options } = readSendFields(this, validator, run, 'message.sendLocation');
	const body: IDataObject = {
		...fields,
		latitude: validator.number('Latitude', this.getNodeParameter('latitude', itemIndex), -90, 90),
		longitude: validator.number('Longitude', this.getNodeParameter('longitude', itemIndex), -180, 180),
	};
	const placeName = optionalString(options.placeName);
	if (placeName) body.name = placeName;
	const address = optionalString(options.address);
	if (address) body.address = address;
	return sendCall(this, itemIndex, run, '/messages/location', { body });
};
