import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import {
	answerOf,
	chatResumeParameters,
	chatResumeUrl,
	credentialChatWaitKey,
	executionOf,
	RELAY_SIGNATURE_HEADER,
	relaySignatureValid,
	isOmnichannelTrigger,
	MAX_CLIENT_REQUEST_ID,
	olderOpenWaits,
	receivesNewMessages,
	repromptKey,
	sealCarrier,
	supersedeOlderWaits,
	wordHash,
	workflowTag,
} from '../../shared/chatWait';
import type { ChatWait, Relay, RelayAnswer } from '../../shared/chatWait';
import { readRecentMessages } from '../../shared/conversation';
import { simplifyRecord } from '../../shared/simplifiedRecords';
import { apiRequest } from '../../shared/transport';
import type { PendingJson, ResponseRequest } from './request';

/** Replies reach the wait through the Omnichannel Trigger that started the workflow (shared/chatWait): checked before anything is sent. */
export function checkChatRoute(context: IExecuteFunctions, itemIndex: number): void {
	const fail = (message: string, description: string) => {
		throw new NodeOperationError(context.getNode(), message, { itemIndex, description });
	};
	const triggers = context.getParentNodes(context.getNode().name, { includeNodeParameters: true }).filter(isOmnichannelTrigger);
	if (triggers.length === 0) {
		fail(
			'Answers in the chat need an Omnichannel Trigger at the start of this workflow',
			'Replies reach the waiting execution through the Omnichannel Trigger that started it. Start the workflow with an Omnichannel Trigger (Trigger On: Message Created), or let the answer be given by link (Response Type: Approval with Answer In: Links, Free Text or Custom Form).',
		);
	}
	if (!triggers.some((node) => receivesNewMessages(node.parameters))) {
		fail(
			'The Omnichannel Trigger of this workflow does not receive new messages',
			"Add 'Message Created' to the trigger's Trigger On: replies in the chat reach the waiting execution through it.",
		);
	}
	if (context.getMode() === 'manual' && !context.getWorkflow().active) {
		fail(
			'Publish the workflow to wait for an answer in the chat',
			'Replies reach the waiting execution through the Omnichannel Trigger of the published workflow; in a manual run of an unpublished workflow nothing would deliver them.',
		);
	}
}

/** The question's client_request_id: the sealed wait, as stable as the default key, so a retried send is still sent once. */
export async function carrierFor(
	context: IExecuteFunctions,
	itemIndex: number,
	request: ResponseRequest,
	expiresAt: Date | undefined,
): Promise<string> {
	const url = new URL(context.getSignedResumeUrl(chatResumeParameters(request.waitId)));
	const wait: ChatWait = {
		path: url.pathname,
		waitId: request.waitId,
		signature: url.searchParams.get('signature') ?? '',
		party: request.chat?.party ?? 'customer',
		workflow: workflowTag(context.getWorkflow().id),
	};
	if (request.chat?.approveWord) wait.approve = wordHash(request.chat.approveWord);
	if (request.chat?.declineWord) wait.decline = wordHash(request.chat.declineWord);
	if (expiresAt) wait.expiresAt = expiresAt.getTime();
	// The trigger rebuilds the URL from these parts: they must give n8n's URL exactly.
	if (chatResumeUrl(url.origin, wait) !== url.toString()) {
		throw new NodeOperationError(context.getNode(), 'n8n gave a resume URL of an unexpected form', {
			itemIndex,
			description: 'Answers in the chat cannot be routed with this n8n version. Let the answer be given by link.',
		});
	}
	const carrier = sealCarrier(await credentialChatWaitKey(context), wait);
	if (carrier.length > MAX_CLIENT_REQUEST_ID) {
		throw new NodeOperationError(context.getNode(), "n8n's resume URL is too long to wait for an answer in the chat", {
			itemIndex,
			description: `The wait travels in the question's Client Request ID, at most ${MAX_CLIENT_REQUEST_ID} characters; n8n's path for waiting executions (${url.pathname}) leaves too little room. Shorten N8N_ENDPOINT_WEBHOOK_WAIT or let the answer be given by link.`,
		});
	}
	return carrier;
}

/** How long the asking node keeps trying to end an older wait that is still starting (asked a moment earlier). */
const SUPERSEDE_BUDGET_MS = 20_000;

