/**
 * The trigger's Options as the panel shows them: a number says its unit where
 * the value is (its label or the hint under it), since the panel shows only
 * the number (Step Aside for a Person showed `15.0`, the minutes only in its
 * tooltip).
 */
import { TRIGGER_OPTIONS } from '../../nodes/OmnichannelTrigger/options';

const numbers = TRIGGER_OPTIONS.map((option) => option.description).filter((description) => description.type === 'number');

test('there are number options to check', () => {
	expect(numbers.map((description) => description.displayName).sort()).toEqual(['Answer a Burst Once', 'Hand-Over Limit (Hours)', 'Step Aside for a Person']);
});

test.each(numbers.map((description) => [description.displayName, description]))('%s says its unit in its label or hint', (_name, description) => {
	expect(`${description.displayName} | ${String(description.hint ?? '')}`).toMatch(/\b(seconds|minutes|hours)\b/i);
});
