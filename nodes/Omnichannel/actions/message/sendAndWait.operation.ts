import { createHash } from 'crypto';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readSendFields, sendCall } from '../../helpers/send';
import { ItemValidator } from '../../helpers/validation';
import { readWaitLimit, WAIT_INDEFINITELY } from '../../sendAndWait/limit';
import { linkParameters, linksLength, messageText } from '../../sendAndWait/message';
import type { ResponseLink } from '../../sendAndWait/message';
import { readResponseRequest } from '../../sendAndWait/parameters';
import { pendingJson } from '../../sendAndWait/request';
import { conversationLocator } from '../../../shared/resourceLocators';
import { sendOptionsCollection } from '../common.descriptions';
import type { OperationExecute } from '../operation';

/**
 * n8n checks the HMAC of a waiting node's links only when the node's
 * `operation` parameter is exactly this (n8n-workflow's SEND_AND_WAIT_OPERATION,
 * spelled out so older n8n versions without the export still load the node).
 */
export const SEND_AND_WAIT_OPERATION = 'sendAndWait';

/** The whole text, links included (the API's limit, in code points). */
const MAX_TEXT_LENGTH = 4000;

/** One message, one wait: n8n resumes a node once, so only the first input item is sent (as n8n's own Send and Wait). */
export const firstItemOnly = true;

const limitWaitTime: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' } },
	description:
		'End the wait without an answer after an interval or at a date. The node then outputs an item with timedOut: true. n8n checks for ended waits once a minute, so the node continues up to a minute after the limit.',
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					options: [
						{ name: 'After Time Interval', value: 'afterTimeInterval', description: 'Wait for a certain amount of time' },
						{ name: 'At Specified Time', value: 'atSpecifiedTime', description: 'Wait until a date and time' },
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					default: 1,
					typeOptions: { minValue: 1, numberPrecision: 2 },
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					default: 'hours',
					options: [
						{ name: 'Seconds', value: 'seconds' },
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Hours', value: 'hours' },
						{ name: 'Days', value: 'days' },
					],
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					default: '',
					description: 'When to stop waiting. A date without a time zone is read in the n8n server’s time zone.',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
				},
			],
		},
	],
};

const pageOptions: INodeProperties[] = [
	{
		displayName: 'Button Label',
		name: 'buttonLabel',
		type: 'string',
		default: 'Send',
		description: 'Label of the button that sends a free text answer or a form',
	},
	limitWaitTime,
	{
		displayName: 'Page Title',
		name: 'pageTitle',
		type: 'string',
		default: 'Your answer is requested',
		description: 'Heading of the page the link opens',
	},
];

const properties: INodeProperties[] = [
	conversationLocator(),
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Customer Ana asks for a refund of €40 for order 1042. Approve?',
		description: `The question. The links to answer it are added below it; with them the message may have up to ${MAX_TEXT_LENGTH} characters.`,
	},
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'approval',
		options: [
			{ name: 'Approval', value: 'approval', description: 'One link to approve, or two to approve or decline' },
			{ name: 'Free Text', value: 'freeText', description: 'A page with a text box' },
			{ name: 'Custom Form', value: 'customForm', description: 'A page with the fields defined below' },
		],
	},
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add Option',
		// Empty: n8n fails to fill in the default of a single-value fixedCollection that has values.
		default: {},
		displayOptions: { show: { responseType: ['approval'] } },
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						default: 'double',
						options: [
							{ name: 'Approve Only', value: 'single' },
							{ name: 'Approve and Decline', value: 'double' },
						],
					},
					{
						displayName: 'Approve Button Label',
						name: 'approveLabel',
						type: 'string',
						default: 'Approve',
					},
					{
						displayName: 'Decline Button Label',
						name: 'declineLabel',
						type: 'string',
						default: 'Decline',
						displayOptions: { show: { approvalType: ['double'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Form Fields',
		name: 'formFields',
		type: 'fixedCollection',
		placeholder: 'Add Form Field',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		displayOptions: { show: { responseType: ['customForm'] } },
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Label',
						name: 'fieldLabel',
						type: 'string',
						default: '',
						required: true,
						placeholder: 'e.g. Refund amount',
						description: 'Shown above the field; also the name of its value in the output',
					},
					{
						displayName: 'Type',
						name: 'fieldType',
						type: 'options',
						default: 'text',
						options: [
							{ name: 'Dropdown', value: 'dropdown' },
							{ name: 'Email', value: 'email' },
							{ name: 'Long Text', value: 'textarea' },
							{ name: 'Number', value: 'number' },
							{ name: 'Text', value: 'text' },
						],
					},
					{
						displayName: 'Options',
						name: 'fieldOptions',
						type: 'string',
						default: '',
						placeholder: 'e.g. Full refund, Partial refund, No refund',
						description: 'The choices, separated by commas',
						displayOptions: { show: { fieldType: ['dropdown'] } },
					},
					{
						displayName: 'Required',
						name: 'requiredField',
						type: 'boolean',
						default: false,
						description: 'Whether the form can only be sent with this field filled in',
					},
				],
			},
		],
	},
	sendOptionsCollection(pageOptions),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: [SEND_AND_WAIT_OPERATION] } },
	properties,
);

