/**
 * What the report keeps for its figures per person, the bot's own share and
 * the rows per conversation (docs/operations.md, "Reports"): the aggregator
 * calls these hooks as it reads the period's messages newest first, so, as
 * there, a conversation's state says what comes after the message at hand.
 * A fixed amount per conversation (typed arrays, indexed as the aggregator's
 * Conversations) and per person; never the messages.
 */
import type { IDataObject } from 'n8n-workflow';

import { messageAuthor } from '../../shared/messageAuthors';
import type { MessageKind } from './aggregate';
import { ratingScore } from './ratings';
import { grown, SampleKind } from './state';

/** Flags per conversation. */
export const ANSWERED = 1;
export const BOT_ANSWERED = 2;
export const PERSON_WROTE = 4;
export const HAND_OVER = 8;
export const WAITING_AT_END = 16;

export type HandOverOutcome = 'answered' | 'expired' | 'open';
const OUTCOMES: HandOverOutcome[] = ['answered', 'expired', 'open'];

/** A person's figures while reading. */
export interface PersonState {
	replies: number;
	failedReplies: number;
	/** The times of the waits this person answered (ms, the report's clock; calendar…: the calendar's). */
	responses: number[];
	calendarResponses: number[];
	handOversTaken: number;
	/** The times to this person of the hand-overs taken (ms, the report's clock; calendar…: the calendar's). */
	toPerson: number[];
	calendarToPerson: number[];
}

const userOf = (message: IDataObject): string => String(message.from_user_id ?? '');

export class TeamState {
	/** Conversations indexed as the aggregator's; grows with them. */
	private size = 0;

	flags = new Uint8Array(0);

	firstActivity = new Float64Array(0);

	lastActivity = new Float64Array(0);

	/** The earliest customer message of the period (NaN: none). */
	firstCustomer = new Float64Array(0);

	customerMessages = new Int32Array(0);

	botMessages = new Int32Array(0);

	personMessages = new Int32Array(0);

	failedMessages = new Int32Array(0);

	ratings = new Int32Array(0);

	/** The score of the latest rating with one (NaN: none). */
	latestScore = new Float64Array(0);

	waits = new Int32Array(0);

	waitsAnswered = new Int32Array(0);

	/** The earliest answered wait: its start, its reply and by whom (SampleKind). */
	firstAnsweredStart = new Float64Array(0);

	firstAnsweredReply = new Float64Array(0);

	/** The earliest answered wait's time by the report's clock (ms). */
	firstAnsweredMs = new Float64Array(0);

	firstAnsweredKind = new Uint8Array(0);

	firstAnsweredPerson: string[] = [];

	/** The wait still open at the period's end: its start (NaN: none). */
	waitingSince = new Float64Array(0);

	handOvers = new Int32Array(0);

	/** The conversation's earliest hand-over of the period and its outcome (an index of OUTCOMES + 1). */
	firstHandOver = new Float64Array(0);

	firstHandOverOutcome = new Uint8Array(0);

	private firstHandOverEpisode: string[] = [];

	/** The person of the nearest later reply ('' for the bot), and of the nearest later person message. */
	private laterReplyPerson: string[] = [];

	private laterPerson: string[] = [];

	/** Replies per person, only for conversations a person wrote in. */
	readonly repliesByPerson = new Map<number, Map<string, number>>();

	readonly people = new Map<string, PersonState>();

	/** The person who wrote first after each hand-over's earliest send (by episode). */
	private readonly handOverPerson = new Map<string, string>();

	/** What is collected beyond the bot's share (flags, first answered wait): per person, per conversation. */
	private readonly byPerson: boolean;

	private readonly byConversation: boolean;

	/** Who wrote a reply: for the person figures and the conversation items. */
	private readonly authors: boolean;

	constructor(
		private readonly targetMs: number,
		collect: { people: boolean; conversations: boolean },
	) {
		this.byPerson = collect.people;
		this.byConversation = collect.conversations;
		this.authors = collect.people || collect.conversations;
	}

