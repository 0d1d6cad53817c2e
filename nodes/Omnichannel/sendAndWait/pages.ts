import { escapeHtml, paragraphs, renderPage } from './html';
import type { FormField, ResponseRequest } from './request';

/** The name of a form field's input; labels can hold any text, so inputs are numbered. */
export const fieldName = (index: number): string => `field-${index}`;
export const FREE_TEXT_NAME = 'text';

export type FieldErrors = Record<string, string>;

function question(request: ResponseRequest): string {
	return `<div class="question">${paragraphs(request.question)}</div>`;
}

/** A form that posts to the link itself, multipart as n8n's own forms post: n8n refuses any other body for a custom form. */
function form(inner: string, buttons: string): string {
	return `<form method="post" enctype="multipart/form-data" accept-charset="utf-8">\n${inner}\n<div class="actions">${buttons}</div>\n</form>`;
}

const button = (label: string, secondary = false) =>
	`<button type="submit"${secondary ? ' class="secondary"' : ''}>${escapeHtml(label)}</button>`;

function errorText(id: string, message: string | undefined): string {
	return message ? `<p class="error" id="${id}-error">${escapeHtml(message)}</p>` : '';
}

function fieldInput(field: FormField, index: number, value: string, error: string | undefined): string {
	const name = fieldName(index);
	const required = field.required ? ' required' : '';
	const described = error ? ` aria-invalid="true" aria-describedby="${name}-error"` : '';
	const common = `id="${name}" name="${name}"${required}${described}`;
	const optional = field.required ? '' : ' <span class="optional">(optional)</span>';
	let control: string;
	switch (field.type) {
		case 'textarea':
			control = `<textarea ${common}>${escapeHtml(value)}</textarea>`;
			break;
		case 'dropdown': {
			const choices = (field.options ?? [])
				.map((option) => `<option${option === value ? ' selected' : ''}>${escapeHtml(option)}</option>`)
				.join('');
			control = `<select ${common}><option value=""${value === '' ? ' selected' : ''}>Choose…</option>${choices}</select>`;
			break;
		}
		case 'number':
			control = `<input type="number" step="any" inputmode="decimal" ${common} value="${escapeHtml(value)}">`;
			break;
		case 'email':
			control = `<input type="email" autocomplete="email" ${common} value="${escapeHtml(value)}">`;
			break;
		default:
			control = `<input type="text" ${common} value="${escapeHtml(value)}">`;
	}
	return `<label for="${name}">${escapeHtml(field.label)}${optional}</label>\n${control}${errorText(name, error)}`;
}

/** The page of one approval link: a button confirms the choice, so a link preview cannot answer for the person. */
export function approvalPage(request: ResponseRequest, approved: boolean): string {
	const label = approved ? request.approveLabel : (request.declineLabel ?? 'Decline');
	return renderPage({
		title: request.title,
		body: `${question(request)}\n<p class="muted">Your answer: <strong>${escapeHtml(label)}</strong>. Press the button to send it.</p>\n${form('', button(label, !approved))}`,
	});
}

export function freeTextPage(request: ResponseRequest, value = '', error?: string): string {
	const described = error ? ` aria-invalid="true" aria-describedby="${FREE_TEXT_NAME}-error"` : '';
	const input = `<label for="${FREE_TEXT_NAME}">Your answer</label>\n<textarea id="${FREE_TEXT_NAME}" name="${FREE_TEXT_NAME}" required${described}>${escapeHtml(value)}</textarea>${errorText(FREE_TEXT_NAME, error)}`;
	return renderPage({ title: request.title, body: `${question(request)}\n${form(input, button(request.buttonLabel))}` });
}

export function formPage(request: ResponseRequest, values: Record<string, string> = {}, errors: FieldErrors = {}): string {
	const fields = (request.fields ?? [])
		.map((field, index) => fieldInput(field, index, values[fieldName(index)] ?? '', errors[fieldName(index)]))
		.join('\n');
	const summary =
		Object.keys(errors).length > 0 ? '<p class="error">Please check the fields marked below.</p>\n' : '';
	return renderPage({ title: request.title, body: `${question(request)}\n${summary}${form(fields, button(request.buttonLabel))}` });
}

export function recordedPage(answer?: string): string {
	const what = answer ? `<p>Your answer: <strong>${escapeHtml(answer)}</strong></p>\n` : '';
	return renderPage({
		title: 'Thank you',
		status: { symbol: '✓', tone: 'ok' },
		body: `${what}<p>It has been sent. You can close this page.</p>`,
	});
}

export function answeredPage(): string {
	return renderPage({
		title: 'Already answered',
		status: { symbol: '✓', tone: 'ok' },
		body: '<p>This request has already been answered, or no longer needs an answer. Nothing was changed.</p>\n<p class="muted">You can close this page.</p>',
	});
}

/** For an answer n8n did not continue the execution with: another answer was used, or a failure; n8n cannot tell them apart, so the page names both. */
export function notRecordedPage(): string {
	return renderPage({
		title: 'Your answer was not recorded',
		status: { symbol: '!', tone: 'warn' },
		body: '<p>This request had already been answered at the same moment, or n8n could not take your answer.</p>\n<p class="muted">Open the link again to see whether it still needs an answer.</p>',
	});
}

export function expiredPage(expiresAt: string): string {
	return renderPage({
		title: 'This link has expired',
		status: { symbol: '⏱', tone: 'warn' },
		body: `<p>The time to answer ended on <strong>${escapeHtml(new Date(expiresAt).toUTCString())}</strong>. Nothing was recorded.</p>\n<p class="muted">If you still need to answer, contact whoever sent you this link.</p>`,
	});
}

export function failurePage(): string {
	return renderPage({
		title: 'Something went wrong',
		status: { symbol: '!', tone: 'warn' },
		body: '<p>Your answer could not be handled. Nothing was recorded. Please open the link again in a moment.</p>',
	});
}
