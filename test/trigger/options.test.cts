/**
 * The trigger's Options as the panel shows them: a number says its unit where
 * the value is (its label or the hint under it), since the panel shows only
 * the number (Step Aside for a Person showed `15.0`, the minutes only in its
 * tooltip).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { TRIGGER_OPTIONS } from '../../nodes/OmnichannelTrigger/options';
import { DEFAULT_HAND_OVER_HOURS } from '../../nodes/shared/handOverToPerson';
import { customerMessageStep } from '../../nodes/OmnichannelTrigger/step/customerMessage';

const numbers = TRIGGER_OPTIONS.map((option) => option.description).filter((description) => description.type === 'number');

test('there are number options to check', () => {
	expect(numbers.map((description) => description.displayName).sort()).toEqual([
		'Answer a Burst Once',
		'Burst Max Messages',
		'Burst Max Wait (Seconds)',
		'Hand-Over Limit (Hours)',
		'Step Aside for a Person',
	]);
});

test('the defaults the panel offers are those the docs state: a burst quiet for 5 s, capped at 30 s or 10 messages once added, 15 minutes aside, a 24-hour hand-over', () => {
	// Literals in the descriptions (n8n's lint reads them); the hand-over's is also the limit when the option is not added.
	const defaults = Object.fromEntries(numbers.map((description) => [description.displayName, description.default]));
	expect(defaults).toEqual({
		'Answer a Burst Once': 5,
		'Burst Max Wait (Seconds)': 30,
		'Burst Max Messages': 10,
		'Step Aside for a Person': 15,
		'Hand-Over Limit (Hours)': DEFAULT_HAND_OVER_HOURS,
	});
	expect(DEFAULT_HAND_OVER_HOURS).toBe(24);
});

test.each(numbers.map((description) => [description.displayName, description]))('%s says its unit in its label or hint', (_name, description) => {
	expect(`${description.displayName} | ${String(description.hint ?? '')}`).toMatch(/\b(seconds|minutes|hours|messages)\b/i);
});

describe('a message event without its conversation id', () => {
	const context = { getNode: () => ({ name: 'Trigger', credentials: { omnichannelApi: { id: 'c1', name: 'API' } } }) } as unknown as IExecuteFunctions;
	const message = { id: 'msg_1' };

	test('the error names the options that are on, from their panel names', async () => {
		await expect(customerMessageStep(context, message, { stepAsideMinutes: 15 }, 0)).rejects.toMatchObject({
			message: 'The message event has no message id or conversation id',
			description: expect.stringMatching(/^'Step Aside for a Person' needs both,.*Remove the option for/),
		});
		await expect(customerMessageStep(context, message, { burstQuietSeconds: 5, stepAsideMinutes: 15 }, 0)).rejects.toMatchObject({
			description: expect.stringMatching(/^'Answer a Burst Once' and 'Step Aside for a Person' need both,.*Remove the options for/),
		});
	});
});