	private ensure(conversation: number): void {
		if (conversation < this.size) return;
		let size = Math.max(256, this.size);
		while (size <= conversation) size *= 2;
		this.flags = grown(this.flags, size);
		this.firstAnsweredStart = grown(this.firstAnsweredStart, size, NaN);
		// The rest only Group By Conversation reads: a report without it keeps two arrays per conversation, not twenty.
		if (this.byConversation) {
			this.firstActivity = grown(this.firstActivity, size, NaN);
			this.lastActivity = grown(this.lastActivity, size, NaN);
			this.firstCustomer = grown(this.firstCustomer, size, NaN);
			this.customerMessages = grown(this.customerMessages, size);
			this.botMessages = grown(this.botMessages, size);
			this.personMessages = grown(this.personMessages, size);
			this.failedMessages = grown(this.failedMessages, size);
			this.ratings = grown(this.ratings, size);
			this.latestScore = grown(this.latestScore, size, NaN);
			this.waits = grown(this.waits, size);
			this.waitsAnswered = grown(this.waitsAnswered, size);
			this.firstAnsweredReply = grown(this.firstAnsweredReply, size, NaN);
			this.firstAnsweredMs = grown(this.firstAnsweredMs, size, NaN);
			this.firstAnsweredKind = grown(this.firstAnsweredKind, size);
			this.waitingSince = grown(this.waitingSince, size, NaN);
			this.handOvers = grown(this.handOvers, size);
			this.firstHandOver = grown(this.firstHandOver, size, NaN);
			this.firstHandOverOutcome = grown(this.firstHandOverOutcome, size);
		}
		this.size = size;
	}

	private person(id: string): PersonState {
		let person = this.people.get(id);
		if (!person) {
			person = { replies: 0, failedReplies: 0, responses: [], calendarResponses: [], handOversTaken: 0, toPerson: [], calendarToPerson: [] };
			this.people.set(id, person);
		}
		return person;
	}

	/** A message of the period, after the aggregator has counted it (so a reply it closes a wait with is still the later one). */
	message(conversation: number, kind: MessageKind, time: number, message: IDataObject): void {
		this.ensure(conversation);
		if (this.byConversation) this.conversationMessage(conversation, kind, time, message);
		switch (kind) {
			case 'bot':
				if (this.authors) this.laterReplyPerson[conversation] = '';
				break;
			case 'person': {
				this.flags[conversation] |= PERSON_WROTE;
				if (!this.authors) break;
				const id = userOf(message);
				this.laterReplyPerson[conversation] = id;
				if (this.byPerson) {
					this.laterPerson[conversation] = id;
					this.person(id).replies++;
				}
				if (this.byConversation) {
					let replies = this.repliesByPerson.get(conversation);
					if (!replies) this.repliesByPerson.set(conversation, (replies = new Map()));
					replies.set(id, (replies.get(id) ?? 0) + 1);
				}
				break;
			}
			case 'failed':
				// A person who tried to write took part, even if the send failed.
				if (messageAuthor(message) === 'person') {
					this.flags[conversation] |= PERSON_WROTE;
					if (this.byPerson) this.person(userOf(message)).failedReplies++;
				}
				break;
			default:
				break;
		}
	}

	/** What only the conversation items show: activity, counts, ratings. */
	private conversationMessage(conversation: number, kind: MessageKind, time: number, message: IDataObject): void {
		if (kind !== 'note') {
			if (Number.isNaN(this.lastActivity[conversation])) this.lastActivity[conversation] = time;
			this.firstActivity[conversation] = time;
		}
		switch (kind) {
			case 'customer':
				this.customerMessages[conversation]++;
				this.firstCustomer[conversation] = time;
				break;
			case 'bot':
				this.botMessages[conversation]++;
				break;
			case 'person':
				this.personMessages[conversation]++;
				break;
			case 'failed':
				this.failedMessages[conversation]++;
				break;
			case 'rating': {
				this.ratings[conversation]++;
				if (!Number.isNaN(this.latestScore[conversation])) break;
				const score = ratingScore(message.content);
				if (score !== undefined) this.latestScore[conversation] = score;
				break;
			}
			default:
				break;
		}
	}

