import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { recordEvent } from './eventLedger';
import type { Verdict } from './eventLedger';
import type { ServiceEvent } from './delivery';
import { kindOf } from './webhookState';

let warnedNoHelpers = false;

/**
 * The ledger verdict for one event in this execution. Test executions ("listen
 * for test event") are not recorded: they must not hide a later production
 * delivery of the same event. An n8n without the database de-duplication
 * helpers (before 1.70) runs every execution, and the log says so once.
 */
export async function firstRunOf(context: IExecuteFunctions, eventId: string): Promise<Verdict> {
	if (kindOf(context) === 'test') return 'first';
	const helpers = context.helpers as Partial<IExecuteFunctions['helpers']>;
	if (typeof helpers.checkProcessedAndRecord !== 'function' || typeof helpers.clearAllProcessedItems !== 'function') {
		if (!warnedNoHelpers) {
			warnedNoHelpers = true;
			context.logger.warn(
				'Omnichannel Trigger: this n8n has no de-duplication helpers; copies of an event that reach another n8n process, or arrive after a restart, run again.',
			);
		}
		return 'first';
	}
	const ledgerHelpers = {
		checkProcessedAndRecord: helpers.checkProcessedAndRecord.bind(helpers),
		clearAllProcessedItems: helpers.clearAllProcessedItems.bind(helpers),
	};
	const owner = { workflowId: context.getWorkflow().id ?? '', nodeId: context.getNode().id };
	return await recordEvent(ledgerHelpers, owner, eventId, context.logger);
}

/** Output Data Only: the message or contact of the event. */
export function dataOf(event: ServiceEvent): IDataObject {
	const { data } = event;
	return data !== null && typeof data === 'object' && !Array.isArray(data) ? data : { data };
}
