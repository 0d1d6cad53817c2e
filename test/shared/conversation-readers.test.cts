/**
 * The package's one classifier of who wrote a message and its one reader of
 * a conversation, which reply routing, bursts, stepping aside and the chat
 * memory all decide from.
 */
import type { IDataObject } from 'n8n-workflow';

import { isFromParty } from '../../nodes/shared/chatWait';
import { messageAuthor, messageDirection } from '../../nodes/shared/messageAuthors';
import { CARRIER_PREFIX, REPROMPT_PREFIX, SEND_KEY_PREFIX } from '../../nodes/shared/sendKeys';
import { personAnswering, stepAsideMinutesOf } from '../../nodes/OmnichannelTrigger/options/stepAside';
import type { ConversationMessage } from '../../nodes/shared/conversation';

const message = (fields: IDataObject): ConversationMessage => ({ id: 'msg_1', ...fields });

describe('who wrote a message', () => {
	const cases: Array<[string, IDataObject, string, string]> = [
		['a customer', { from_customer: true, from_user_id: null }, 'customer', 'customer'],
		['a person in the inbox', { from_customer: false, from_user_id: 'usr_1' }, 'person', 'agent'],
		['a person through the API with their own key', { from_user_id: 'usr_1', client_request_id: 'crm-42' }, 'person', 'agent'],
		['System', { from_customer: false, from_user_id: null }, 'system', 'system'],
		['this package, attributed to the key creator', { from_user_id: 'usr_1', client_request_id: `${SEND_KEY_PREFIX}abc` }, 'package', 'agent'],
		['this package, as System', { from_user_id: null, client_request_id: `${SEND_KEY_PREFIX}abc` }, 'package', 'system'],
		['a Send and Wait question', { from_user_id: 'usr_1', client_request_id: `${CARRIER_PREFIX}abc` }, 'package', 'agent'],
		['a re-prompt', { from_user_id: 'usr_1', client_request_id: `${REPROMPT_PREFIX}abc` }, 'package', 'agent'],
	];
	test.each(cases)('%s', (_, fields, author, direction) => {
		expect(messageAuthor(message(fields))).toBe(author);
		expect(messageDirection(message(fields))).toBe(direction);
	});

	test('a wait listening to agents hears people, never this package or System', () => {
		expect(isFromParty(message({ from_user_id: 'usr_1' }), 'agent')).toBe(true);
		expect(isFromParty(message({ from_user_id: 'usr_1', client_request_id: `${SEND_KEY_PREFIX}x` }), 'agent')).toBe(false);
		expect(isFromParty(message({ from_user_id: null }), 'either')).toBe(false);
		expect(isFromParty(message({ from_customer: true }), 'either')).toBe(true);
	});
});

describe('stepping aside', () => {
	const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();
	const customer = message({ id: 'c', from_customer: true, created_at: at(30) });
	const person = (minute: number) => message({ id: `p${minute}`, from_user_id: 'usr_1', created_at: at(minute) });

	test('a person within the period, or after the customer, takes the conversation', () => {
		expect(personAnswering(customer, [customer, person(20)], 15)?.id).toBe('p20');
		expect(personAnswering(customer, [person(31), customer], 15)?.id).toBe('p31');
	});

	test('a person longer ago, System and the bot itself do not', () => {
		const bot = message({ id: 'b', from_user_id: 'usr_1', client_request_id: `${SEND_KEY_PREFIX}x`, created_at: at(29) });
		const system = message({ id: 's', from_user_id: null, created_at: at(29) });
		expect(personAnswering(customer, [customer, bot, system, person(10)], 15)).toBeUndefined();
	});

	test.each([0, -1, 'ten', null, Number.NaN, 10_081])('a period of %p is refused, naming the option', (value) => {
		expect(() => stepAsideMinutesOf({ name: 'Trigger' } as never, { stepAsideMinutes: value })).toThrow(/'Step Aside for a Person' needs a positive number of minutes/);
	});

	test('off unless set; fractions of a minute are fine', () => {
		expect(stepAsideMinutesOf({ name: 'Trigger' } as never, {})).toBeUndefined();
		expect(stepAsideMinutesOf({ name: 'Trigger' } as never, { stepAsideMinutes: 0.1 })).toBe(0.1);
	});
});