/** A newer question ends the older open waits of this workflow in the conversation (shared/chatWait, supersede.ts); read once the question exists. */
export async function endOlderWaits(context: IExecuteFunctions, itemIndex: number, question: IDataObject): Promise<void> {
	try {
		const key = await credentialChatWaitKey(context);
		const messages = await readRecentMessages(context, String(question.conversation_id), { itemIndex });
		const older = olderOpenWaits(key, workflowTag(context.getWorkflow().id), question, messages, Date.now());
		if (older.length === 0) return;
		const origin = new URL(context.getSignedResumeUrl({})).origin;
		const left = await supersedeOlderWaits(context, origin, key, question, older, Date.now() + SUPERSEDE_BUDGET_MS);
		for (const { wait } of left) {
			context.logger.warn(`Omnichannel: could not end the older wait of execution ${executionOf(wait)} in conversation ${String(question.conversation_id)}; it waits until its limit.`);
		}
	} catch (error) {
		context.logger.warn(`Omnichannel: could not check the conversation for older waits to end: ${(error as Error).message}`);
	}
}

/** The reminder of the words, for a reply that was neither. */
function repromptText(request: ResponseRequest): string {
	const chat = request.chat;
	return chat?.declineWord
		? `Please reply ${chat.approveWord} to approve or ${chat.declineWord} to decline.`
		: `Please reply ${chat?.approveWord} to approve.`;
}

/** What the wait does with a relay: resume with the answer or as superseded, or answer the trigger without resuming. */
export type RelayTake =
	| { resume: true; data: IDataObject; reply: IDataObject }
	| { resume: true; supersededBy: string }
	| { resume: false; answer: Exclude<RelayAnswer, { answer: 'resumed' }> };

const refused = (why: 'notThisWait' | 'otherQuestion' | 'noReplies'): RelayTake => ({ resume: false, answer: { answer: 'refused', why } });
const kept = (why: 'reminded' | 'noRemindersLeft'): RelayTake => ({ resume: false, answer: { answer: 'kept', why } });

/** A reply relayed by the trigger: a free reply answers with the first, an approval with the first that is one of the words; others get at most `reprompts` reminders. */
export async function takeRelay(context: IWebhookFunctions, pending: PendingJson): Promise<RelayTake> {
	const { request } = pending;
	const raw = (context.getRequestObject() as { rawBody?: Buffer }).rawBody;
	const body = Buffer.isBuffer(raw) ? raw.toString('utf8') : JSON.stringify(context.getBodyData());
	const key = await credentialChatWaitKey(context);
	if (!request.chat || !relaySignatureValid(key, body, context.getHeaderData()[RELAY_SIGNATURE_HEADER])) {
		return refused('notThisWait');
	}
	const relay = JSON.parse(body) as Relay;
	if (relay.questionId !== pending.messageId) return refused('otherQuestion');
	// No reply can reach this wait any more: it ends, and says why.
	if (typeof relay.supersededBy === 'string') return { resume: true, supersededBy: relay.supersededBy };
	if (!Array.isArray(relay.replies) || relay.replies.length === 0) return refused('noReplies');
	const output = (reply: IDataObject) => (request.chat?.simplify ? simplifyRecord(reply, 'message') : reply);
	if (request.responseType === 'chatReply') {
		const reply = relay.replies[0];
		return { resume: true, data: { text: String(reply.content ?? '') }, reply: output(reply) };
	}
	const words = { approve: wordHash(request.chat.approveWord ?? ''), decline: request.chat.declineWord ? wordHash(request.chat.declineWord) : undefined };
	let unclear = 0;
	for (const reply of relay.replies) {
		const answer = answerOf(words, reply.content);
		if (answer) return { resume: true, data: { approved: answer === 'approve' }, reply: output(reply) };
		unclear++;
	}
	const latest = relay.replies[relay.replies.length - 1];
	if (unclear > request.chat.reprompts) return kept('noRemindersLeft');
	await apiRequest.call(context, 'POST', '/messages/text', {
		body: {
			conversation_id: pending.conversationId,
			client_request_id: repromptKey(request.waitId, String(latest.id)),
			text: repromptText(request),
			reply_to_message_id: String(latest.id),
		},
		idempotent: true,
	});
	return kept('reminded');
}
