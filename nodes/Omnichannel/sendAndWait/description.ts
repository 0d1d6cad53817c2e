import type { INodeProperties } from 'n8n-workflow';

import { conversationLocator } from '../../shared/resourceLocators';
import { sendOptionsCollection } from '../helpers/descriptions';

/** The whole text, links included (the API's limit, in code points: docs/api-assumptions.md, "Messages"). */
export const MAX_TEXT_LENGTH = 4000;

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

/** The operation's parameters, shown for Message → Send and Wait for Response. */
export const sendAndWaitProperties: INodeProperties[] = [
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
