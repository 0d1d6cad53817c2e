import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import {
	answeredPage,
	approvalPage,
	expiredPage,
	failurePage,
	formPage,
	FREE_TEXT_NAME,
	freeTextPage,
	notRecordedPage,
	recordedPage,
} from './pages';
import { takeRelay } from './chat';
import { isRelayCall } from '../../shared/chatWait';
import type { RelayAnswer } from '../../shared/chatWait';
import { answerOutput, asPending } from './request';
import type { PendingJson } from './request';
import { readSubmission } from './submission';

/** The webhooks n8n serves for a waiting execution of this node; as the operation is `sendAndWait`, n8n checks the link's signature first. */
export const sendAndWaitWebhooks = (['GET', 'POST'] as const).map((httpMethod) => ({
	name: 'default' as const,
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

/** Pages are private answers (the link is the key): never cached, indexed or given a referrer; they suit any body, so they are set before n8n knows what it sends. */
const PRIVATE_HEADERS: Record<string, string> = {
	'Cache-Control': 'no-store',
	'Referrer-Policy': 'no-referrer',
	'X-Content-Type-Options': 'nosniff',
	'X-Robots-Tag': 'noindex, nofollow',
};

/** Headers of a page this node writes itself; n8n's own answers get only PRIVATE_HEADERS. */
const PAGE_HEADERS: Record<string, string> = {
	'Content-Type': 'text/html; charset=utf-8',
	'Content-Security-Policy':
		"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	...PRIVATE_HEADERS,
};

type Response = ReturnType<IWebhookFunctions['getResponseObject']>;

function send(res: Response, status: number, html: string): void {
	res.status(status);
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
	res.end(html);
}

function reply(context: IWebhookFunctions, status: number, html: string): IWebhookResponseData {
	send(context.getResponseObject(), status, html);
	return { noWebhookResponse: true };
}

/** When n8n cannot continue the execution with this answer, it sends a JSON error after webhook() returned: the person gets a "not recorded" page instead. */
function answerFailureWithPage(res: Response): void {
	const json = res.json.bind(res);
	res.json = ((body: unknown) => {
		if (res.headersSent || res.statusCode < 400) return json(body);
		send(res, 409, notRecordedPage());
		return res;
	}) as Response['json'];
}

/** Continues the execution with the answer; the "recorded" page is returned, not written, so only the answer n8n used is told it was recorded. */
function resume(context: IWebhookFunctions, pending: PendingJson, data: IDataObject, summary?: string): IWebhookResponseData {
	const res = context.getResponseObject();
	for (const [name, value] of Object.entries(PRIVATE_HEADERS)) res.setHeader(name, value);
	answerFailureWithPage(res);
	return { webhookResponse: recordedPage(summary), workflowData: [[{ json: answerOutput(pending, data, new Date()) }]] };
}

/** A relay's typed answer (shared/chatWait, relay.ts); `resumed` comes only with the resume, so a relay that lost to another answer never hears it. */
async function answerRelay(context: IWebhookFunctions, pending: PendingJson): Promise<IWebhookResponseData> {
	const take = await takeRelay(context, pending);
	if (!take.resume) {
		context.getResponseObject().status(200).json(take.answer);
		return { noWebhookResponse: true };
	}
	// A superseded wait ends as its limit would end it (timedOut: no answer came), naming the newer question.
	const json = 'supersededBy' in take ? { ...pending, supersededBy: take.supersededBy } : answerOutput(pending, take.data, new Date(), take.reply);
	const resumed: RelayAnswer = { answer: 'resumed', waitId: pending.request.waitId };
	return { webhookResponse: resumed, workflowData: [[{ json }]] };
}

function single(value: unknown): unknown {
	return Array.isArray(value) ? value[0] : value;
}

/** Serves the links of a waiting Send and Wait: a GET shows the page, a valid POST answers and resumes; never throws, as an error would resume the execution. */
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
		if (isRelayCall(query)) {
			if (!isPost) return reply(this, 405, answeredPage());
			return await answerRelay(this, pending);
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
