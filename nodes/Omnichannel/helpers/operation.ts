import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** What every item of one execution of the node shares. */
export interface RunContext {
	/** The node's run index in this execution (part of the default idempotency key). */
	runIndex: number;
	/** Spread into every request: the node's Request Options (undefined: the API's 60 per second). */
	throttle: { maxRequestsPerSecond?: number };
}

/** Performs an item's operation; its result becomes one output item per record. */
export type OperationCall = () => Promise<IDataObject | IDataObject[]>;

/**
 * Reads and checks an item's parameters, making no request, and returns the
 * call that performs the operation. The split lets the router check every
 * item before the first request and then run the calls in parallel.
 */
export type OperationExecute = (this: IExecuteFunctions, itemIndex: number, run: RunContext) => Promise<OperationCall>;

/**
 * Runs once after every item's call has settled, also after a failure; may
 * make requests. Resolves to new calls for the items whose results change
 * (Contact > Create or Update merges what two workflows created at the same
 * moment); the router runs them as it ran the first ones.
 */
export type OperationAfterItems = (this: IExecuteFunctions, run: RunContext) => Promise<Map<number, OperationCall>>;

export interface OperationModule {
	description: INodeProperties[];
	execute: OperationExecute;
	afterItems?: OperationAfterItems;
	/** Only the first input item runs (an operation that pauses the execution acts once). */
	firstItemOnly?: boolean;
}
