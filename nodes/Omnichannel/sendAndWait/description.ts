import type { INodeProperties } from 'n8n-workflow';

import { conversationLocator } from '../../shared/resourceLocators';
import { sendOptionsCollection } from '../helpers/descriptions';
import { simplifyProperty } from '../helpers/simplify';

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
			{
				name: 'Reply in Chat',
				value: 'chatReply',
				description: 'The next message in the conversation is the answer. Needs the Omnichannel Trigger that started the workflow.',
			},
		],
	},
	{
		displayName: 'Reply From',
		name: 'replyFrom',
		type: 'options',
		default: 'customer',
		description:
			"Whose message in the conversation counts as the answer. Messages n8n sends through this package never count. For approvals, used when they can be answered in the chat.",
		options: [
			{ name: 'Customer', value: 'customer', description: "The conversation's customer" },
			{ name: 'Agent', value: 'agent', description: 'A user of the workspace, writing in the conversation' },
			{ name: 'Either', value: 'either', description: 'The customer or an agent, whoever writes first' },
		],
		displayOptions: { show: { responseType: ['chatReply', 'approval'] } },
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
						displayName: 'Answer In',
						name: 'answerIn',
						type: 'options',
						default: 'links',
						description:
							'Where the answer can be given. Answers in the chat need the Omnichannel Trigger that started the workflow; the first answer wins, by link or by reply.',
						options: [
							{ name: 'Links', value: 'links', description: 'Links in the message open a page with the buttons' },
							{ name: 'Chat Reply', value: 'chat', description: 'A reply with the approve or decline word' },
							{ name: 'Links or Chat Reply', value: 'both', description: 'Whichever comes first' },
						],
					},
					{
						displayName: 'Approve Button Label',
						name: 'approveLabel',
						type: 'string',
						default: 'Approve',
					},
					{
						displayName: 'Approve Word',
						name: 'approveWord',
						type: 'string',
						default: 'YES',
						description:
							'The reply that approves. Matched without regard to case, accents, punctuation and surrounding spaces.',
						displayOptions: { show: { answerIn: ['chat', 'both'] } },
					},
					{
						displayName: 'Decline Button Label',
						name: 'declineLabel',
						type: 'string',
						default: 'Decline',
						displayOptions: { show: { approvalType: ['double'] } },
					},
					{
						displayName: 'Decline Word',
						name: 'declineWord',
						type: 'string',
						default: 'NO',
						description: 'The reply that declines, matched the same way',
						displayOptions: { show: { answerIn: ['chat', 'both'], approvalType: ['double'] } },
					},
					{
						displayName: 'Re-Prompts',
						name: 'reprompts',
						type: 'number',
						default: 2,
						typeOptions: { minValue: 0, maxValue: 10 },
						description:
							'How many replies that are neither word get a short reminder of the words. Such replies never decide.',
						displayOptions: { show: { answerIn: ['chat', 'both'] } },
					},
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
	...simplifyProperty('message').map((property) => ({
		...property,
		description: `${property.description} It applies to the reply, when the answer comes in the chat.`,
		displayOptions: { show: { ...property.displayOptions?.show, responseType: ['chatReply', 'approval'] } },
	})),
	sendOptionsCollection(pageOptions),
];
