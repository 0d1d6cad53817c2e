/**
 * The hand-over's markers, as both nodes read them (shared/handOverToPerson):
 * which sends are markers, the episode every attempt at one hand-over shares,
 * and where a hand-over stands for a customer's message (the trigger's Step
 * Aside), on lists written by hand. The chat memory's turn for the note.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	episodeOf,
	expiredByOwnLimit,
	handOverAnchor,
	handOverKey,
	handOverMarkerOf,
	handOverVerdict,
	handOverWaitingHint,
	limitSecondsOf,
} from '../../nodes/shared/handOverToPerson';
import type { ConversationMessage } from '../../nodes/shared/conversation';
import { messageAuthor } from '../../nodes/shared/messageAuthors';
import { HAND_OVER_NOTE_MARK, turnOf } from '../../nodes/OmnichannelChatMemory/turns';
import { handOverLimitHoursOf } from '../../nodes/OmnichannelTrigger/options/handOverLimit';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, 0) + minute * 60_000).toISOString();
const EPISODE = 'a1b2c3d4e5f60718';
const customer = (id: string, minute: number): ConversationMessage => ({ id, from_customer: true, from_user_id: null, created_at: at(minute), content: id });
const person = (id: string, minute: number): ConversationMessage => ({ id, from_customer: false, from_user_id: 'usr_1', client_request_id: 'inbox', created_at: at(minute) });
const bot = (id: string, minute: number): ConversationMessage => ({ id, from_customer: false, from_user_id: 'usr_1', client_request_id: `n8n_${id}`, created_at: at(minute) });
const marker = (id: string, minute: number, part: 'message' | 'note' = 'message', episode = EPISODE, limitSeconds?: number): ConversationMessage => ({
	id,
	from_customer: false,
	from_user_id: part === 'note' ? null : 'usr_1',
	client_request_id: handOverKey(part, episode, limitSeconds),
	created_at: at(minute),
	content: part === 'note' ? 'Handed over to a person by the bot. Reason: angry' : 'A colleague will answer you here shortly.',
});
/** Newest first, as the reader returns them. */
const newestFirst = (...messages: ConversationMessage[]) => [...messages].reverse();

describe('markers', () => {
	test('a hand-over send is this package’s, and its key reads back', () => {
		const key = handOverKey('note', EPISODE, 3600);
		expect(key).toBe(`n8nhandover1_n_${EPISODE}_3600`);
		expect(handOverMarkerOf({ client_request_id: key })).toEqual({ part: 'note', episode: EPISODE, limitSeconds: 3600 });
		expect(handOverMarkerOf({ client_request_id: handOverKey('message', EPISODE) })).toEqual({ part: 'message', episode: EPISODE });
		expect(messageAuthor(marker('m', 1))).toBe('package');
	});

	test.each([
		['another send of this package', 'n8n_reply-1'],
		['a person’s key', 'handover-1'],
		['a broken marker', `n8nhandover1_x_${EPISODE}`],
		['a short episode', 'n8nhandover1_m_abc'],
		['a limit of 0', `n8nhandover1_m_${EPISODE}_0`],
	])('%s is no marker', (_, key) => {
		expect(handOverMarkerOf({ client_request_id: key })).toBeUndefined();
	});

	test('a customer message is never a marker, whatever its key', () => {
		expect(handOverMarkerOf({ from_customer: true, client_request_id: handOverKey('message', EPISODE) })).toBeUndefined();
	});

	test('limits ride in whole seconds', () => {
		expect(limitSecondsOf(24)).toBe(86_400);
		expect(limitSecondsOf(0.0001)).toBe(1);
	});
});

describe('the episode every attempt at one hand-over shares', () => {
	test('the anchor is the newest message of a person or of the bot, never the hand-over’s own sends or the customer’s', () => {
		const before = newestFirst(customer('c1', 1), bot('b1', 2), customer('c2', 3));
		expect(handOverAnchor(before)).toBe('b1');
		// A Retry reads the conversation again: it holds the hand-over's own sends and more customer messages.
		const after = newestFirst(customer('c1', 1), bot('b1', 2), customer('c2', 3), marker('m', 4), marker('n', 4, 'note'), customer('c3', 5));
		expect(handOverAnchor(after)).toBe('b1');
		expect(episodeOf('conv_1', handOverAnchor(after))).toBe(episodeOf('conv_1', 'b1'));
		expect(episodeOf('conv_2', 'b1')).not.toBe(episodeOf('conv_1', 'b1'));
	});

	test('a person, or the bot answering again, or a hand-over that is over, starts a new episode', () => {
		expect(handOverAnchor(newestFirst(bot('b1', 1), marker('m', 2), person('p', 3)))).toBe('p');
		expect(handOverAnchor(newestFirst(bot('b1', 1), marker('m', 2), bot('b2', 30)))).toBe('b2');
		expect(handOverAnchor(newestFirst(bot('b1', 1), marker('m', 2), customer('c', 30)), new Set([EPISODE]))).toBe('m');
	});

	test('a conversation where the bot never wrote: no anchor', () => {
		expect(handOverAnchor(newestFirst(customer('c1', 1)))).toBeUndefined();
	});

	test('a hand-over’s own limit ends it by the newest message’s time', () => {
		expect(expiredByOwnLimit(newestFirst(marker('m', 0, 'message', EPISODE, 60), customer('c', 0.5)))).toEqual(new Set());
		expect(expiredByOwnLimit(newestFirst(marker('m', 0, 'message', EPISODE, 60), customer('c', 1)))).toEqual(new Set([EPISODE]));
		expect(expiredByOwnLimit(newestFirst(marker('m', 0), customer('c', 10_000)))).toEqual(new Set());
	});
});

