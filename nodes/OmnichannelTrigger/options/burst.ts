/** Answer a Burst Once: a customer's several short messages in a row continue the workflow once, after a quiet period, with every customer message since the last reply. */
import { NodeOperationError, sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import { newerFirst, timeOf } from '../../shared/conversation';
import type { ConversationMessage } from '../../shared/conversation';
import { messageAuthor } from '../../shared/messageAuthors';
import type { TriggerBurst } from '../../shared/triggerItem';
import { recordIds } from '../common/eventsInDatabase';
import type { LedgerHelpers, Verdict } from '../common/eventsInDatabase';
import { capsIn, endBefore, endsAtOnce, hasCaps, splitBursts } from '../common/burstCaps';
import type { BurstCaps, BurstEnd } from '../common/burstCaps';
import type { HeldDelivery } from '../common/deliveredEvent';
import { HOLD_LIMIT_MS, holdForQuiet } from '../common/quietHold';
import { kindOf } from '../common/registrationInStaticData';
import type { TriggerOption } from './option';

/** The longest quiet period: n8n's graceful shutdown waits 30 s for running executions, so longer waits are cut by restarts. */
export const MAX_QUIET_SECONDS = 60;
/** Older customer messages are not part of a burst: well within how long the ledger's window keeps a claim at sustained load. */
export const MAX_BURST_AGE_MS = 60 * 60 * 1000;

const OPTION_NAME = "'Answer a Burst Once'";

/** A burst holds at most the reader's page of messages (shared/conversation.ts). */
export type BurstMessage = ConversationMessage;

/** The burst an item answers (its declared shape: shared/triggerItem.ts). */
export type Burst = TriggerBurst;

const description: INodeProperties = {
	displayName: 'Answer a Burst Once',
	name: 'burstQuietSeconds',
	type: 'number',
	default: 5,
	typeOptions: { minValue: 1, maxValue: MAX_QUIET_SECONDS },
	description:
		"The quiet period, in seconds. For AI agents and auto-replies: after a customer message, wait until the conversation has been quiet this many seconds, then continue once with every customer message since the last reply (in 'burst': text, messages, count). The executions of the burst's other messages end without output. Needs the Omnichannel API credential (messages:read).",
	hint: `1 to ${MAX_QUIET_SECONDS} seconds. Up to ${HOLD_LIMIT_MS / 1000} seconds are waited before the execution starts, holding no worker; a longer period waits the rest in a running execution.`,
};

/** The quiet period the node asks for, or undefined when the option is off; throws when it is out of range. */
export function quietSecondsOf(node: INode, options: IDataObject, itemIndex?: number): number | undefined {
	const value = options.burstQuietSeconds;
	if (value === undefined) return undefined;
	if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || value > MAX_QUIET_SECONDS) {
		throw new NodeOperationError(node, `${OPTION_NAME} needs a quiet period from 1 to ${MAX_QUIET_SECONDS} seconds`, {
			itemIndex,
			description: `The option's value is ${JSON.stringify(value)}. Set it to a number of seconds from 1 to ${MAX_QUIET_SECONDS}.`,
		});
	}
	return value;
}

const isCustomerMessage = (message: IDataObject): boolean => messageAuthor(message) === 'customer';

export type Decision =
	| { kind: 'continue'; candidates: BurstMessage[]; endedBy?: BurstEnd; earlier: BurstMessage[][] }
	| { kind: 'newer'; newerId: string; earlier?: BurstMessage[][] };

/**
 * What the execution of `message` does with the latest messages: end when a newer customer message exists in its run (with caps: in its burst, as burstCaps.ts splits them, while that burst is still open), otherwise gather the customer messages since the last outbound one up to its burst's last, oldest first, and say why the burst ended when a cap, the next burst or a reply says so.
 * A run ends at an outbound message: the customer messages after a reply begin the next burst, and the run before it is complete (`reply`) and continues, so a reply landing inside a quiet period loses no message.
 * `earlier`: the runs, oldest first, between `heldFirstId` (the first message the delivery's hold took into this burst) and the candidates, which a reply cut off; their executions never started.
 */