/** What this operation needs from n8n, which older versions lack; checked when it runs, so the node still loads. */
function assertWaitingSupported(context: IExecuteFunctions): void {
	const missing = (['getSignedResumeUrl', 'putExecutionToWait', 'getExecuteData'] as const).filter(
		(method) => typeof context[method] !== 'function',
	);
	if (missing.length > 0) {
		throw new NodeOperationError(context.getNode(), 'This version of n8n cannot run Send and Wait for Response', {
			description: `It lacks ${missing.join(', ')}. Update n8n to use this operation; the other operations work as before.`,
		});
	}
}

/** Ties the links to this wait of this node: a loop's next wait gets new links. */
function waitIdOf(context: IExecuteFunctions, runIndex: number, itemIndex: number): string {
	const node = context.getNode();
	const source = JSON.stringify([context.getWorkflow().id ?? '', context.getExecutionId() ?? '', node.id || node.name, runIndex, itemIndex]);
	return createHash('sha256').update(source).digest('hex').slice(0, 24);
}

/**
 * Leaves the pending item as the waiting node's input: n8n passes it on
 * when the wait limit ends the wait, and a webhook call reads it back.
 */
function leavePendingItem(context: IExecuteFunctions, json: IDataObject, itemIndex: number): void {
	const main = context.getExecuteData().data.main;
	main[0] = [{ json, pairedItem: { item: itemIndex } }];
}

/** In n8n 1.x before signatures were always checked, a node had to ask for the check. */
function requireSignature(context: IExecuteFunctions): void {
	const ask = (context as unknown as { setSignatureValidationRequired?: () => void }).setSignatureValidationRequired;
	if (typeof ask === 'function') ask.call(context);
}

export const execute: OperationExecute = async function (itemIndex, run) {
	assertWaitingSupported(this);
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const { fields, options } = readSendFields(this, validator, run, `message.${SEND_AND_WAIT_OPERATION}`);
	const question = validator.text('Message', this.getNodeParameter('message', itemIndex, ''), 1, MAX_TEXT_LENGTH);
	const waitTill = readWaitLimit(validator, options.limitWaitTime, new Date());
	const request = readResponseRequest(this, validator, {
		waitId: waitIdOf(this, run.runIndex, itemIndex),
		question,
		options,
		expiresAt: waitTill,
	});
	const links: ResponseLink[] = linkParameters(request).map(({ label, parameters }) => ({
		label,
		url: this.getSignedResumeUrl(parameters),
	}));
	const text = messageText(question, links);
	const length = Array.from(text).length;
	if (length > MAX_TEXT_LENGTH) {
		const room = MAX_TEXT_LENGTH - linksLength(question, links);
		validator.fail(
			'Message',
			`with its links the message has ${length} characters; the most allowed is ${MAX_TEXT_LENGTH}`,
			`Shorten the message to at most ${room} characters: the links take the rest.`,
			`text of 1 to ${room} characters`,
		);
	}
	const send = sendCall(this, itemIndex, run, '/messages/text', { body: { ...fields, text } });
	return async () => {
		const message = (await send()) as IDataObject;
		const pending = pendingJson(request, String(message.id ?? ''), fields.conversation_id);
		leavePendingItem(this, pending, itemIndex);
		requireSignature(this);
		await this.putExecutionToWait(waitTill ?? WAIT_INDEFINITELY);
		return pending;
	};
};
