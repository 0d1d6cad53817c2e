import { sleep } from 'n8n-workflow';
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { chatResumeUrl, HAND_OVER_SIGNATURE_HEADER, signHandOver } from '../shared/chatWait';
import type { ChatWait, HandOver } from '../shared/chatWait';

/**
 * Handing a chat reply to the waiting execution: one POST of its resume URL,
 * which n8n serves (not the service), and what the answer means.
 */

/**
 * - `taken`: the wait took the reply: it resumed the execution, or it kept
 *   waiting after a reminder (an approval's reply that is neither word);
 * - `notWaitingYet`: the execution is running: still starting its wait just
 *   after the question, or resumed a moment ago by this reply's copy or
 *   another answer. Asked again, it becomes one of the others;
 * - `waitEnded`: no wait takes the reply any more (stopped, failed, crashed,
 *   deleted, expired) or the wait refused it: the message is a new turn;
 * - `unreachable`: no answer, or an error that tells nothing.
 */
export type HandOverOutcome = 'taken' | 'notWaitingYet' | 'waitEnded' | 'unreachable';

/** The reason texts of the waiting node's own "resumed: false" answers that mean it kept the reply (sendAndWait/chat.ts). */
const KEPT_REASON = /^neither word/;

const messageOf = (body: unknown): string => String((body as IDataObject | undefined)?.message ?? body ?? '');

/**
 * What n8n 2.40's resume URL answered (webhooks/waiting-webhooks.js, then
 * the waiting node's webhook, sendAndWait/webhook.ts), decided here only:
 * - 200 `{resumed: true}`, or `{resumed: false}` with a reminder's reason:
 *   our node took the reply; `{resumed: false}` for any other reason: it
 *   refused it;
 * - 200 with n8n's "no action required" page: the execution finished, or
 *   waits at another node. Taken: the page cannot tell a wait this reply
 *   resumed (its hand-over answered late, then asked again) from one another
 *   answer ended, and a reply handed over twice must not also start a run;
 * - 409 "… is running already.": running; any other 409 ("… has finished
 *   with error." for a stopped, failed or crashed execution; our node's page
 *   for a wait it no longer has): ended. The statuses alone cannot tell
 *   these apart, so n8n's text decides, here and nowhere else;
 * - 404 (deleted), 410 (our node: expired), 401 (a signature this n8n no
 *   longer accepts: no reply can ever reach that wait), 405: ended;
 * - 5xx: unknown (our node's failure page, a database error, or the resume
 *   lost to another answer at the same moment, which n8n reports as a 500):
 *   asked again later, it becomes one of the others.
 */
export function handOverOutcome(statusCode: number, body: unknown): HandOverOutcome {
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

/** The origin n8n serves this workflow's webhooks on, which is where its waiting executions resume. */
function n8nOrigin(context: IWebhookFunctions): string {
	return new URL(context.getNodeWebhookUrl('default') ?? '').origin;
}

/** One call of the waiting execution's resume URL, ending by the delivery's deadline. */
async function callWaitingExecution(context: IWebhookFunctions, url: string, body: string, signature: string, deadline: number): Promise<HandOverOutcome> {
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
	return handOverOutcome(response.statusCode, parsed);
}

/** Pause between calls while the execution is running; a call after `deadline` is not made. */
const RETRY_PAUSE_MS = 100;

/**
 * Hands the reply over, asking again while the execution is running (it is
 * most often still starting its wait just after the question), until the
 * delivery's deadline.
 */
export async function handOver(context: IWebhookFunctions, key: Buffer, wait: ChatWait, handOverBody: HandOver, deadline: number): Promise<HandOverOutcome> {
	const body = JSON.stringify(handOverBody);
	const url = chatResumeUrl(n8nOrigin(context), wait);
	for (;;) {
		let outcome: HandOverOutcome;
		try {
			outcome = await callWaitingExecution(context, url, body, signHandOver(key, body), deadline);
		} catch (error) {
			context.logger.warn(`Omnichannel Trigger "${context.getNode().name}" could not reach n8n to hand over a chat reply: ${(error as Error).message}`);
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
