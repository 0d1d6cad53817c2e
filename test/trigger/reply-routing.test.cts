/**
 * Which wait a chat message answers (the trigger's part of Send and Wait
 * answered in the chat) and the carrier the question takes it in: sealed,
 * deterministic, readable only with the same credential, within the
 * service's 256 characters. The real-n8n file
 * test/action-node/send-and-wait-chat.n8n.test.js runs the whole route.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	answerOf,
	chatResumeUrl,
	chatWaitKey,
	isFromParty,
	MAX_CLIENT_REQUEST_ID,
	normaliseAnswer,
	olderOpenWaits,
	openCarrier,
	outcomeOfRelay,
	repromptKey,
	sealCarrier,
	wordHash,
	workflowTag,
} from '../../nodes/shared/chatWait';
import type { ChatWait } from '../../nodes/shared/chatWait';
import { answeredWait } from '../../nodes/OmnichannelTrigger/chatReplies/replyRouting';

const key = chatWaitKey('svc_test_abcdefgh.0123456789abcdef0123');
const otherKey = chatWaitKey('svc_test_zyxwvuts.0123456789abcdef0123');
const WORKFLOW = workflowTag('wf1');

function wait(overrides: Partial<ChatWait> = {}): ChatWait {
	return {
		path: '/webhook-waiting/1234/0b5c8a6e-1f2d-4c3b-9a8e-7d6c5b4a3f21',
		waitId: 'a'.repeat(24),
		signature: 'b'.repeat(64),
		party: 'customer',
		workflow: WORKFLOW,
		...overrides,
	};
}

let clock = Date.parse('2026-11-24T10:00:00.000Z');
/** A message of the conversation; `at` in ms after the start, the same `at` for the same millisecond. */
function message(id: string, fields: IDataObject, at: number): IDataObject {
	return { id, conversation_id: 'conv_1', from_customer: false, from_user_id: null, client_request_id: '', content: '', created_at: new Date(clock + at).toISOString(), ...fields };
}
const question = (carrier: ChatWait, at = 0) => message('msg_q', { from_user_id: 'usr_1', client_request_id: sealCarrier(key, carrier), content: 'Order number?' }, at);
const customer = (id: string, content: string, at: number) => message(id, { from_customer: true, content }, at);
const agent = (id: string, content: string, at: number) => message(id, { from_user_id: 'usr_2', content }, at);
/** The API lists newest first. */
const newestFirst = (...messages: IDataObject[]) => [...messages].sort((a, b) => Date.parse(String(b.created_at)) - Date.parse(String(a.created_at)));
const event = (data: IDataObject) => ({ id: `evt_${String(data.id)}`, type: 'message.created', data });
const route = (data: IDataObject, messages: IDataObject[], now = clock + 1000, workflow = WORKFLOW) => answeredWait(key, workflow, event(data), messages, now);

describe('the carrier', () => {
	test('opens with the same key to what was sealed, is deterministic and fits the service’s limit', () => {
		const carrier = wait({ party: 'either', approve: wordHash('YES'), decline: wordHash('NO'), expiresAt: Date.parse('2027-01-01T00:00:00Z') });
		const sealed = sealCarrier(key, carrier);
		expect(sealed).toBe(sealCarrier(key, carrier));
		expect(sealed.length).toBeLessThanOrEqual(MAX_CLIENT_REQUEST_ID);
		expect(openCarrier(key, sealed)).toEqual(carrier);
		expect(sealed).not.toContain('webhook-waiting');
	});

	test('another credential, a changed character or another prefix opens nothing', () => {
		const sealed = sealCarrier(key, wait());
		expect(openCarrier(otherKey, sealed)).toBeUndefined();
		const flipped = sealed.slice(0, -3) + (sealed.at(-3) === 'A' ? 'B' : 'A') + sealed.slice(-2);
		expect(openCarrier(key, flipped)).toBeUndefined();
		expect(openCarrier(key, 'n8n_0123456789')).toBeUndefined();
		expect(openCarrier(key, undefined)).toBeUndefined();
	});

	test('the resume URL is rebuilt with n8n’s parameter order', () => {
		expect(chatResumeUrl('http://127.0.0.1:5678', wait())).toBe(
			`http://127.0.0.1:5678/webhook-waiting/1234/0b5c8a6e-1f2d-4c3b-9a8e-7d6c5b4a3f21?w=${'a'.repeat(24)}&via=chat&signature=${'b'.repeat(64)}`,
		);
	});
});

