import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import {
	answeredPage,
	approvalPage,
	expiredPage,
	failurePage,
	formPage,
	FREE_TEXT_NAME,
	freeTextPage,
	recordedPage,
} from './pages';
import { handOverOutcome } from './chat';
import { answerOutput, asPending } from './request';
import type { PendingJson } from './request';
import { readSubmission } from './submission';

/**
 * The webhooks n8n serves for a waiting execution of this node, at
 * /webhook-waiting/{executionId}/{nodeId}. Because the node's operation is
 * `sendAndWait`, n8n checks the link's HMAC signature before calling
 * `webhook()`, so only links the node made reach it.
 */
export const sendAndWaitWebhooks = (['GET', 'POST'] as const).map((httpMethod) => ({
	name: 'default' as const,
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

/** Pages are private answers: never cached, indexed, framed or given a referrer (the link is the key). */
const PAGE_HEADERS: Record<string, string> = {
	'Content-Type': 'text/html; charset=utf-8',
	'Cache-Control': 'no-store',
	'Content-Security-Policy':
		"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	'Referrer-Policy': 'no-referrer',
	'X-Content-Type-Options': 'nosniff',
	'X-Robots-Tag': 'noindex, nofollow',
};

function reply(context: IWebhookFunctions, status: number, html: string): IWebhookResponseData {
	const res = context.getResponseObject();
	res.status(status);
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
	res.end(html);
	return { noWebhookResponse: true };
}

function resume(context: IWebhookFunctions, pending: PendingJson, data: IDataObject, summary?: string): IWebhookResponseData {
	reply(context, 200, recordedPage(summary));
	return { noWebhookResponse: true, workflowData: [[{ json: answerOutput(pending, data, new Date()) }]] };
}

/**
 * A chat reply handed over by the Omnichannel Trigger. The trigger reads the
 * answer: `resumed: true` comes only with the resume, which n8n sends after
 * it has resumed the execution, so a hand-over that lost to another answer
 * never hears it.
 */
async function handOver(context: IWebhookFunctions, pending: PendingJson): Promise<IWebhookResponseData> {
	const outcome = await handOverOutcome(context, pending);
	if (!outcome.resume) {
		context.getResponseObject().status(200).json({ resumed: false, reason: outcome.reason });
		return { noWebhookResponse: true };
	}
	return {
		webhookResponse: { resumed: true, waitId: pending.request.waitId },
		workflowData: [[{ json: answerOutput(pending, outcome.data, new Date(), outcome.reply) }]],
	};
}

function single(value: unknown): unknown {
	return Array.isArray(value) ? value[0] : value;
}

/**
 * Serves the links of a waiting Send and Wait: a GET shows the page and
 * leaves the execution waiting; a valid POST answers and resumes it.
 * Never throws: an error here would resume the execution with that error.
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		// The waiting node's input is the pending item the node left (see pendingJson).
		const pending = asPending(this.evaluateExpression('{{ $json }}', 0));
		const query = this.getQueryData() as IDataObject;
		if (!pending || single(query.w) !== pending.request.waitId) return reply(this, 409, answeredPage());
		const { request } = pending;
		if (request.expiresAt && Date.now() >= Date.parse(request.expiresAt)) {
			return reply(this, 410, expiredPage(request.expiresAt));
		}
		const isPost = this.getRequestObject().method === 'POST';
		if (single(query.via) === 'chat') {
			if (!isPost) return reply(this, 405, answeredPage());
			return await handOver(this, pending);
		}

		if (request.responseType === 'approval') {
			const choice = single(query.approved);
			const approved = choice === 'true' ? true : choice === 'false' && request.declineLabel ? false : undefined;
			if (approved === undefined) return reply(this, 409, answeredPage());
			if (!isPost) return reply(this, 200, approvalPage(request, approved));
			return resume(this, pending, { approved }, approved ? request.approveLabel : request.declineLabel);
		}

		const freeText = request.responseType === 'freeText';
		if (!isPost) return reply(this, 200, freeText ? freeTextPage(request) : formPage(request));
		const submission = readSubmission(request, (this.getBodyData() ?? {}) as IDataObject);
		if (!submission.ok) {
			const page = freeText
				? freeTextPage(request, submission.values[FREE_TEXT_NAME], submission.errors[FREE_TEXT_NAME])
				: formPage(request, submission.values, submission.errors);
			return reply(this, 400, page);
		}
		return resume(this, pending, submission.data);
	} catch {
		return reply(this, 500, failurePage());
	}
}