	/** A wait of the conversation answered by its nearest later reply, `responseMs` long by the report's clock; waits close newest first, so the last call is the earliest. */
	waitAnswered(conversation: number, startMs: number, replyMs: number, kind: SampleKind, responseMs: number): void {
		this.ensure(conversation);
		this.flags[conversation] |= ANSWERED | (kind === SampleKind.BotResponse ? BOT_ANSWERED : 0);
		this.firstAnsweredStart[conversation] = startMs;
		if (!this.authors) return;
		const person = kind === SampleKind.PersonResponse ? (this.laterReplyPerson[conversation] ?? '') : '';
		if (this.byPerson && kind === SampleKind.PersonResponse) {
			const state = this.person(person);
			state.responses.push(responseMs);
			state.calendarResponses.push(replyMs - startMs);
		}
		if (!this.byConversation) return;
		this.waits[conversation]++;
		this.waitsAnswered[conversation]++;
		this.firstAnsweredReply[conversation] = replyMs;
		this.firstAnsweredMs[conversation] = responseMs;
		this.firstAnsweredKind[conversation] = kind;
		this.firstAnsweredPerson[conversation] = person;
	}

	/** The conversation's wait still open at the period's end. */
	waitOpen(conversation: number, startMs: number): void {
		this.ensure(conversation);
		this.flags[conversation] |= WAITING_AT_END;
		if (!this.byConversation) return;
		this.waits[conversation]++;
		this.waitingSince[conversation] = startMs;
	}

	/** A marked send of a hand-over; each earlier send of the episode replaces the one seen so far, as in the aggregator. */
	handOverSend(episode: string, conversation: number): void {
		this.ensure(conversation);
		this.flags[conversation] |= HAND_OVER;
		if (this.byPerson) this.handOverPerson.set(episode, this.laterPerson[conversation] ?? '');
	}

	/** Where a hand-over stands at the period's end, as the aggregator decided it; answered: after `toPersonMs` by the report's clock, `calendarToPersonMs` by the calendar's. */
	handOver(episode: string, conversation: number, firstMs: number, outcome: HandOverOutcome, toPersonMs: number, calendarToPersonMs = toPersonMs): void {
		this.ensure(conversation);
		if (this.byConversation) {
			this.handOvers[conversation]++;
			const known = this.firstHandOver[conversation];
			// The earliest; at the same millisecond, the smallest episode.
			if (!(known < firstMs) && !(known === firstMs && this.firstHandOverEpisode[conversation] < episode)) {
				this.firstHandOver[conversation] = firstMs;
				this.firstHandOverEpisode[conversation] = episode;
				this.firstHandOverOutcome[conversation] = OUTCOMES.indexOf(outcome) + 1;
			}
		}
		if (this.byPerson && outcome === 'answered') {
			const person = this.person(this.handOverPerson.get(episode) ?? '');
			person.handOversTaken++;
			person.toPerson.push(toPersonMs);
			person.calendarToPerson.push(calendarToPersonMs);
		}
	}

	withinTarget(ms: number): boolean {
		return ms <= this.targetMs;
	}

	outcomeOf(conversation: number): HandOverOutcome | null {
		const index = this.firstHandOverOutcome[conversation];
		return index === 0 ? null : OUTCOMES[index - 1];
	}

	/** The person with the most replies in the conversation (ties: the smallest id), or undefined. */
	topPerson(conversation: number): { id: string; replies: number } | undefined {
		const replies = this.repliesByPerson.get(conversation);
		if (!replies) return undefined;
		let top: { id: string; replies: number } | undefined;
		for (const [id, count] of replies) {
			if (!top || count > top.replies || (count === top.replies && id < top.id)) top = { id, replies: count };
		}
		return top;
	}

	/** The conversation did it alone: answered, by the bot, with no person and no hand-over. */
	botOnly(conversation: number): boolean {
		return (this.flags[conversation] & (ANSWERED | PERSON_WROTE | HAND_OVER)) === ANSWERED;
	}
}