describe('words', () => {
	test.each([
		['YES', 'NO', ' yes ', 'approve'],
		['YES', 'NO', 'Yes!', 'approve'],
		['YES', 'NO', '¡YES.', 'approve'],
		['Sí', 'No', 'si', 'approve'],
		['YES', 'NO', 'no.', 'decline'],
		['YES', 'NO', 'yes please', undefined],
		['YES', 'NO', 'maybe', undefined],
	])('%s / %s against %j', (approve, decline, reply, expected) => {
		expect(answerOf({ approve: wordHash(approve), decline: wordHash(decline) }, reply)).toBe(expected);
	});

	test('normalising keeps letters and digits only, in one case, spaces collapsed', () => {
		expect(normaliseAnswer('  Olá,   Mundo! 42 ')).toBe('ola mundo 42');
	});
});

describe('whose messages are replies', () => {
	test('a customer, an agent, never this package’s own sends nor System', () => {
		const own = message('m', { from_user_id: 'usr_1', client_request_id: 'n8n_abc' }, 0);
		const reminder = message('m', { from_user_id: 'usr_1', client_request_id: repromptKey('w', 'x') }, 0);
		const system = message('m', { from_user_id: null }, 0);
		expect(isFromParty(customer('c', 'x', 0), 'customer')).toBe(true);
		expect(isFromParty(customer('c', 'x', 0), 'agent')).toBe(false);
		expect(isFromParty(agent('a', 'x', 0), 'agent')).toBe(true);
		expect(isFromParty(agent('a', 'x', 0), 'either')).toBe(true);
		for (const party of ['customer', 'agent', 'either'] as const) {
			for (const notAReply of [own, reminder, system]) expect(isFromParty(notAReply, party)).toBe(false);
		}
	});
});

describe('which wait a message answers', () => {
	beforeEach(() => {
		clock += 60_000;
	});

	test('the first reply after the question answers it; a later one is a new turn', () => {
		const q = question(wait());
		const first = customer('msg_1', 'A-1042', 10);
		const second = customer('msg_2', 'thanks', 20);
		const listed = newestFirst(q, first, second);
		expect(route(first, listed)).toEqual({ wait: wait(), relay: { questionId: 'msg_q', eventId: 'evt_msg_1', replies: [first] } });
		expect(route(second, listed)).toBeUndefined();
	});

	test('a reply in the same millisecond as its question, listed either side of it, answers it', () => {
		const q = question(wait(), 5);
		const reply = customer('msg_0', 'R-1', 5);
		for (const listed of [[q, reply], [reply, q]]) expect(route(reply, listed)?.relay.questionId).toBe('msg_q');
	});

	test('messages before the question, of another party, of another workflow or credential, or after the limit answer nothing', () => {
		const before = customer('msg_b', 'earlier', -10);
		const q = question(wait(), 0);
		expect(route(before, newestFirst(before, q))).toBeUndefined();
		const fromAgent = agent('msg_a', 'I will check', 10);
		expect(route(fromAgent, newestFirst(q, fromAgent))).toBeUndefined();
		const reply = customer('msg_1', 'A-1', 20);
		expect(route(reply, newestFirst(q, reply), clock + 1000, workflowTag('wf2'))).toBeUndefined();
		const foreign = message('msg_f', { from_user_id: 'usr_1', client_request_id: sealCarrier(otherKey, wait()) }, 0);
		expect(route(reply, newestFirst(foreign, reply))).toBeUndefined();
		// The carrier keeps the limit in whole seconds.
		const limited = question(wait({ expiresAt: clock + 15_000 }), 0);
		expect(route(reply, newestFirst(limited, reply), clock + 16_000)).toBeUndefined();
		expect(route(reply, newestFirst(limited, reply), clock + 14_000)).toBeDefined();
	});

	test('the newest question wins: an earlier wait of the conversation does not take the reply', () => {
		const older = { ...question(wait({ waitId: 'c'.repeat(24) }), 0), id: 'msg_old' };
		const newer = question(wait(), 10);
		const reply = customer('msg_1', 'A-1', 20);
		expect(route(reply, newestFirst(older, newer, reply))?.wait.waitId).toBe('a'.repeat(24));
	});

	test('an approval: replies that are neither word are relayed (for a reminder) until one is; later ones are a new turn', () => {
		const approval = wait({ approve: wordHash('YES'), decline: wordHash('NO') });
		const q = question(approval);
		const unclear = customer('msg_1', 'maybe', 10);
		const decisive = customer('msg_2', 'no.', 20);
		const later = customer('msg_3', 'YES', 30);
		const listed = newestFirst(q, unclear, decisive, later);
		expect(route(unclear, listed)?.relay.replies).toEqual([unclear]);
		expect(route(decisive, listed)?.relay.replies).toEqual([unclear, decisive]);
		expect(route(later, listed)).toBeUndefined();
	});

	test('a reply not yet among the messages read is placed by its own time', () => {
		const q = question(wait());
		expect(route(customer('msg_x', 'A-1', 10), [q])?.relay.replies).toHaveLength(1);
		expect(route(customer('msg_x', 'A-1', -10), [q])).toBeUndefined();
	});
});

