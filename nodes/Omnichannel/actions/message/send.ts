import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { optionalId } from '../../../shared/parameterValues';
import { ownSendKey } from '../../../shared/sendKeys';
import { apiRequest } from '../../../shared/transport';
import type { ApiRequestOptions } from '../../../shared/transport';
import type { OperationCall, RunContext } from '../../helpers/operation';
import { defaultClientRequestId } from '../../helpers/idempotency';
import { collection, requiredId } from '../../helpers/parameters';
import type { ItemValidator } from '../../helpers/validation';

type RequestParts = Pick<ApiRequestOptions, 'body' | 'headers'>;

/** Fields every send carries: target, idempotency key and attribution. */
export interface SendFields {
	conversation_id: string;
	client_request_id: string;
	reply_to_message_id?: string;
	as_system?: boolean;
	from_user_id?: string;
}

/** Reads the conversation and the send options of an item; Send As System wins over From User ID, which is then not sent (docs/api-assumptions.md, "Messages"). */
export function readSendFields(
	context: IExecuteFunctions,
	validator: ItemValidator,
	run: RunContext,
	operation: string,
): { fields: SendFields; options: IDataObject } {
	const { itemIndex } = validator;
	const options = collection(context, itemIndex, 'options');
	const chosenKey = optionalId(options.clientRequestId);
	const fields: SendFields = {
		conversation_id: requiredId(context, validator, 'conversationId', 'Conversation'),
		client_request_id: chosenKey ? ownSendKey(chosenKey) : defaultClientRequestId(context, itemIndex, run.runIndex, operation),
	};
	const replyTo = optionalId(options.replyToMessageId);
	if (replyTo) fields.reply_to_message_id = replyTo;
	if (options.sendAsSystem === true) {
		fields.as_system = true;
	} else {
		const fromUserId = optionalId(options.fromUserId);
		if (fromUserId) fields.from_user_id = fromUserId;
	}
	return { fields, options };
}

/** The call of a send, retried freely: the client_request_id makes a repeat return the original message (docs/api-assumptions.md, "Messages"). */
export function sendCall(
	context: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
	endpoint: string,
	/** The body, or how to build it when the call starts (files are read late, one at a time). */
	request: RequestParts | (() => Promise<RequestParts>),
): OperationCall {
	return async () => {
		const parts = typeof request === 'function' ? await request() : request;
		const response = (await apiRequest.call(context, 'POST', endpoint, {
			...parts,
			itemIndex,
			idempotent: true,
			...run.throttle,
		})) as IDataObject;
		return (response.message as IDataObject | undefined) ?? response;
	};
}
