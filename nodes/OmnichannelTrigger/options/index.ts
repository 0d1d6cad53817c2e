import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IHookFunctions, INode, IWebhookFunctions } from 'n8n-workflow';

import type { TriggerEvent } from '../../shared/triggerItem';
import type { HeldDelivery } from '../common/deliveredEvent';
import type { HoldOutcome } from '../common/quietHold';
import { burst } from './burst';
import { burstEndWords } from './burstEndWords';
import { burstMaxMessages } from './burstMaxMessages';
import { burstMaxWait } from './burstMaxWait';
import { channelTypes } from './channelTypes';
import { directions } from './directions';
import { handOverLimit } from './handOverLimit';
import type { CustomerMessage, OptionValues, TriggerOption } from './option';
import { outputDataOnly } from './outputDataOnly';
import { stepAside } from './stepAside';

export type { CustomerMessage, OptionValues, StepVerdict, TriggerOption } from './option';

/** The trigger's Options, in the panel's order: the node's panel, the activation check, the delivery, the step and the item all read this list. */
export const TRIGGER_OPTIONS: ReadonlyArray<TriggerOption<unknown>> = [burst, burstMaxWait, burstMaxMessages, burstEndWords, stepAside, handOverLimit, channelTypes, directions, outputDataOnly];

const nameOf = (option: TriggerOption<unknown>): string => option.description.name;
const valueOf = (option: TriggerOption<unknown>, values: OptionValues): unknown => values[nameOf(option)];
const isOn = (option: TriggerOption<unknown>, values: OptionValues): boolean => values[nameOf(option)] !== undefined;

/** Every option's value, checked: throws the first bad value's error. */
export function readOptions(node: INode, options: IDataObject, itemIndex?: number): OptionValues {
	const values: Record<string, unknown> = {};
	for (const option of TRIGGER_OPTIONS) values[nameOf(option)] = option.read(node, options, itemIndex);
	return values;
}

/** The values a delivery acts on: an option with a bad value counts as off there, and the execution's step fails with its error. */
export function deliveryOptions(context: IWebhookFunctions): OptionValues {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const values: Record<string, unknown> = {};
	for (const option of TRIGGER_OPTIONS) {
		try {
			values[nameOf(option)] = option.read(context.getNode(), options);
		} catch {
			values[nameOf(option)] = undefined;
		}
	}
	return values;
}

/** The options that read the conversation and are on. */
export const conversationReaders = (values: OptionValues): Array<TriggerOption<unknown>> =>
	TRIGGER_OPTIONS.filter((option) => option.readsConversation === true && isOn(option, values));

/** The options' names as the panel shows them, quoted: 'A', 'B' and 'C'. */
export function quotedNames(options: ReadonlyArray<TriggerOption<unknown>>): string {
	const names = options.map((option) => `'${option.description.displayName}'`);
	return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The options that read the conversation need the API credential, which manual registration does not need otherwise. */
export function requireApiCredential(node: INode, itemIndex?: number): void {
	if (node.credentials?.omnichannelApi !== undefined) return;
	const readers = TRIGGER_OPTIONS.filter((option) => option.readsConversation === true);
	const one = readers.length === 1;
	throw new NodeOperationError(node, `${quotedNames(readers)} ${one ? 'needs' : 'need'} an Omnichannel API credential`, {
		itemIndex,
		description: `${one ? 'It reads' : 'They read'} the conversation's latest messages (scope messages:read). Select or create an Omnichannel API credential in the node, or remove the ${one ? 'option' : 'options'}.`,
	});
}

/** Activation's check: valid values, and the API credential when an option reads the conversation. */
export function checkOptions(context: IHookFunctions): void {
	const node = context.getNode();
	if (conversationReaders(readOptions(node, context.getNodeParameter('options', {}) as IDataObject)).length > 0) requireApiCredential(node);
}

/** Whether an event passes the options' filters. Only messages are filtered: a filter never hides an event the user subscribed to and could not filter. */
export function passesFilters(eventType: string, data: unknown, values: OptionValues): boolean {
	if (eventType !== 'message.created') return true;
	const message = data !== null && typeof data === 'object' ? (data as IDataObject) : {};
	return TRIGGER_OPTIONS.every((option) => !option.passes || !isOn(option, values) || option.passes(message, valueOf(option, values)));
}

/** Holds a customer's message as the options ask, before its execution exists; undefined when none holds. */
export async function holdMessage(trigger: string, message: IDataObject, values: OptionValues, deadline: number): Promise<HoldOutcome | undefined> {
	let outcome: HoldOutcome | undefined;
	for (const option of TRIGGER_OPTIONS) {
		if (!option.hold || !isOn(option, values)) continue;
		outcome = await option.hold(trigger, message, valueOf(option, values), deadline, values);
		if ('newerId' in outcome) return outcome;
	}
	return outcome;
}

/** The step's waits before its read of the conversation. */
export async function waitBeforeRead(context: IExecuteFunctions, values: OptionValues, itemIndex: number, held: HeldDelivery): Promise<void> {
	for (const option of conversationReaders(values)) {
		if (option.beforeRead) await option.beforeRead(context, valueOf(option, values), itemIndex, held);
	}
}

/** The options' decisions on a customer's message, from one read of its conversation: every check, then every claim (a message a check stops claims nothing). */
export async function decideCustomerMessage(
	customerMessage: CustomerMessage,
): Promise<{ stop: string } | { fields: Map<string, IDataObject>; earlier: Array<Map<string, IDataObject>> }> {
	const readers = conversationReaders(customerMessage.values);
	const fields = new Map<string, IDataObject>();
	const earlierByOption = new Map<string, IDataObject[]>();
	for (const phase of ['check', 'claim'] as const) {
		for (const option of readers) {
			const decide = option[phase];
			if (!decide) continue;
			const verdict = await decide(customerMessage, valueOf(option, customerMessage.values));
			if ('stop' in verdict) return verdict;
			if (verdict.item) fields.set(nameOf(option), verdict.item);
			if (verdict.earlier?.length) earlierByOption.set(nameOf(option), verdict.earlier);
		}
	}
	// An earlier item has the fields of the last one, with the option's own replaced.
	const earlier = [...earlierByOption].flatMap(([name, list]) => list.map((own) => new Map([...fields, [name, own]])));
	return { fields, earlier };
}

/** The item: the whole event, or what an option puts instead, then the options' fields in the panel's order. */
export function itemOf(event: TriggerEvent, values: OptionValues, fields: Map<string, IDataObject> = new Map()): IDataObject {
	let json: IDataObject = event;
	for (const option of TRIGGER_OPTIONS) {
		if (option.shapeItem && isOn(option, values)) json = option.shapeItem(json, valueOf(option, values));
	}
	json = { ...json };
	for (const option of TRIGGER_OPTIONS) Object.assign(json, fields.get(nameOf(option)));
	return json;
}
