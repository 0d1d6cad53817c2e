import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { ANSWER_IN, answersInChatWith, normaliseAnswer, REPLY_PARTIES } from '../../shared/chatWait';
import type { ItemValidator } from '../helpers/validation';
import { FIELD_TYPES, RESPONSE_TYPES } from './request';
import type { ChatAnswer, FormField, ResponseRequest, ResponseType } from './request';

const MAX_LABEL_LENGTH = 100;
const MAX_FIELDS = 50;
const MAX_WORD_LENGTH = 50;
const MAX_REPROMPTS = 10;

export const DEFAULT_TITLE = 'Your answer is requested';
export const DEFAULT_BUTTON_LABEL = 'Send';

function label(validator: ItemValidator, field: string, value: unknown, fallback: string): string {
	const text = value === undefined ? fallback : value;
	return validator.text(field, typeof text === 'string' ? text.trim() : text, 1, MAX_LABEL_LENGTH);
}

function readFields(validator: ItemValidator, entries: IDataObject[]): FormField[] {
	if (entries.length === 0) {
		validator.fail('Form Fields', 'no field is defined', 'Add at least one field, or choose another Response Type.');
	}
	if (entries.length > MAX_FIELDS) {
		validator.fail('Form Fields', `it has ${entries.length} fields; the most allowed is ${MAX_FIELDS}`, 'Remove some fields.');
	}
	const seen = new Set<string>();
	return entries.map((entry, index) => {
		const fieldLabel = label(validator, `Form Fields: Label (field ${index + 1})`, entry.fieldLabel ?? '', '');
		if (seen.has(fieldLabel)) {
			validator.fail(
				'Form Fields',
				`two fields are labelled "${fieldLabel}"`,
				'Give every field its own label: it names the field in the output.',
			);
		}
		seen.add(fieldLabel);
		const type = validator.oneOf(`Form Fields: Type (field ${index + 1})`, entry.fieldType ?? 'text', FIELD_TYPES);
		const field: FormField = { label: fieldLabel, type, required: entry.requiredField === true };
		if (type === 'dropdown') {
			const options = String(entry.fieldOptions ?? '')
				.split(',')
				.map((option) => option.trim())
				.filter((option) => option !== '');
			if (options.length === 0) {
				validator.fail(
					`Form Fields: Options (field ${index + 1})`,
					`the dropdown "${fieldLabel}" has no options`,
					'Enter its choices separated by commas, e.g. Small, Medium, Large.',
				);
			}
			field.options = [...new Set(options)];
		}
		return field;
	});
}

function word(validator: ItemValidator, field: string, value: unknown, fallback: string): string {
	const text = typeof value === 'string' ? value.trim() : value === undefined ? fallback : value;
	const checked = validator.text(field, text, 1, MAX_WORD_LENGTH);
	if (normaliseAnswer(checked) === '') {
		validator.fail(field, `"${checked}" has no letters or digits`, 'Use a word such as YES or NO: replies are compared without punctuation.');
	}
	return checked;
}

/** How a chat reply answers: who may reply and, for an approval, the words. */
function readChatAnswer(context: IExecuteFunctions, validator: ItemValidator, approval?: IDataObject, double = false): ChatAnswer {
	const { itemIndex } = validator;
	const chat: ChatAnswer = {
		party: validator.oneOf('Reply From', context.getNodeParameter('replyFrom', itemIndex, 'customer'), REPLY_PARTIES),
		reprompts: 0,
		simplify: context.getNodeParameter('simplify', itemIndex, false) === true,
	};
	if (approval) {
		chat.approveWord = word(validator, 'Approve Word', approval.approveWord, 'YES');
		if (double) {
			chat.declineWord = word(validator, 'Decline Word', approval.declineWord, 'NO');
			if (normaliseAnswer(chat.declineWord) === normaliseAnswer(chat.approveWord)) {
				validator.fail(
					'Decline Word',
					`it reads the same as the Approve Word ("${chat.approveWord}")`,
					'Choose two different words: a reply must say one or the other.',
				);
			}
		}
		chat.reprompts = validator.number('Re-Prompts', approval.reprompts ?? 2, 0, MAX_REPROMPTS);
	}
	return chat;
}

/** Reads and checks what the person is asked (no request is made). */
export function readResponseRequest(
	context: IExecuteFunctions,
	validator: ItemValidator,
	base: { waitId: string; question: string; options: IDataObject; expiresAt?: Date },
): ResponseRequest {
	const { itemIndex } = validator;
	const responseType: ResponseType = validator.oneOf(
		'Response Type',
		context.getNodeParameter('responseType', itemIndex, 'approval'),
		RESPONSE_TYPES,
	);
	const request: ResponseRequest = {
		waitId: base.waitId,
		responseType,
		question: base.question,
		title: label(validator, 'Page Title', base.options.pageTitle, DEFAULT_TITLE),
		buttonLabel: label(validator, 'Button Label', base.options.buttonLabel, DEFAULT_BUTTON_LABEL),
		approveLabel: 'Approve',
		links: responseType !== 'chatReply',
	};
	if (responseType === 'approval') {
		const approval = context.getNodeParameter('approvalOptions.values', itemIndex, {}) as IDataObject;
		const double = (approval.approvalType ?? 'double') === 'double';
		request.approveLabel = label(validator, 'Approve Button Label', approval.approveLabel, 'Approve');
		if (double) request.declineLabel = label(validator, 'Decline Button Label', approval.declineLabel, 'Decline');
		const answerIn = validator.oneOf('Answer In', approval.answerIn ?? 'links', ANSWER_IN);
		request.links = answerIn !== 'chat';
		if (answersInChatWith(answerIn)) request.chat = readChatAnswer(context, validator, approval, double);
	}
	if (responseType === 'chatReply') request.chat = readChatAnswer(context, validator);
	if (responseType === 'customForm') {
		const entries = context.getNodeParameter('formFields.values', itemIndex, []) as IDataObject[];
		request.fields = readFields(validator, Array.isArray(entries) ? entries : []);
	}
	if (base.expiresAt) request.expiresAt = base.expiresAt.toISOString();
	return request;
}
