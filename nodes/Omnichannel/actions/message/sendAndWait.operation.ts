import { createHash } from 'crypto';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readSendFields, sendCall } from './send';
import { ItemValidator } from '../../helpers/validation';
import { readWaitLimit, WAIT_INDEFINITELY } from '../../sendAndWait/limit';
import { SEND_AND_WAIT_OPERATION } from '../../../shared/chatWait';
import { carrierFor, checkChatRoute, endOlderWaits } from '../../sendAndWait/chat';
import { chatInstruction, linkParameters, linksLength, messageText } from '../../sendAndWait/message';
import type { ResponseLink } from '../../sendAndWait/message';
import { readResponseRequest } from '../../sendAndWait/parameters';
import { pendingJson } from '../../sendAndWait/request';
import { MAX_TEXT_LENGTH, sendAndWaitProperties } from '../../sendAndWait/description';
import type { OperationExecute } from '../../helpers/operation';

export { SEND_AND_WAIT_OPERATION };

/** One message, one wait: n8n resumes a node once, so only the first input item is sent (as n8n's own Send and Wait). */
export const firstItemOnly = true;

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: [SEND_AND_WAIT_OPERATION] } },
	sendAndWaitProperties,
);

/** What this operation needs from n8n, which older versions lack; checked when it runs, so the node still loads. */
function assertWaitingSupported(context: IExecuteFunctions): void {
	const missing = (['getSignedResumeUrl', 'putExecutionToWait', 'getExecuteData'] as const).filter(
		(method) => typeof context[method] !== 'function',
	);
	if (missing.length > 0) {
		throw new NodeOperationError(context.getNode(), 'This version of n8n cannot run Send and Wait for Response', {
			description: `It lacks ${missing.join(', ')}. Update n8n to use this operation; the other operations work as before.`,
		});
	}
}

/** Ties the links to this wait of this node: a loop's next wait gets new links. */
function waitIdOf(context: IExecuteFunctions, runIndex: number, itemIndex: number): string {
	const node = context.getNode();
	const source = JSON.stringify([context.getWorkflow().id ?? '', context.getExecutionId() ?? '', node.id || node.name, runIndex, itemIndex]);
	return createHash('sha256').update(source).digest('hex').slice(0, 24);
}

/** Leaves the pending item as the waiting node's input: n8n passes it on when the limit ends the wait, and a webhook call reads it back. */
function leavePendingItem(context: IExecuteFunctions, json: IDataObject, itemIndex: number): void {
	const main = context.getExecuteData().data.main;
	main[0] = [{ json, pairedItem: { item: itemIndex } }];
}

/** Asks n8n to check the resume link's signature, on the versions that check it only when asked (docs/development/compatibility.md, "n8n versions"). */
function requireSignature(context: IExecuteFunctions): void {
	const ask = (context as unknown as { setSignatureValidationRequired?: () => void }).setSignatureValidationRequired;
	if (typeof ask === 'function') ask.call(context);
}

export const execute: OperationExecute = async function (itemIndex, run) {
	assertWaitingSupported(this);
	const validator = new ItemValidator(this.getNode(), itemIndex);
	const { fields, options } = readSendFields(this, validator, run, `message.${SEND_AND_WAIT_OPERATION}`);
	const question = validator.text('Message', this.getNodeParameter('message', itemIndex, ''), 1, MAX_TEXT_LENGTH);
	const waitTill = readWaitLimit(validator, options.limitWaitTime, new Date());
	const request = readResponseRequest(this, validator, {
		waitId: waitIdOf(this, run.runIndex, itemIndex),
		question,
		options,
		expiresAt: waitTill,
	});
	if (request.chat) {
		checkChatRoute(this, itemIndex);
		if (options.clientRequestId) {
			validator.fail(
				'Client Request ID',
				'it cannot be set when the answer may come in the chat',
				"Remove it: the question's Client Request ID carries the wait, so that the Omnichannel Trigger can hand the reply to this execution.",
			);
		}
	}
	const links: ResponseLink[] = linkParameters(request).map(({ label, parameters }) => ({
		label,
		url: this.getSignedResumeUrl(parameters),
	}));
	const instruction = chatInstruction(request);
	const text = messageText(question, links, instruction);
	const length = Array.from(text).length;
	if (length > MAX_TEXT_LENGTH) {
		const room = MAX_TEXT_LENGTH - linksLength(question, links, instruction);
		validator.fail(
			'Message',
			`with its links the message has ${length} characters; the most allowed is ${MAX_TEXT_LENGTH}`,
			`Shorten the message to at most ${room} characters: the links take the rest.`,
			`text of 1 to ${room} characters`,
		);
	}
	if (request.chat) fields.client_request_id = await carrierFor(this, itemIndex, request, waitTill);
	const send = sendCall(this, itemIndex, run, '/messages/text', { body: { ...fields, text } });
	return async () => {
		const sentAt = new Date();
		const message = (await send()) as IDataObject;
		if (request.chat) await endOlderWaits(this, itemIndex, { conversation_id: fields.conversation_id, ...message });
		const pending = pendingJson(request, String(message.id ?? ''), fields.conversation_id, sentAt);
		leavePendingItem(this, pending, itemIndex);
		requireSignature(this);
		await this.putExecutionToWait(waitTill ?? WAIT_INDEFINITELY);
		return pending;
	};
};
