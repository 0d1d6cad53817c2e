/**
 * Report > Get: what a support lead reads each morning, for a period, per
 * channel and in total: conversations, messages by the customer, the bot and
 * people, first response times, customers still waiting, hand-overs to a
 * person, ratings; optionally per day or hour, and as HTML for an e-mail.
 * The work is in ../../report (its index.ts names the phases).
 */
import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { CHANNEL_TYPE_OPTIONS } from '../../../shared/channelTypes';
import type { OperationExecute } from '../../helpers/operation';
import { reportPlan, runReport } from '../../report';
import { MAX_PERIOD_DAYS, MAX_PERIOD_HOURS, MAX_TARGET_MINUTES } from '../../report/plan';

/** The Operation picker's description, and the tool's for a model. */
export const REPORT_DESCRIPTION =
	'Report a period per channel and in total: conversations, customer messages, replies by the bot and by people, first response and reply times, who is still waiting, hand-overs to a person and ratings';

const properties: INodeProperties[] = [
	{
		displayName: 'Period',
		name: 'period',
		type: 'options',
		options: [
			{ name: 'Previous Days', value: 'previousDays', description: 'Whole days before today, in the workflow time zone' },
			{ name: 'Last Hours', value: 'lastHours', description: 'The hours up to now' },
			{ name: 'Custom', value: 'custom', description: 'From After to Before' },
		],
		default: 'previousDays',
		description: `The period the report covers, at most ${MAX_PERIOD_DAYS} days`,
	},
	{
		displayName: 'Days',
		name: 'days',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_PERIOD_DAYS, numberPrecision: 0 },
		default: 1,
		description: `How many whole days before today, in the workflow time zone: 1 is yesterday, 7 the last seven days before today (1 to ${MAX_PERIOD_DAYS})`,
		displayOptions: { show: { period: ['previousDays'] } },
	},
	{
		displayName: 'Hours',
		name: 'hours',
		type: 'number',
		typeOptions: { minValue: 0.01, maxValue: MAX_PERIOD_HOURS },
		default: 24,
		description: `How many hours up to now (up to ${MAX_PERIOD_HOURS})`,
		displayOptions: { show: { period: ['lastHours'] } },
	},
	{
		displayName: 'After',
		name: 'after',
		type: 'dateTime',
		default: '',
		required: true,
		description: 'Start of the period (included), in the workflow time zone unless the value carries its own',
		displayOptions: { show: { period: ['custom'] } },
	},
	{
		displayName: 'Before',
		name: 'before',
		type: 'dateTime',
		default: '',
		required: true,
		description: `End of the period (not included), at most ${MAX_PERIOD_DAYS} days after After. A time still to come ends the period now.`,
		displayOptions: { show: { period: ['custom'] } },
	},
	{
		displayName: 'Group By',
		name: 'groupBy',
		type: 'options',
		options: [
			{ name: 'Conversation', value: 'conversation', description: 'Also one flat item per conversation with activity, for a sheet, a CSV or a data table' },
			{ name: 'Day', value: 'day', description: 'Also one item per day, for charts' },
			{ name: 'Hour', value: 'hour', description: 'Also one item per hour, for charts' },
			{ name: 'None', value: 'none', description: 'One item per channel and the total' },
			{ name: 'Person', value: 'person', description: 'Also one item per person who wrote in the period, and a People table in the HTML' },
		],
		default: 'none',
		description: 'Whether to add an item per day or hour of the workflow time zone (a day can have 23 or 25 hours), per person or per conversation',
	},
	{
		displayName: 'Include HTML',
		name: 'includeHtml',
		type: 'boolean',
		default: false,
		description: 'Whether to add the report as HTML to the total item (`html`): tables with bars and inline styles, which e-mail clients show',
	},
	{
		displayName: 'Include Text',
		name: 'includeText',
		type: 'boolean',
		default: false,
		description: 'Whether to add a short Markdown summary to the total item (`text`) for Slack, Microsoft Teams or Telegram',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Business Hours',
				name: 'businessHours',
				type: 'string',
				default: '',
				placeholder: 'e.g. Mon-Fri 09:00-12:30, 13:30-18:00; Sat 10:00-14:00',
				description:
					'Count durations (response times, waits, time to a person) only within these hours of the workflow time zone: weekdays, then their intervals; parts separated by semicolons. Items then say clock "businessHours" and keep the calendar figures beside them.',
			},
			{
				displayName: 'Channel Types',
				name: 'channelTypes',
				type: 'multiOptions',
				options: CHANNEL_TYPE_OPTIONS,
				default: [],
				description: 'Only channels of these types; none: every channel of the workspace',
			},
			{
				displayName: 'Closed Dates',
				name: 'closedDates',
				type: 'string',
				default: '',
				placeholder: 'e.g. 2026-12-25, 2026-12-26',
				description: 'Dates (YYYY-MM-DD, separated by commas) without business hours, such as holidays; needs Business Hours',
			},
			{
				displayName: 'Compare With',
				name: 'compareWith',
				type: 'options',
				options: [
					{ name: 'Nothing', value: 'none' },
					{ name: 'Previous Period', value: 'previousPeriod', description: 'The period of the same length just before (for Previous Days: as many whole days before)' },
					{ name: 'Same Days a Week Earlier', value: 'weekEarlier', description: 'The same period 7 days earlier (periods of up to 7 days)' },
				],
				default: 'none',
				description: "Whether to add each figure's previous value and its change (previous…, change…) to every item, read in the same pass",
			},
			{
				displayName: 'First Response Target (Minutes)',
				name: 'targetMinutes',
				type: 'number',
				typeOptions: { minValue: 0.01, maxValue: MAX_TARGET_MINUTES },
				// DEFAULT_TARGET_MINUTES (lint wants a literal here)
				default: 15,
				description:
					'A new conversation should get its first answer within this many minutes; the report counts how many did (node version 1: every wait, see Reply Time Target)',
			},
			{
				displayName: 'Person Names',
				name: 'personNames',
				type: 'json',
				default: '{}',
				description: 'Names for the people\'s IDs in the person and conversation items and the HTML, as JSON: {"usr_2LmQ8vX4kT0bR7nW5cZp": "Dana"} (the API lists no people)',
			},
			{
				displayName: 'Reply Time Target (Minutes)',
				name: 'replyTargetMinutes',
				type: 'number',
				typeOptions: { minValue: 0.01, maxValue: MAX_TARGET_MINUTES },
				// DEFAULT_TARGET_MINUTES (lint wants a literal here)
				default: 15,
				description: 'Every customer message that waits for an answer should get one within this many minutes; the report counts how many did',
				displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } },
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['report'], operation: ['get'] } }, properties);

export const execute: OperationExecute = async function (itemIndex, run) {
	const plan = reportPlan(this, itemIndex);
	return async () => await runReport(this, itemIndex, run, plan);
};
