import type { IDataObject } from 'n8n-workflow';

import type { ItemValidator } from '../helpers/validation';

/** n8n's "wait forever" date (n8n-workflow's WAIT_INDEFINITELY), spelled out for n8n versions that lack the export. */
export const WAIT_INDEFINITELY = new Date('3000-01-01T00:00:00.000Z');

const UNIT_MS: Record<string, number> = {
	seconds: 1000,
	minutes: 60 * 1000,
	hours: 60 * 60 * 1000,
	days: 24 * 60 * 60 * 1000,
};

/** Longest interval accepted, so the date stays well before WAIT_INDEFINITELY. */
const MAX_INTERVAL_MS = 365 * UNIT_MS.days * 100;

/** When the wait ends without an answer, from the Limit Wait Time option; undefined without a limit. Checked before anything is sent. */
export function readWaitLimit(validator: ItemValidator, option: unknown, now: Date): Date | undefined {
	const values = (option as IDataObject | undefined)?.values as IDataObject | undefined;
	if (!values) return undefined;
	if ((values.limitType ?? 'afterTimeInterval') === 'afterTimeInterval') {
		const unit = validator.oneOf('Unit', values.resumeUnit ?? 'hours', Object.keys(UNIT_MS));
		const amount = validator.number('Amount', values.resumeAmount ?? 1, 1, MAX_INTERVAL_MS / UNIT_MS[unit]);
		return new Date(now.getTime() + amount * UNIT_MS[unit]);
	}
	const raw = values.maxDateAndTime;
	const date = typeof raw === 'string' && raw.trim() !== '' ? new Date(raw) : undefined;
	if (!date || Number.isNaN(date.getTime())) {
		validator.fail(
			'Max Date and Time',
			raw === undefined || raw === '' ? 'it is empty' : `"${String(raw)}" is not a date`,
			'Pick a date and time in the future, or enter one such as 2030-01-31T17:00:00Z.',
			'a date and time in the future',
		);
	}
	if (date.getTime() <= now.getTime()) {
		validator.fail(
			'Max Date and Time',
			`${date.toISOString()} is already past`,
			'Pick a date and time in the future: the wait would end before anyone could answer.',
			'a date and time in the future',
		);
	}
	if (date.getTime() >= WAIT_INDEFINITELY.getTime()) return undefined;
	return date;
}
