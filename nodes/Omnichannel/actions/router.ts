import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { MAX_CONCURRENT_REQUESTS } from '../../shared/transport';
import { currentRunIndex } from '../helpers/idempotency';
import { applySimplify } from '../helpers/simplify';
import { toolModeError } from '../helpers/toolErrors';
import { isToolNode, ToolParameters } from '../helpers/toolMode';
import type { OperationCall, RunContext } from '../helpers/operation';
import { resources } from './index';

/** Every parameter of every operation, to find what a tool-mode error is about. */
const allProperties = Object.values(resources).flatMap((resource) => resource.description);

/** Items whose calls run at once: as many as the transport lets be in flight per key, so no item waits holding a loaded file. */
const PARALLEL_ITEMS = MAX_CONCURRENT_REQUESTS;

type ItemError = NodeApiError | NodeOperationError;

/** Every error leaves the node as a NodeApiError or NodeOperationError naming its item; as a tool, worded for the model. */
function itemError(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	tool: ToolParameters | undefined,
): ItemError {
	let failure: ItemError;
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		failure = error;
	} else {
		failure = new NodeOperationError(context.getNode(), error as Error, { itemIndex });
	}
	return tool ? toolModeError(tool, context.getNode().name, failure) : failure;
}

function errorOutput(error: ItemError, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

function outputItems(result: IDataObject | IDataObject[], itemIndex: number): INodeExecutionData[] {
	const records = Array.isArray(result) ? result : [result];
	return records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}

function runContext(context: IExecuteFunctions): RunContext {
	const requestOptions = context.getNodeParameter('requestOptions', 0, {}) as IDataObject;
	const rate = Number(requestOptions.maxRequestsPerSecond);
	return {
		runIndex: currentRunIndex(context),
		throttle: { maxRequestsPerSecond: Number.isFinite(rate) && rate > 0 ? rate : undefined },
	};
}

/** Runs the operation for every item in two phases: every item is read and checked first (no request), then the calls run in parallel. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const operations = Object.hasOwn(resources, resource) ? resources[resource].operations : {};
	const selected = Object.hasOwn(operations, operation) ? operations[operation] : undefined;
	if (!selected) {
		throw new NodeOperationError(this.getNode(), `The operation '${operation}' of resource '${resource}' is not supported`, {
			description: "Choose one of the operations listed under 'Operation' for this resource.",
		});
	}
	const run = runContext(this);
	const node = this.getNode();
	const tool = isToolNode(node) ? new ToolParameters(node, allProperties, resource, operation) : undefined;
	const continueOnFail = this.continueOnFail();
	const outputs: INodeExecutionData[][] = items.map(() => []);
	const calls: Array<OperationCall | undefined> = [];

	const itemCount = selected.firstItemOnly ? Math.min(1, items.length) : items.length;
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			const call = await selected.execute.call(this, itemIndex, run);
			calls[itemIndex] = applySimplify(this, itemIndex, resources[resource].simplifiedRecord, call);
		} catch (error) {
			const failure = itemError(this, error, itemIndex, tool);
			if (!continueOnFail) throw failure;
			outputs[itemIndex] = [errorOutput(failure, itemIndex)];
		}
	}

	let firstFailure: { itemIndex: number; error: ItemError } | undefined;
	const runItem = async (itemIndex: number, call: OperationCall) => {
		try {
			outputs[itemIndex] = outputItems(await call(), itemIndex);
		} catch (error) {
			const failure = itemError(this, error, itemIndex, tool);
			if (continueOnFail) outputs[itemIndex] = [errorOutput(failure, itemIndex)];
			else if (!firstFailure || itemIndex < firstFailure.itemIndex) firstFailure = { itemIndex, error: failure };
		}
	};
	let nextItem = 0;
	const worker = async () => {
		while (continueOnFail || !firstFailure) {
			const itemIndex = nextItem++;
			if (itemIndex >= itemCount) return;
			const call = calls[itemIndex];
			if (call) await runItem(itemIndex, call);
		}
	};
	await Promise.all(Array.from({ length: Math.min(PARALLEL_ITEMS, itemCount) }, worker));
	if (selected.afterItems) {
		// Also after a failure: what the items before it did still gets its check.
		const again = await selected.afterItems.call(this, run);
		for (const [itemIndex, call] of again) {
			await runItem(itemIndex, applySimplify(this, itemIndex, resources[resource].simplifiedRecord, call));
		}
	}
	if (firstFailure) throw firstFailure.error;
	return [outputs.flat()];
}
