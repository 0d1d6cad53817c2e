import type { IExecuteFunctions } from 'n8n-workflow';

import { seedRun } from '../../shared/runSeed';
import { recordEvent } from '../common/eventsInDatabase';
import type { Verdict } from '../common/eventsInDatabase';
import { kindOf } from '../common/registrationInStaticData';

let warnedNoHelpers = false;

/** Whether this execution runs the event downstream: test executions are not recorded, and n8n's Retry of an execution runs it again. */
export async function firstRunOf(context: IExecuteFunctions, eventId: string): Promise<Verdict> {
	if (kindOf(context) === 'test') return 'first';
	// Every execution of this event derives its sends' default keys from the
	// event, so no retry of it, however n8n rebuilt it, sends a message twice.
	seedRun(context, `event:${eventId}`, true);
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
	const verdict = await recordEvent(ledgerHelpers, owner, eventId, context.logger);
	return verdict === 'duplicate' && context.getMode() === 'retry' ? 'first' : verdict;
}
