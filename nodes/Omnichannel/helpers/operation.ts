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

/** Reads and checks an item's parameters (no request) and returns the call, so the router checks every item before the first request. */
export type OperationExecute = (this: IExecuteFunctions, itemIndex: number, run: RunContext) => Promise<OperationCall>;

/** Runs once after every item's call settled, failures included; may make requests, and resolves to new calls for the items whose results change. */
export type OperationAfterItems = (this: IExecuteFunctions, run: RunContext) => Promise<Map<number, OperationCall>>;

export interface OperationModule {
	description: INodeProperties[];
	execute: OperationExecute;
	afterItems?: OperationAfterItems;
	/** Only the first input item runs (an operation that pauses the execution acts once). */
	firstItemOnly?: boolean;
}
