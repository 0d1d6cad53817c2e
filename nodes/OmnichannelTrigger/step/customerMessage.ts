/** The trigger's step for a customer's message when an option reads the conversation: one read of its latest messages serves every option, and is kept for the rest of the execution, so the Omnichannel Chat Memory does not read again (shared/conversation.ts). */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readRecentMessages } from '../../shared/conversation';
import type { ConversationMessage } from '../../shared/conversation';
import type { HeldDelivery } from '../common/deliveredEvent';
import { conversationReaders, decideCustomerMessage, quotedNames, requireApiCredential, waitBeforeRead } from '../options';
import type { OptionValues } from '../options';

/** `earlier`: the fields of items that go before the message's own, one each (bursts an execution continues besides its own). */
export type CustomerMessageOutcome =
	| { continue: true; fields?: Map<string, IDataObject>; earlier?: Array<Map<string, IDataObject>> }
	| { continue: false; hint: string };

export async function customerMessageStep(
	context: IExecuteFunctions,
	message: ConversationMessage,
	values: OptionValues,
	itemIndex: number,
	/** What the delivery's hold already did (common/quietHold.ts). */
	held: HeldDelivery = { waitedMs: 0 },
): Promise<CustomerMessageOutcome> {
	const readers = conversationReaders(values);
	if (readers.length === 0) return { continue: true };
	const node = context.getNode();
	requireApiCredential(node, itemIndex);
	if (typeof message.id !== 'string' || typeof message.conversation_id !== 'string') {
		const one = readers.length === 1;
		throw new NodeOperationError(node, 'The message event has no message id or conversation id', {
			itemIndex,
			description: `${quotedNames(readers)} ${one ? 'needs' : 'need'} both, as every message.created event of the service carries them. Remove ${one ? 'the option' : 'the options'} for events of another shape.`,
		});
	}
	await waitBeforeRead(context, values, itemIndex, held);
	const latest = await readRecentMessages(context, message.conversation_id, { itemIndex, keepForExecution: true });
	const decision = await decideCustomerMessage({ context, message, latest, values, itemIndex, held });
	return 'stop' in decision ? { continue: false, hint: decision.stop } : { continue: true, fields: decision.fields, earlier: decision.earlier };
}
