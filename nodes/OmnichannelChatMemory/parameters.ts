/** The memory node's panel, and its values checked before any request. */
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, INodeProperties, ISupplyDataFunctions } from 'n8n-workflow';

import { RECENT_MESSAGES } from '../shared/conversation';
import { optionalId } from '../shared/parameterValues';
import { conversationLocator } from '../shared/resourceLocators';
import { conversationOfItem } from '../shared/triggerItem';

/** Half the reader's one page (shared/conversation.ts): the burst, newer messages and left-out System messages fit beside it. */
export const MAX_WINDOW_LENGTH = RECENT_MESSAGES / 2;

export const memoryProperties: INodeProperties[] = [
	{
		displayName:
			"Nothing is stored in n8n: the memory is the conversation at the service, read once per agent run (or taken from the trigger's read). The agent's answer joins it when it is sent into the conversation, e.g. by an Omnichannel Send Text after the agent.",
		name: 'storageNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Conversation',
		name: 'sessionIdType',
		type: 'options',
		options: [
			{
				name: 'From Omnichannel Trigger',
				value: 'fromTrigger',
				description: "The conversation of the Omnichannel Trigger's event in the agent's input item (whole event or Output Data Only)",
			},
			{
				name: 'Define Below',
				value: 'customKey',
				description: 'A conversation picked from the list, or an ID or expression',
			},
		],
		default: 'fromTrigger',
	},
	...updateDisplayOptions({ show: { sessionIdType: ['customKey'] } }, [conversationLocator('conversationId', 'Conversation ID')]),
	{
		displayName: 'Context Window Length (Messages)',
		name: 'contextWindowLength',
		type: 'number',
		default: 20,
		typeOptions: { minValue: 1, maxValue: MAX_WINDOW_LENGTH, numberPrecision: 0 },
		hint: "How many of the conversation's latest messages, before the one being answered, the model receives",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Include System Messages',
				name: 'includeSystemMessages',
				type: 'boolean',
				default: false,
				description:
					"Whether messages sent as the workspace System (other than this package's own sends) are part of the history, as the assistant's, marked [System]",
			},
		],
	},
];

export interface MemoryConfig {
	conversationId: string;
	windowLength: number;
	includeSystemMessages: boolean;
}

/** The node's values for one agent input item, checked; throws naming the field. */
export function memoryConfigOf(context: ISupplyDataFunctions, itemIndex: number, item: IDataObject | undefined): MemoryConfig {
	const node = context.getNode();
	const windowLength = context.getNodeParameter('contextWindowLength', itemIndex) as unknown;
	if (typeof windowLength !== 'number' || !Number.isInteger(windowLength) || windowLength < 1 || windowLength > MAX_WINDOW_LENGTH) {
		throw new NodeOperationError(node, `'Context Window Length (Messages)' must be a whole number from 1 to ${MAX_WINDOW_LENGTH}`, {
			itemIndex,
			description: `The value is ${JSON.stringify(windowLength)}.`,
		});
	}
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const fromTrigger = context.getNodeParameter('sessionIdType', itemIndex, 'fromTrigger') === 'fromTrigger';
	const conversationId = fromTrigger
		? item && conversationOfItem(item)
		: optionalId(context.getNodeParameter('conversationId', itemIndex, ''));
	if (conversationId === undefined) {
		throw new NodeOperationError(node, "No conversation for the memory: set 'Conversation'", {
			itemIndex,
			description: fromTrigger
				? "'Conversation' is 'From Omnichannel Trigger', and the agent's input item has no conversation_id (neither the whole event's data.conversation_id nor Output Data Only's conversation_id). Connect the agent after an Omnichannel Trigger, or set 'Conversation' to 'Define Below'."
				: "'Conversation ID' is empty. Pick a conversation, or give its ID or an expression that resolves to it.",
		});
	}
	return { conversationId, windowLength, includeSystemMessages: options.includeSystemMessages === true };
}
