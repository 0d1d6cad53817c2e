/** Hand Over to a Person: sends the customer's message and the team's note marked as one hand-over (shared/handOverToPerson), which Step Aside for a Person reads; nothing is stored in n8n. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readRecentMessages } from '../../../shared/conversation';
import {
	MAX_HAND_OVER_HOURS,
	endedHandOverOf,
	episodeOf,
	expiredByOwnLimit,
	handOverAnchor,
	handOverKey,
	limitSecondsOf,
} from '../../../shared/handOverToPerson';
import type { HandOverPart } from '../../../shared/handOverToPerson';
import { conversationLocator } from '../../../shared/resourceLocators';
import { apiRequest } from '../../../shared/transport';
import { collection, requiredId } from '../../helpers/parameters';
import { ItemValidator } from '../../helpers/validation';
import type { OperationExecute, RunContext } from '../../helpers/operation';

/** The API's limit on a text, in code points (docs/api-assumptions.md, "Messages"). */
const MAX_TEXT_LENGTH = 4000;
const DEFAULT_MESSAGE = 'A colleague will answer you here shortly.';
const NOTE_PREFIX = 'Handed over to a person by the bot.';

/** The tool's description for a model, and the Operation picker's. */
export const HAND_OVER_DESCRIPTION =
	'Hand the conversation over to a person of the support team. Call it when the customer asks for a human, is upset or disputes something (a refund, a complaint, a legal matter), or asks what you cannot answer from what you know. It tells the customer that a colleague will answer and notes the reason for the team; after it, do not answer the question yourself.';

const properties: INodeProperties[] = [
	conversationLocator(),
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		default: '',
		placeholder: 'e.g. The customer disputes a charge and asks for a person',
		description: 'Why a person must take over, in one sentence: part of the note for the team and of the output. As an AI tool, let the model define it.',
	},
	{
		displayName: 'Message to Customer',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 2 },
		default: DEFAULT_MESSAGE,
		description: `Sent to the customer, up to ${MAX_TEXT_LENGTH} characters. Leave empty to send nothing to the customer.`,
	},
	{
		displayName: 'Note for the Team',
		name: 'teamNote',
		type: 'boolean',
		default: true,
		description:
			"Whether to add a System message for the team with the reason. The API has no private notes: like every message, it is part of the conversation, and channels may show System messages to the customer, so word the reason for both.",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Hand-Over Limit (Hours)',
				name: 'limitHours',
				type: 'number',
				default: 24,
				typeOptions: { minValue: 0.001, maxValue: MAX_HAND_OVER_HOURS, numberPrecision: 3 },
				description:
					"If no person of the workspace writes within this many hours, the Omnichannel Trigger lets the bot answer again. Without this option, the trigger's own Hand-Over Limit applies.",
			},
			{
				displayName: 'Include Contact',
				name: 'includeContact',
				type: 'boolean',
				default: false,
				description:
					"Whether to add the customer's contact to the output (`contact`), for notifying people. Costs two reads: the API has no way to get one conversation, so the node reads the conversations active in the last hour, newest first, then the contact.",
			},
			{
				displayName: 'Note Text',
				name: 'noteText',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
				placeholder: `e.g. ${NOTE_PREFIX} Reason: …`,
				description: `The note's text, up to ${MAX_TEXT_LENGTH} characters. Without it: "${NOTE_PREFIX} Reason: " and the Reason.`,
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['conversation'], operation: ['handOver'] } }, properties);

interface HandOverPlan {
	conversationId: string;
	reason: string;
	message?: string;
	note?: string;
	limitHours?: number;
	includeContact: boolean;
}