describe('what the resume URL answered (outcomeOfRelay)', () => {
	test.each([
		[200, { answer: 'resumed', waitId: 'a' }, 'taken'],
		[200, { answer: 'kept', why: 'reminded' }, 'taken'],
		[200, { answer: 'kept', why: 'noRemindersLeft' }, 'taken'],
		[200, { answer: 'refused', why: 'notThisWait' }, 'waitEnded'],
		[200, { answer: 'refused', why: 'otherQuestion' }, 'waitEnded'],
		[200, { answer: 'refused', why: 'noReplies' }, 'waitEnded'],
		// JSON that is no answer of our node: nothing took the reply.
		[200, { resumed: true }, 'waitEnded'],
		// n8n's page for a finished execution, or one waiting at another node: maybe this reply's own earlier relay finished it.
		[200, '<html>No action required</html>', 'taken'],
		[409, { code: 409, message: 'The execution "12" is running already.' }, 'notWaitingYet'],
		// Stopped, failed or crashed.
		[409, { code: 409, message: 'The execution "12" has finished with error.' }, 'waitEnded'],
		// Our node's page for a wait it no longer has (the same node waits anew).
		[409, '<html>already answered</html>', 'waitEnded'],
		[404, { code: 404, message: 'The execution "12" does not exist.' }, 'waitEnded'],
		[410, '<html>expired</html>', 'waitEnded'],
		[401, '<html>invalid token</html>', 'waitEnded'],
		[500, '<html>failure</html>', 'unreachable'],
		[500, { code: 0, message: 'Execution is already being resumed by another process' }, 'unreachable'],
		[502, 'Bad Gateway', 'unreachable'],
	])('%i %j: %s', (status, body, outcome) => {
		expect(outcomeOfRelay(status, body)).toBe(outcome);
	});
});

describe('a newer question ends the older open waits of its workflow (olderOpenWaits)', () => {
	beforeEach(() => {
		clock += 60_000;
	});
	const ids = (found: { question: IDataObject }[]) => found.map(({ question: q }) => q.id);

	test('an older unanswered question of the workflow is open; one answered, expired, of another workflow or newer is not', () => {
		const older = { ...question(wait({ waitId: 'c'.repeat(24) }), 0), id: 'msg_old' };
		const newer = { ...question(wait(), 20), id: 'msg_new' };
		expect(ids(olderOpenWaits(key, WORKFLOW, newer, newestFirst(older, newer), clock + 1000))).toEqual(['msg_old']);
		expect(olderOpenWaits(key, WORKFLOW, older, newestFirst(older, newer), clock + 1000)).toEqual([]);
		const answered = newestFirst(older, customer('msg_r', 'A-1', 10), newer);
		expect(olderOpenWaits(key, WORKFLOW, newer, answered, clock + 1000)).toEqual([]);
		const expired = { ...question(wait({ waitId: 'd'.repeat(24), expiresAt: clock + 5_000 }), 0), id: 'msg_exp' };
		expect(olderOpenWaits(key, WORKFLOW, newer, newestFirst(expired, newer), clock + 10_000)).toEqual([]);
		const foreign = { ...question(wait({ workflow: workflowTag('wf2') }), 0), id: 'msg_other' };
		expect(olderOpenWaits(key, WORKFLOW, newer, newestFirst(foreign, newer), clock + 1000)).toEqual([]);
	});

	test('an approval stays open through replies that are neither word', () => {
		const older = { ...question(wait({ waitId: 'c'.repeat(24), approve: wordHash('YES'), decline: wordHash('NO') }), 0), id: 'msg_old' };
		const newer = { ...question(wait(), 20), id: 'msg_new' };
		expect(ids(olderOpenWaits(key, WORKFLOW, newer, newestFirst(older, customer('msg_r', 'maybe', 10), newer), clock + 1000))).toEqual(['msg_old']);
		expect(olderOpenWaits(key, WORKFLOW, newer, newestFirst(older, customer('msg_r', 'yes', 10), newer), clock + 1000)).toEqual([]);
	});

	test('two questions in the same millisecond: the id orders them, as the API lists them', () => {
		const a = { ...question(wait({ waitId: 'c'.repeat(24) }), 5), id: 'msg_a' };
		const b = { ...question(wait(), 5), id: 'msg_b' };
		expect(ids(olderOpenWaits(key, WORKFLOW, b, [b, a], clock + 1000))).toEqual(['msg_a']);
		expect(olderOpenWaits(key, WORKFLOW, a, [b, a], clock + 1000)).toEqual([]);
	});
});