export function decide(message: BurstMessage, latest: BurstMessage[], caps?: BurstCaps, heldEndedBy?: BurstEnd, heldFirstId?: string): Decision {
	const list = latest.some((listed) => listed.id === message.id)
		? [...latest]
		: [...latest, message].sort(newerFirst);
	const position = list.findIndex((listed) => listed.id === message.id);
	const after = list.slice(0, position).reverse();
	const replyAt = after.findIndex((listed) => !isCustomerMessage(listed));
	const newer = replyAt === -1 ? after : after.slice(0, replyAt);
	const closedByReply = replyAt !== -1 && after.slice(replyAt).some(isCustomerMessage);
	const oldest = timeOf(message) - MAX_BURST_AGE_MS;
	const candidates: BurstMessage[] = [];
	for (const listed of list.slice(position)) {
		if (!isCustomerMessage(listed)) break;
		if (timeOf(listed) < oldest) break;
		candidates.push(listed);
	}
	const earlier = heldFirstId === undefined ? [] : earlierRuns(list, position + candidates.length, heldFirstId, oldest);
	candidates.reverse();
	const replyEnd = closedByReply ? 'reply' : undefined;
	if (!caps || !hasCaps(caps)) {
		return newer.length > 0 ? newerThan(newer[0], earlier) : { kind: 'continue', candidates, endedBy: replyEnd, earlier };
	}
	// Every execution splits the same run the same way (burstCaps.ts).
	const bursts = splitBursts([...candidates, ...newer], caps);
	const index = bursts.findIndex((burst) => burst.some((listed) => listed.id === message.id));
	const own = bursts[index];
	const last = own[own.length - 1];
	const next = bursts[index + 1]?.[0];
	const endedBy = (next ? endBefore(own, next, caps) : (endsAtOnce(own, caps) ?? replyEnd)) ?? (heldEndedBy === 'maxWait' ? heldEndedBy : undefined);
	// A burst still open continues from its last message; a complete one from whichever of its executions claims it first, so a burst whose last message's delivery started no execution (held into another process's burst) is not left behind.
	if (last.id !== message.id && endedBy === undefined) return newerThan(newer[0], earlier);
	const upToLast = newer.slice(0, newer.findIndex((listed) => listed.id === last.id) + 1);
	return { kind: 'continue', candidates: [...candidates, ...upToLast], endedBy, earlier };
}

/** A newer message continues this one's burst; the runs a reply cut off go out here all the same, as the newer message's delivery may have reached another process. */
const newerThan = (newer: BurstMessage, earlier: BurstMessage[][]): Decision =>
	earlier.length > 0 ? { kind: 'newer', newerId: newer.id, earlier } : { kind: 'newer', newerId: newer.id };

/** The runs of customer messages (oldest first, each oldest first) from `list[from]` back to the run that holds the held first message (all of it: its older messages may have waited for this one's burst), split at outbound messages; none when that message is not there. */
function earlierRuns(list: BurstMessage[], from: number, firstId: string, oldest: number): BurstMessage[][] {
	const firstAt = list.findIndex((listed) => listed.id === firstId);
	if (firstAt < from) return [];
	const runs: BurstMessage[][] = [];
	let run: BurstMessage[] = [];
	for (let index = from; index < list.length; index++) {
		const listed = list[index];
		const inRun = isCustomerMessage(listed) && timeOf(listed) >= oldest;
		if (inRun) run.unshift(listed);
		if (inRun && index < list.length - 1) continue;
		if (run.length > 0) runs.unshift(run);
		run = [];
		if (index >= firstAt) break;
	}
	return runs;
}

export function burstOf(messages: BurstMessage[], quietSeconds: number, endedBy: BurstEnd = 'quietPeriod', endedAt = new Date()): Burst {
	return {
		text: messages.map((message) => (typeof message.content === 'string' ? message.content : '')).join('\n'),
		messages,
		count: messages.length,
		quietSeconds,
		endedBy,
		beganAt: String(messages[0]?.created_at ?? ''),
		endedAt: endedAt.toISOString(),
	};
}

export const burstKey = (messageId: string): string => `burst:${messageId}`;

/** Claims in the ledger the candidates no earlier burst continued; test executions claim nothing. */
async function claim(context: IExecuteFunctions, candidates: BurstMessage[]): Promise<BurstMessage[]> {
	if (kindOf(context) === 'test') return candidates;
	const helpers = context.helpers as Partial<IExecuteFunctions['helpers']>;
	if (typeof helpers.checkProcessedAndRecord !== 'function' || typeof helpers.clearAllProcessedItems !== 'function') {
		// firstRun.ts logs that this n8n keeps no ledger.
		return candidates;
	}
	const ledger: LedgerHelpers = {
		checkProcessedAndRecord: helpers.checkProcessedAndRecord.bind(helpers),
		clearAllProcessedItems: helpers.clearAllProcessedItems.bind(helpers),
	};
	const owner = { workflowId: context.getWorkflow().id ?? '', nodeId: context.getNode().id };
	const verdicts: Verdict[] = await recordIds(
		ledger,
		owner,
		candidates.map((candidate) => burstKey(candidate.id)),
		context.logger,
	);
	return candidates.filter((_, index) => verdicts[index] === 'first');
}

/** How often a waiting execution looks whether it was cancelled. */
const CANCEL_CHECK_MS = 500;