/** Checks an item's values, making no request. */
function planOf(context: IExecuteFunctions, itemIndex: number): HandOverPlan {
	const validator = new ItemValidator(context.getNode(), itemIndex);
	const conversationId = requiredId(context, validator, 'conversationId', 'Conversation');
	const reasonValue = context.getNodeParameter('reason', itemIndex, '') as unknown;
	const reason = validator.text('Reason', reasonValue ?? '', 0, MAX_TEXT_LENGTH).trim();
	const messageValue = context.getNodeParameter('message', itemIndex, '') as unknown;
	const message = validator.text('Message to Customer', messageValue ?? '', 0, MAX_TEXT_LENGTH).trim();
	const options = collection(context, itemIndex, 'options');
	const plan: HandOverPlan = { conversationId, reason, includeContact: options.includeContact === true };
	if (message !== '') plan.message = message;
	if (context.getNodeParameter('teamNote', itemIndex, true) !== false) {
		const custom = typeof options.noteText === 'string' ? options.noteText.trim() : '';
		const note = custom !== '' ? custom : `${NOTE_PREFIX}${reason === '' ? '' : ` Reason: ${reason}`}`;
		plan.note = validator.text(custom !== '' ? 'Note Text' : 'Reason', note, 1, MAX_TEXT_LENGTH);
	}
	if (options.limitHours !== undefined) plan.limitHours = validator.number('Hand-Over Limit (Hours)', options.limitHours, 0.001, MAX_HAND_OVER_HOURS);
	if (plan.message === undefined && plan.note === undefined) {
		validator.fail(
			'Message to Customer',
			'it is empty and Note for the Team is off',
			'Enter a message to the customer or turn on Note for the Team: the hand-over is marked by its messages.',
		);
	}
	return plan;
}

/** The hand-over's episode from the conversation this execution's trigger read (no request), or from one read when the trigger did not read it. */
async function episodeFor(context: IExecuteFunctions, plan: HandOverPlan, itemIndex: number): Promise<string> {
	const latest = await readRecentMessages(context, plan.conversationId, { itemIndex, keepForExecution: true });
	const ended = expiredByOwnLimit(latest);
	const endedByTrigger = endedHandOverOf(context);
	if (endedByTrigger) ended.add(endedByTrigger);
	return episodeOf(plan.conversationId, handOverAnchor(latest, ended));
}

/** Conversations are listed by activity, newest first (docs/api-assumptions.md, "Lists and pagination"): the one handed over is near the top. */
const CONTACT_SEARCH_SECONDS = 3600;
const CONTACT_SEARCH_PAGES = 3;

/** The conversation's customer as a Contact, or null when the conversation was not among the recently active ones. */
async function contactOf(context: IExecuteFunctions, conversationId: string, itemIndex: number, run: RunContext): Promise<IDataObject | null> {
	const since = Math.floor(Date.now() / 1000) - CONTACT_SEARCH_SECONDS;
	for (let page = 1; page <= CONTACT_SEARCH_PAGES; page++) {
		const list = (await apiRequest.call(context, 'GET', '/conversations', {
			qs: { last_updated_at: since, per_page: 100, page },
			itemIndex,
			...run.throttle,
		})) as IDataObject;
		const conversations = (Array.isArray(list.data) ? list.data : []) as IDataObject[];
		const found = conversations.find((conversation) => conversation.id === conversationId);
		if (found) {
			if (typeof found.customer_id !== 'string' || found.customer_id === '') return null;
			return (await apiRequest.call(context, 'GET', `/contacts/${encodeURIComponent(found.customer_id)}`, { itemIndex, ...run.throttle })) as IDataObject;
		}
		if (list.has_next !== true) return null;
	}
	return null;
}

async function send(context: IExecuteFunctions, itemIndex: number, run: RunContext, body: IDataObject): Promise<IDataObject> {
	const response = (await apiRequest.call(context, 'POST', '/messages/text', { body, itemIndex, idempotent: true, ...run.throttle })) as IDataObject;
	return (response.message as IDataObject | undefined) ?? response;
}

export const execute: OperationExecute = async function (itemIndex, run) {
	const plan = planOf(this, itemIndex);
	return async () => {
		const episode = await episodeFor(this, plan, itemIndex);
		const limitSeconds = plan.limitHours === undefined ? undefined : limitSecondsOf(plan.limitHours);
		const key = (part: HandOverPart) => handOverKey(part, episode, limitSeconds);
		const base = { conversation_id: plan.conversationId };
		// The customer's message first: the inbox shows the note after what the customer read.
		const message = plan.message === undefined ? null : await send(this, itemIndex, run, { ...base, client_request_id: key('message'), text: plan.message });
		const note =
			plan.note === undefined ? null : await send(this, itemIndex, run, { ...base, client_request_id: key('note'), text: plan.note, as_system: true });
		const first = message ?? note;
		const output: IDataObject = {
			handedOver: true,
			conversationId: plan.conversationId,
			reason: plan.reason,
			handedOverAt: first?.created_at ?? null,
			message,
			note,
		};
		if (plan.limitHours !== undefined) output.limitHours = plan.limitHours;
		if (plan.includeContact) output.contact = await contactOf(this, plan.conversationId, itemIndex, run);
		return output;
	};
};
