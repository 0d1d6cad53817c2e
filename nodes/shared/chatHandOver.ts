import { sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { chatResumeUrl, HAND_OVER_SIGNATURE_HEADER, openCarrier, settlesWait, signHandOver } from './chatWait';
import type { ChatWait, HandOver } from './chatWait';
import { newerFirst, timeOf } from './conversation';

/**
 * Handing something to a waiting Send and Wait: a reply (the trigger) or the
 * news that a newer question superseded it (the node that asks the newer
 * one). One POST of the wait's resume URL, which n8n serves, and what the
 * answer means.
 */

/**
 * - `taken`: the wait took it: it resumed the execution, or it kept waiting
 *   after a reminder (an approval's reply that is neither word);
 * - `notWaitingYet`: the execution is running: still starting its wait just
 *   after the question, or resumed a moment ago by a copy or another answer.
 *   Asked again, it becomes one of the others;
 * - `waitEnded`: no wait takes it any more (stopped, failed, crashed,
 *   deleted, expired) or the wait refused it: a reply is a new turn;
 * - `unreachable`: no answer, or an error that tells nothing.
 */
export type HandOverOutcome = 'taken' | 'notWaitingYet' | 'waitEnded' | 'unreachable';

/** The reason texts of the waiting node's own "resumed: false" answers that mean it kept the reply (sendAndWait/chat.ts). */
const KEPT_REASON = /^neither word/;

const messageOf = (body: unknown): string => String((body as IDataObject | undefined)?.message ?? body ?? '');

/**
 * What n8n's resume URL answered (webhooks/waiting-webhooks.js, then the
 * waiting node's webhook, sendAndWait/webhook.ts), decided here only:
 * - 200 `{resumed: true}`, or `{resumed: false}` with a reminder's reason:
 *   our node took it; `{resumed: false}` for any other reason: refused;
 * - 200 with n8n's "no action required" page: the execution finished, or
 *   waits at another node. Taken: the page cannot tell a wait this reply
 *   resumed (its hand-over answered late, then asked again) from one another
 *   answer ended, and a reply handed over twice must not also start a run;
 * - 409 "… is running already.": running; any other 409 ("… has finished
 *   with error." for a stopped, failed or crashed execution; our node's page
 *   for a wait it no longer has): ended. The statuses alone cannot tell
 *   these apart, so n8n's text decides, here and nowhere else;
 * - 404 (deleted), 410 (our node: expired), 401 (a signature this n8n no
 *   longer accepts), 405: ended;
 * - 5xx: unknown (our node's failure page, a database error, or the resume
 *   lost to another answer at the same moment, which n8n reports as a 500).
 */
export function outcomeOfAnswer(statusCode: number, body: unknown): HandOverOutcome {
	if (statusCode >= 200 && statusCode < 300) {
		const answer = typeof body === 'object' && body !== null ? (body as IDataObject) : {};
		if (answer.resumed === true) return 'taken';
		if (answer.resumed === false && KEPT_REASON.test(String(answer.reason ?? ''))) return 'taken';
		return typeof body === 'string' ? 'taken' : 'waitEnded';
	}
	if (statusCode === 409) return /is running already/.test(messageOf(body)) ? 'notWaitingYet' : 'waitEnded';
	if (statusCode >= 400 && statusCode < 500) return 'waitEnded';
	return 'unreachable';
}

type HandOverContext = IWebhookFunctions | IExecuteFunctions;

/** One call of the waiting execution's resume URL, ending by `deadline`. */
async function callWaitingExecution(context: HandOverContext, url: string, body: string, signature: string, deadline: number): Promise<HandOverOutcome> {
	const response = (await context.helpers.httpRequest({
		method: 'POST',
		url,
		body,
		headers: { 'Content-Type': 'application/json', [HAND_OVER_SIGNATURE_HEADER]: signature },
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
	return outcomeOfAnswer(response.statusCode, parsed);
}

/** Pause between calls while the execution is running; a call after `deadline` is not made. */
const RETRY_PAUSE_MS = 100;

/**
 * Hands `handOverBody` to the wait at `origin` (where this n8n serves its
 * waiting executions), asking again while the execution is running (it is
 * most often still starting its wait just after the question), until `deadline`.
 */
export async function handOver(
	context: HandOverContext,
	origin: string,
	key: Buffer,
	wait: ChatWait,
	handOverBody: HandOver,
	deadline: number,
): Promise<HandOverOutcome> {
	const body = JSON.stringify(handOverBody);
	const url = chatResumeUrl(origin, wait);
	for (;;) {
		let outcome: HandOverOutcome;
		try {
			outcome = await callWaitingExecution(context, url, body, signHandOver(key, body), deadline);
		} catch (error) {
			context.logger.warn(`Omnichannel: node "${context.getNode().name}" could not reach n8n to hand a chat message to a waiting execution: ${(error as Error).message}`);
			return 'unreachable';
		}
		if (outcome !== 'notWaitingYet' || Date.now() + RETRY_PAUSE_MS >= deadline) return outcome;
		await sleep(RETRY_PAUSE_MS);
	}
}

/** The id of the execution a wait belongs to (its resume path is `/<webhook-waiting>/<execution>/<node>`). */
export function executionOf(wait: ChatWait): string {
	return wait.path.split('/').at(-2) ?? '';
}

/** Whether a reply after `question` (and before `until`) settled its wait, as reply routing decides. */
function settled(wait: ChatWait, question: IDataObject, until: IDataObject, messages: IDataObject[]): boolean {
	return messages.some((one) => newerFirst(one, question) < 0 && newerFirst(one, until) > 0 && settlesWait(wait, one));
}

export interface OpenWait {
	wait: ChatWait;
	question: IDataObject;
}

/**
 * A newer question ends the older waits: a reply goes to the newest question
 * of the workflow before it, so when two executions of one workflow ask in
 * the same conversation no reply can reach the older one, which would wait
 * unseen (forever without a limit). These are the waits of `workflow` asked
 * before `newer` in `messages`, not expired and not settled by a reply.
 */
export function olderOpenWaits(key: Buffer, workflow: string, newer: IDataObject, messages: IDataObject[], now: number): OpenWait[] {
	const open: OpenWait[] = [];
	for (const question of messages) {
		if (question.id === newer.id || !(newerFirst(question, newer) > 0)) continue;
		const wait = openCarrier(key, question.client_request_id);
		if (wait?.workflow !== workflow || (wait.expiresAt !== undefined && wait.expiresAt <= now)) continue;
		if (!settled(wait, question, newer, messages)) open.push({ wait, question });
	}
	return open;
}

/** Whether a message is a question of `workflow`, with the time that orders it among the others. */
export function isQuestionOf(key: Buffer, workflow: string, message: IDataObject): boolean {
	return openCarrier(key, message.client_request_id)?.workflow === workflow && !Number.isNaN(timeOf(message));
}

/**
 * Ends the older waits with a signed "superseded" hand-over naming `newer`:
 * each goes on with its no-answer item (docs/send-and-wait.md). Resolves to
 * the waits that could not be ended (still starting at `deadline`, or unreachable).
 */
export async function supersedeOlderWaits(
	context: HandOverContext,
	origin: string,
	key: Buffer,
	newer: IDataObject,
	older: OpenWait[],
	deadline: number,
): Promise<OpenWait[]> {
	const outcomes = await Promise.all(
		older.map(async ({ wait, question }) =>
			handOver(context, origin, key, wait, { questionId: String(question.id), eventId: String(newer.id), replies: [], supersededBy: String(newer.id) }, deadline),
		),
	);
	return older.filter((_, index) => outcomes[index] === 'notWaitingYet' || outcomes[index] === 'unreachable');
}
