import type { IDataObject } from 'n8n-workflow';

/** n8n's own answers to a call of a waiting execution's resume URL, where n8n gives no other signal than its text: read here and nowhere else. */

const messageOf = (body: unknown): string => String((body as IDataObject | undefined)?.message ?? body ?? '');

/** 409 "The execution … is running already.": the execution is running (starting its wait, or resumed a moment ago). */
export function isRunningAlready(statusCode: number, body: unknown): boolean {
	return statusCode === 409 && /is running already/.test(messageOf(body));
}

/** A 2xx page (HTML, not our node's JSON): n8n's "no action required" page, which it serves for an execution that finished or waits at another node. */
export function isN8nPage(statusCode: number, body: unknown): boolean {
	return statusCode >= 200 && statusCode < 300 && typeof body === 'string';
}