/** Waits `ms` in slices, so a stopped execution ends within one without reading the conversation: n8n's sleep cannot be interrupted. */
export async function waitUnlessCancelled(context: IExecuteFunctions, ms: number, itemIndex: number): Promise<void> {
	const signal = typeof context.getExecutionCancelSignal === 'function' ? context.getExecutionCancelSignal() : undefined;
	const slices = Math.ceil(ms / CANCEL_CHECK_MS);
	for (let slice = 0; slice < slices; slice++) {
		if (signal?.aborted) break;
		await sleep(Math.min(CANCEL_CHECK_MS, ms - slice * CANCEL_CHECK_MS));
	}
	if (signal?.aborted) {
		throw new NodeOperationError(context.getNode(), 'The execution was cancelled while it waited for the quiet period', { itemIndex });
	}
}

/** The bursts to continue with, oldest first (more than one only when caps split what this execution claimed), or the hint saying why it ends without output. */
export type BurstOutcome = { bursts: Burst[] } | { hint: string };

/** The bursts to continue with, or the hint saying why this execution ends without output. */
export async function answerBurst(
	context: IExecuteFunctions,
	message: BurstMessage,
	latest: BurstMessage[],
	quietSeconds: number,
	caps?: BurstCaps,
	held?: HeldDelivery,
): Promise<BurstOutcome> {
	const decision = decide(message, latest, caps, held?.endedBy, held?.firstId);
	const hintNewer = (newerId: string) =>
		`Message ${message.id} is part of a burst: the newer customer message ${newerId} continues it. This execution ran nothing downstream.`;
	if (decision.kind === 'newer' && !decision.earlier) return { hint: hintNewer(decision.newerId) };
	const earlier = decision.earlier ?? [];
	const candidates = decision.kind === 'continue' ? decision.candidates : [];
	const claimed = await claim(context, [...earlier.flat(), ...candidates]);
	if (claimed.length === 0 && decision.kind === 'newer') return { hint: hintNewer(decision.newerId) };
	// Messages this execution claimed are its to continue, even when its own message was claimed before (a message that arrived late).
	if (claimed.length === 0) {
		return { hint: `Message ${message.id} was already answered in an earlier burst. This execution ran nothing downstream.` };
	}
	const won = new Set(claimed.map((candidate) => candidate.id));
	const bursts: Burst[] = [];
	// A run a reply ended, whose messages were held into this delivery's burst: each continues here as bursts of its own.
	for (const run of earlier) bursts.push(...claimedBursts(run, won, quietSeconds, caps, 'reply'));
	if (decision.kind === 'continue') bursts.push(...claimedBursts(candidates, won, quietSeconds, caps, decision.endedBy ?? heldEnd(held, quietSeconds)));
	return { bursts };
}

/**
 * The bursts of a run (oldest first) this execution claimed: the whole run as one without caps; with caps, split as every execution splits it, so a complete burst none of whose executions claimed it (its deliveries arrived out of order, or were held into another process's burst) continues here as its own item.
 * `lastEnd`: why the run's last burst ended.
 */
function claimedBursts(run: BurstMessage[], won: Set<string>, quietSeconds: number, caps: BurstCaps | undefined, lastEnd: BurstEnd): Burst[] {
	const split = caps && hasCaps(caps) ? splitBursts(run, caps) : [run];
	const bursts: Burst[] = [];
	split.forEach((whole, index) => {
		const mine = whole.filter((candidate) => won.has(candidate.id));
		if (mine.length === 0) return;
		const next = split[index + 1];
		bursts.push(burstOf(mine, quietSeconds, next && caps ? (endBefore(whole, next[0], caps) ?? lastEnd) : lastEnd));
	});
	return bursts;
}

/** Why a burst with nothing newer after it ended: as its hold said, or Max Wait when that came before the rest of the quiet period. */
function heldEnd(held: HeldDelivery | undefined, quietSeconds: number): BurstEnd {
	if (held?.endedBy) return held.endedBy;
	if (held?.capLeftMs !== undefined && held.capLeftMs < quietSeconds * 1000 - held.waitedMs) return 'maxWait';
	return 'quietPeriod';
}

/** The option: its presence turns it on. */
export const burst: TriggerOption<number> = {
	description,
	read: quietSecondsOf,
	readsConversation: true,
	hold: async (trigger, message, quietSeconds, deadline, values) => await holdForQuiet(trigger, message, capsIn(values, quietSeconds), deadline),
	// From the delivery's arrival, not the message's created_at: the service's clock may differ from n8n's.
	beforeRead: async (context, quietSeconds, itemIndex, held) => {
		const leftMs = Math.min(quietSeconds * 1000 - held.waitedMs, held.capLeftMs ?? Infinity);
		if (leftMs > 0) await waitUnlessCancelled(context, leftMs, itemIndex);
	},
	claim: async ({ context, message, latest, values, held }, quietSeconds) => {
		const outcome = await answerBurst(context, message, latest, quietSeconds, capsIn(values, quietSeconds), held);
		if ('hint' in outcome) return { stop: outcome.hint };
		const items = outcome.bursts.map((one) => ({ burst: one }));
		return { item: items[items.length - 1], earlier: items.slice(0, -1) };
	},
};
