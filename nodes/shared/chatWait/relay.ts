import { createHmac, timingSafeEqual } from 'crypto';
import { sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { chatResumeUrl } from './carrier';
import type { ChatWait } from './carrier';
import { isN8nPage, isRunningAlready } from './n8nAnswers';

/** The relay: the Omnichannel Trigger (a reply) or the node asking a newer question (the news that it superseded the wait) POSTs this to the wait's resume URL, signed with the chat-wait key; the waiting node answers with a RelayAnswer. */
export interface Relay extends IDataObject {
	questionId: string;
	eventId: string;
	/** The replies since the question, oldest first; the last one is the delivered reply. */
	replies: IDataObject[];
	/** With no replies: the newer question of the same workflow that takes every reply from now on. */
	supersededBy?: string;
}

/** Why a wait took a reply without resuming: an approval's reply that is neither word. */
export type KeptWhy = 'reminded' | 'noRemindersLeft';
/** Why a wait refused a relay. */
export type RefusedWhy = 'notThisWait' | 'otherQuestion' | 'noReplies';

/** The waiting node's answer (200, JSON). `resumed` comes only once n8n resumed the execution. */
export type RelayAnswer = { answer: 'resumed'; waitId: string } | { answer: 'kept'; why: KeptWhy } | { answer: 'refused'; why: RefusedWhy };

/** The header that carries the relay's signature. */
export const RELAY_SIGNATURE_HEADER = 'x-omnichannel-wait-signature';

/** The signature of a relay body (hex HMAC), checked by the waiting node. */
export function signRelay(key: Buffer, body: string): string {
	return createHmac('sha256', key).update(body).digest('hex');
}

export function relaySignatureValid(key: Buffer, body: string, signature: unknown): boolean {
	if (typeof signature !== 'string' || signature.length !== 64) return false;
	return timingSafeEqual(Buffer.from(signRelay(key, body)), Buffer.from(signature));
}

/** What became of a relay: taken, notWaitingYet (the execution is running: ask again), waitEnded, or unreachable. */
export type RelayOutcome = 'taken' | 'notWaitingYet' | 'waitEnded' | 'unreachable';

const isAnswer = (body: unknown): body is RelayAnswer =>
	typeof body === 'object' && body !== null && ['resumed', 'kept', 'refused'].includes(String((body as IDataObject).answer));

/** The outcome of one call of the resume URL, decided here only (docs/development/shared-internals.md, nodes/shared/chatWait/relay.ts). */
export function outcomeOfRelay(statusCode: number, body: unknown): RelayOutcome {
	if (statusCode >= 200 && statusCode < 300) {
		if (isAnswer(body)) return body.answer === 'refused' ? 'waitEnded' : 'taken';
		return isN8nPage(statusCode, body) ? 'taken' : 'waitEnded';
	}
	if (isRunningAlready(statusCode, body)) return 'notWaitingYet';
	if (statusCode >= 400 && statusCode < 500) return 'waitEnded';
	return 'unreachable';
}

type RelayContext = IWebhookFunctions | IExecuteFunctions;

/** One call of the waiting execution's resume URL, ending by `deadline`. */
async function callWaitingExecution(context: RelayContext, url: string, body: string, signature: string, deadline: number): Promise<RelayOutcome> {
	const response = (await context.helpers.httpRequest({
		method: 'POST',
		url,
		body,
		headers: { 'Content-Type': 'application/json', [RELAY_SIGNATURE_HEADER]: signature },
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: Math.max(1, deadline - Date.now()),
		json: false,
	})) as { statusCode: number; body: unknown };
	let parsed = response.body;
	try {
		parsed = typeof parsed === 'string' ? JSON.parse(parsed) : parsed;
	} catch {
		// n8n's own pages are HTML.
	}
	return outcomeOfRelay(response.statusCode, parsed);
}

/** Pauses between calls while the execution is running, doubling to the longest: each call costs n8n a load of the execution. */
const FIRST_RETRY_PAUSE_MS = 100;
const LONGEST_RETRY_PAUSE_MS = 1600;

/** Relays `relayBody` to the wait at `origin`, asking again while the execution is running, until `deadline`. */
export async function relay(
	context: RelayContext,
	origin: string,
	key: Buffer,
	wait: ChatWait,
	relayBody: Relay,
	deadline: number,
): Promise<RelayOutcome> {
	const body = JSON.stringify(relayBody);
	const url = chatResumeUrl(origin, wait);
	for (let pause = FIRST_RETRY_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_RETRY_PAUSE_MS)) {
		let outcome: RelayOutcome;
		try {
			outcome = await callWaitingExecution(context, url, body, signRelay(key, body), deadline);
		} catch (error) {
			context.logger.warn(`Omnichannel: node "${context.getNode().name}" could not reach n8n to relay a chat message to a waiting execution: ${(error as Error).message}`);
			return 'unreachable';
		}
		if (outcome !== 'notWaitingYet' || Date.now() + pause >= deadline) return outcome;
		await sleep(pause);
	}
}

/** The id of the execution a wait belongs to (its resume path is `/<webhook-waiting>/<execution>/<node>`). */
export function executionOf(wait: ChatWait): string {
	return wait.path.split('/').at(-2) ?? '';
}
