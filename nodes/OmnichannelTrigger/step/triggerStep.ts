import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ConversationMessage } from '../../shared/conversation';
import type { TriggerEvent } from '../../shared/triggerItem';
import { customerMessageOf, heldDeliveryOf, QUIET_CAP_KEY, QUIET_FIRST_KEY, QUIET_WAITED_KEY } from '../common/deliveredEvent';
import { markStarted } from '../common/eventsInProcess';
import { kindOf, triggerKey } from '../common/registrationInStaticData';
import { itemOf, readOptions } from '../options';
import { customerMessageStep } from './customerMessage';
import type { CustomerMessageOutcome } from './customerMessage';
import { firstRunOf } from './firstRun';

/** The trigger's step, the first of every execution a delivery started: the ledger, then the options, then the item. */
export async function triggerStep(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const values = readOptions(context.getNode(), context.getNodeParameter('options', 0, {}) as IDataObject);
	const output: INodeExecutionData[] = [];
	const trigger = triggerKey(context, kindOf(context));
	for (const [index, item] of context.getInputData().entries()) {
		const { [QUIET_WAITED_KEY]: quietWaitedMs, [QUIET_CAP_KEY]: quietCap, [QUIET_FIRST_KEY]: quietFirstId, ...event } = item.json as TriggerEvent;
		const verdict = await firstRunOf(context, event.id);
		// The execution exists: later copies reaching this process start none.
		markStarted(trigger, event.id);
		if (verdict === 'duplicate') {
			context.addExecutionHints({ message: `Event ${event.id} already ran in an earlier execution: this copy ran nothing downstream.`, location: 'outputPane' });
			continue;
		}
		const customerMessage = customerMessageOf(event);
		let outcome: CustomerMessageOutcome = { continue: true };
		if (customerMessage) {
			const held = heldDeliveryOf(quietWaitedMs, quietCap, quietFirstId);
			outcome = await customerMessageStep(context, customerMessage as ConversationMessage, values, index, held);
		}
		if (!outcome.continue) {
			context.addExecutionHints({ message: outcome.hint, location: 'outputPane' });
			continue;
		}
		for (const fields of outcome.earlier ?? []) output.push({ json: itemOf(event as TriggerEvent, values, fields), pairedItem: { item: index } });
		output.push({ json: itemOf(event as TriggerEvent, values, outcome.fields), pairedItem: { item: index } });
	}
	return [output];
}
