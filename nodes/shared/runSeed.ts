import type { IExecuteFunctions, IWorkflowExecutionCustomData } from 'n8n-workflow';

/** The run seed, kept in the execution's custom data: every send's default key derives from it, and n8n's Retry keeps it, so a Retry sends nothing twice. */
export const RUN_SEED_KEY = 'omnichannel_run';

type CustomDataHolder = { customData?: IWorkflowExecutionCustomData };

/** The execution's custom data, or undefined where n8n offers none: versions before custom data reached node contexts, and contexts without an execution (n8n's getter throws there). */
function customDataOf(context: CustomDataHolder): IWorkflowExecutionCustomData | undefined {
	try {
		const customData = context.customData;
		return typeof customData?.get === 'function' && typeof customData.set === 'function' ? customData : undefined;
	} catch {
		return undefined;
	}
}

/** Sets the run seed unless one is set; never fails the run (custom data holds at most 10 keys). */
export function seedRun(context: CustomDataHolder, seed: string, replace = false): void {
	const customData = customDataOf(context);
	if (!customData) return;
	try {
		if (replace || !customData.get(RUN_SEED_KEY)) customData.set(RUN_SEED_KEY, seed);
	} catch {
		// n8n refused the value (manual mode throws where other modes log): keys fall back to the execution id.
	}
}

/** Keeps a value in the execution's custom data, which n8n's Retry hands to the new execution; never fails the run (n8n may refuse the value). */
export function keepInExecution(context: CustomDataHolder, key: string, value: string): void {
	const customData = customDataOf(context);
	if (!customData) return;
	try {
		customData.set(key, value);
	} catch {
		// Without it, the reader falls back to what the conversation shows.
	}
}

/** A value kept with keepInExecution, or undefined. */
export function keptInExecution(context: CustomDataHolder, key: string): string | undefined {
	const value = customDataOf(context)?.get(key);
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The run seed of this execution (see RUN_SEED_KEY); undefined without an execution id. */
export function runSeed(context: IExecuteFunctions): string | undefined {
	const executionId = context.getExecutionId();
	if (!executionId) return undefined;
	const stored = customDataOf(context)?.get(RUN_SEED_KEY);
	if (typeof stored === 'string' && stored !== '') return stored;
	seedRun(context, executionId);
	return executionId;
}