describe('where a hand-over stands for a customer message (Step Aside)', () => {
	const handedOver = [bot('b1', 0), marker('m', 1), marker('n', 1, 'note')];

	test('no hand-over', () => {
		expect(handOverVerdict(customer('c', 5), newestFirst(bot('b1', 0), customer('c', 5)), 24)).toEqual({ kind: 'none' });
	});

	test('no person yet, within the limit: waiting, since the first send, until the limit', () => {
		const message = customer('c', 10);
		const verdict = handOverVerdict(message, newestFirst(...handedOver, customer('c', 10)), 1);
		expect(verdict).toMatchObject({ kind: 'waiting', since: at(1), limitHours: 1, untilMs: Date.parse(at(61)) });
		if (verdict.kind === 'none') throw new Error('unexpected');
		expect(handOverWaitingHint(message, verdict, 15)).toBe(
			`Message c: the conversation was handed over to a person at ${at(1)} and no person of the workspace has written since, so the workflow stays quiet until a person has answered and 15 minutes have passed after their last message, or until ${at(61)} if no person answers (Hand-Over Limit, 1 hours). This execution ran nothing downstream.`,
		);
	});

	test('the bot’s own answer after the hand-over (a workflow that sends it anyway) does not end it', () => {
		expect(handOverVerdict(customer('c', 10), newestFirst(...handedOver, bot('b2', 2), customer('c', 10)), 1).kind).toBe('waiting');
	});

	test('a person wrote after the hand-over: answered (Step Aside’s period decides)', () => {
		const verdict = handOverVerdict(customer('c', 10), newestFirst(...handedOver, person('p', 5), customer('c', 10)), 1);
		expect(verdict).toMatchObject({ kind: 'answered', person: { id: 'p' } });
	});

	test('a person before the hand-over does not count', () => {
		expect(handOverVerdict(customer('c', 10), newestFirst(person('p', 0), ...handedOver, customer('c', 10)), 1).kind).toBe('waiting');
	});

	test('no person within the limit: expired, until the bot has answered after it', () => {
		expect(handOverVerdict(customer('c', 61), newestFirst(...handedOver, customer('c', 61)), 1)).toMatchObject({ kind: 'expired', since: at(1), limitHours: 1 });
		expect(handOverVerdict(customer('c2', 70), newestFirst(...handedOver, customer('c', 61), bot('b2', 62), customer('c2', 70)), 1)).toEqual({ kind: 'none' });
	});

	test('the hand-over’s own limit wins over the trigger’s', () => {
		const own = [bot('b1', 0), marker('m', 1, 'message', EPISODE, 120), marker('n', 1, 'note', EPISODE, 120)];
		expect(handOverVerdict(customer('c', 4), newestFirst(...own, customer('c', 4)), 24)).toMatchObject({ kind: 'expired', limitHours: 120 / 3600 });
	});

	test('the newest hand-over counts', () => {
		const other = 'ffffffffffffffff';
		const list = newestFirst(...handedOver, person('p', 5), bot('b2', 30), marker('m2', 40, 'message', other), customer('c', 41));
		expect(handOverVerdict(customer('c', 41), list, 1)).toMatchObject({ kind: 'waiting', episode: other, since: at(40) });
	});

	test.each([0, -1, 'ten', null, Number.NaN, 169])('a Hand-Over Limit of %p is refused, naming the option', (value) => {
		expect(() => handOverLimitHoursOf({ name: 'Trigger' } as never, { handOverLimitHours: value })).toThrow(/'Hand-Over Limit \(Hours\)' needs a positive number of hours/);
	});

	test('the limit is 24 hours unless set', () => {
		expect(handOverLimitHoursOf({ name: 'Trigger' } as never, {})).toBe(24);
		expect(handOverLimitHoursOf({ name: 'Trigger' } as never, { handOverLimitHours: 0.5 })).toBe(0.5);
	});
});

describe('the chat memory', () => {
	test('shows the hand-over note marked as the team’s System note, the message as the bot’s', () => {
		expect(turnOf(marker('n', 1, 'note') as IDataObject, false)).toEqual({ role: 'assistant', text: `${HAND_OVER_NOTE_MARK}Handed over to a person by the bot. Reason: angry` });
		expect(turnOf(marker('m', 1) as IDataObject, false)).toEqual({ role: 'assistant', text: 'A colleague will answer you here shortly.' });
	});
});
