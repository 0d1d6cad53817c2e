import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import type { ConversationMessage } from '../../shared/conversation';
import type { HeldDelivery } from '../common/deliveredEvent';
import type { HoldOutcome } from '../common/quietHold';

/** The options' values by name: an option that was not added reads as undefined. */
export type OptionValues = Readonly<Record<string, unknown>>;

/** A customer's message in the execution's step, with the one read of its conversation that every option shares. */
export interface CustomerMessage {
	context: IExecuteFunctions;
	message: ConversationMessage;
	latest: ConversationMessage[];
	values: OptionValues;
	itemIndex: number;
	/** What the delivery's hold did before the execution started. */
	held: HeldDelivery;
}

/** An option's say on a customer's message: the execution stops with a hint, or goes on, adding fields to its item; `earlier`: the fields of items to output before it, one each (Answer a Burst Once's complete bursts claimed with it). */
export type StepVerdict = { stop: string } | { item?: IDataObject; earlier?: IDataObject[] };

/** One entry under the trigger's Options: its description, its reader and its effects, each at the phase that applies it (options/index.ts lists them). */
export interface TriggerOption<T = unknown> {
	description: INodeProperties;
	/** The value, or undefined when the option is off; throws, naming the option, for a bad value. */
	read(node: INode, options: IDataObject, itemIndex?: number): T | undefined;
	/** Reads the conversation (messages:read): needs the API credential, and decides in the step. */
	readsConversation?: boolean;
	/** Delivery: whether a message passes (other events always do). */
	passes?(message: IDataObject, value: T): boolean;
	/** Delivery: holds a customer's message before its execution exists. */
	hold?(trigger: string, message: IDataObject, value: T, deadline: number, values: OptionValues): Promise<HoldOutcome>;
	/** Step: waits before the conversation is read; `held` is what the delivery's hold already did. */
	beforeRead?(context: IExecuteFunctions, value: T, itemIndex: number, held: HeldDelivery): Promise<void>;
	/** Step: decides from the read; every check runs before any claim. */
	check?(customerMessage: CustomerMessage, value: T): StepVerdict;
	/** Step: decides and records its decision in the ledger, once every check let the message through. */
	claim?(customerMessage: CustomerMessage, value: T): Promise<StepVerdict>;
	/** Item: what the item holds instead of the whole event. */
	shapeItem?(json: IDataObject, value: T): IDataObject;
}

/** An option's number above 0 and at most `max`, or the error naming the option, its unit and the value. */
export function positiveAtMost(node: INode, value: unknown, option: string, unit: string, max: number, itemIndex?: number): number {
	if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max) {
		throw new NodeOperationError(node, `'${option}' needs a positive number of ${unit}, at most ${max}`, {
			itemIndex,
			description: `The option's value is ${JSON.stringify(value)}. Set it to a number of ${unit} above 0 and at most ${max}.`,
		});
	}
	return value;
}
