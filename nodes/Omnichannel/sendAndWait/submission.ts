import type { IDataObject } from 'n8n-workflow';

import { fieldName, FREE_TEXT_NAME } from './pages';
import type { FieldErrors } from './pages';
import type { FormField, ResponseRequest } from './request';

/** Longest answer kept from one field: a form is not a file upload. */
export const MAX_ANSWER_LENGTH = 10000;

/** Loose on purpose: the browser checks too, and the answer goes to a person's workflow, not a mail server. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type Submission =
	| { ok: true; data: IDataObject; summary?: string }
	| { ok: false; values: Record<string, string>; errors: FieldErrors };

function text(body: IDataObject, name: string): string {
	const raw = body[name];
	const value = Array.isArray(raw) ? raw[0] : raw;
	return typeof value === 'string' ? value.trim() : '';
}

function checkField(field: FormField, value: string): { error?: string; value?: string | number | null } {
	if (value === '') return field.required ? { error: 'Please fill in this field.' } : { value: field.type === 'number' ? null : '' };
	if (value.length > MAX_ANSWER_LENGTH) return { error: `Please keep it under ${MAX_ANSWER_LENGTH} characters.` };
	switch (field.type) {
		case 'number': {
			const number = Number(value);
			return Number.isFinite(number) ? { value: number } : { error: 'Please enter a number.' };
		}
		case 'email':
			return EMAIL.test(value) ? { value } : { error: 'Please enter an e-mail address, like name@example.com.' };
		case 'dropdown':
			return (field.options ?? []).includes(value) ? { value } : { error: 'Please choose one of the options.' };
		default:
			return { value };
	}
}

/** The submitted fields: n8n parses a multipart body into `{ data, files }`, a urlencoded one into the fields (never named `data`). */
export function submittedFields(body: IDataObject): IDataObject {
	const { data } = body;
	return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as IDataObject) : body;
}

/** Reads a submitted free text or form page; invalid input comes back with what to fix. */
export function readSubmission(request: ResponseRequest, submitted: IDataObject): Submission {
	const body = submittedFields(submitted);
	if (request.responseType === 'freeText') {
		const value = text(body, FREE_TEXT_NAME);
		if (value === '') return { ok: false, values: { [FREE_TEXT_NAME]: value }, errors: { [FREE_TEXT_NAME]: 'Please write an answer.' } };
		if (value.length > MAX_ANSWER_LENGTH) {
			return { ok: false, values: { [FREE_TEXT_NAME]: value }, errors: { [FREE_TEXT_NAME]: `Please keep it under ${MAX_ANSWER_LENGTH} characters.` } };
		}
		return { ok: true, data: { text: value } };
	}
	const values: Record<string, string> = {};
	const errors: FieldErrors = {};
	const data: IDataObject = {};
	(request.fields ?? []).forEach((field, index) => {
		const name = fieldName(index);
		values[name] = text(body, name);
		const checked = checkField(field, values[name]);
		if (checked.error) errors[name] = checked.error;
		else data[field.label] = checked.value ?? null;
	});
	return Object.keys(errors).length > 0 ? { ok: false, values, errors } : { ok: true, data };
}
