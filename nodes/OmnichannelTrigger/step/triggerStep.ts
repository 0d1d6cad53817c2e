import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { triggerItem } from '../../shared/triggerItem';
import type { TriggerEvent } from '../../shared/triggerItem';
import { markStarted } from '../delivery/eventsInProcess';
import { QUIET_WAITED_KEY } from '../delivery/quietHold';
import { outputsDataOnly } from '../parameters';
import { kindOf, triggerKey } from '../registration/registrationInStaticData';
import type { BurstMessage } from './burst';
import { conversationOptionsOf, customerMessageOf, customerMessageStep } from './customerMessage';
import { firstRunOf } from './firstRun';

/**
 * The trigger's step, the first of every execution a delivery started, with
 * the whole event as input, wherever the execution runs (a queue-mode worker
 * included). The first execution of an event passes it on (firstRun.ts); a
 * later one (a copy that reached another n8n process, a redelivery after a
 * restart) outputs nothing and says so in its hints. A customer's message then
 * continues only as the options that read the conversation decide.
 */
export async function triggerStep(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const dataOnly = outputsDataOnly(context);
	const conversationOptions = conversationOptionsOf(context.getNode(), context.getNodeParameter('options', 0, {}) as IDataObject);
	const output: INodeExecutionData[] = [];
	const trigger = triggerKey(context, kindOf(context));
	for (const [index, item] of context.getInputData().entries()) {
		const { [QUIET_WAITED_KEY]: quietWaitedMs, ...event } = item.json as TriggerEvent;
		const verdict = await firstRunOf(context, event.id);
		// The execution exists: later copies reaching this process start none.
		markStarted(trigger, event.id);
		if (verdict === 'duplicate') {
			context.addExecutionHints({ message: `Event ${event.id} already ran in an earlier execution: this copy ran nothing downstream.`, location: 'outputPane' });
			continue;
		}
		const customerMessage = customerMessageOf(event);
		let outcome: Awaited<ReturnType<typeof customerMessageStep>> = { continue: true };
		if (customerMessage) {
			const waitedMs = typeof quietWaitedMs === 'number' ? quietWaitedMs : 0;
			outcome = await customerMessageStep(context, customerMessage as BurstMessage, conversationOptions, index, waitedMs);
		}
		if (!outcome.continue) {
			context.addExecutionHints({ message: outcome.hint, location: 'outputPane' });
			continue;
		}
		output.push({ json: triggerItem(event, { dataOnly, burst: outcome.burst, handOver: outcome.handOver }), pairedItem: { item: index } });
	}
	return [output];
}
