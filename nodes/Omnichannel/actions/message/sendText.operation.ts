import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { conversationLocator } from '../../../shared/resourceLocators';
import { readSendFields, sendCall } from './send';
import { simplifyProperty } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import { sendOptionsCollection } from '../../helpers/descriptions';
import type { OperationExecute } from '../../helpers/operation';

/** The API's limit on a text, in code points (docs/api-assumptions.md, "Messages"). */
const MAX_TEXT_LENGTH = 4000;

const properties: INodeProperties[] = [
	conversationLocator(),
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Thanks for your message! We will get back to you shortly.',
		description: `The message, 1 to ${MAX_TEXT_LENGTH} characters`,
	},
	...simplifyProperty('message'),
	sendOptionsCollection(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendText'] } },
	properties,
);

export const execute: OperationExecute = async function (itemIndex, run) {
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const { fields } = readSendFields(this, validator, run, 'message.sendText');
	const text = validator.text('Text', this.getNodeParameter('text', itemIndex, ''), 1, MAX_TEXT_LENGTH);
	return sendCall(this, itemIndex, run, '/messages/text', { body: { ...fields, text } });
};
