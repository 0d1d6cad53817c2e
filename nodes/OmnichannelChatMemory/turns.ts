/** The conversation as the agent's turns; pure, so the rules are tested without n8n or the AI SDK. */
import type { IDataObject } from 'n8n-workflow';

import { newerFirst } from '../shared/conversation';
import type { ConversationMessage } from '../shared/conversation';
import { handOverMarkerOf } from '../shared/handOverToPerson';
import { messageAuthor } from '../shared/messageAuthors';

export type TurnRole = 'user' | 'assistant';

export interface Turn {
	role: TurnRole;
	text: string;
}

/** What a person of the workspace wrote is marked, so the model knows a human said it and not the bot. */
export const PERSON_MARK = '[Person of the workspace]: ';
/** System messages (only with Include System Messages) are the workspace's automatic notes. */
export const SYSTEM_MARK = '[System]: ';
/** The note of a hand-over, always in the history and marked; an assistant turn, as several chat models refuse a system message after the first. */
export const HAND_OVER_NOTE_MARK = '[System note for the team: handed over to a person]: ';

/** Types whose content is the text itself (docs/api-assumptions.md, "Messages"). */
const TEXT_TYPES = new Set(['text', 'email']);

const stringOf = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** A message's text for the model, never empty: a text as written, media as "[image] caption", a location as "[location] lat,lng", anything empty as "[<type>]". */
export function messageText(message: IDataObject): string {
	const type = stringOf(message.message_type) || 'text';
	const content = stringOf(message.content);
	if (TEXT_TYPES.has(type) && content !== '') return content;
	const place = type === 'location' ? [stringOf(message.name), stringOf(message.address)].filter((part) => part !== '') : [];
	const label = place.length > 0 ? `[${type}: ${place.join(', ')}]` : `[${type}]`;
	return content === '' ? label : `${label} ${content}`;
}

/** The turn a message is, or undefined for a System message when they are left out. */
export function turnOf(message: IDataObject, includeSystemMessages: boolean): Turn | undefined {
	const author = messageAuthor(message);
	const text = messageText(message);
	if (author === 'customer') return { role: 'user', text };
	if (author === 'package') return { role: 'assistant', text: handOverMarkerOf(message)?.part === 'note' ? `${HAND_OVER_NOTE_MARK}${text}` : text };
	if (author === 'person') return { role: 'assistant', text: `${PERSON_MARK}${text}` };
	return includeSystemMessages ? { role: 'assistant', text: `${SYSTEM_MARK}${text}` } : undefined;
}

export interface HistoryOptions {
	/** The messages being answered now (the event's message, or its burst): neither they nor anything newer is history. */
	current: ConversationMessage[];
	windowLength: number;
	includeSystemMessages: boolean;
}

/** The latest `windowLength` turns before the message being answered, oldest first; `latest` is newest first, as the reader returns it. */
export function historyTurns(latest: ConversationMessage[], options: HistoryOptions): Turn[] {
	const currentIds = new Set(options.current.map((message) => message.id));
	// The API's order decides "older", also for a current message the list does not hold yet.
	const oldestCurrent = [...options.current].sort(newerFirst).at(-1);
	const earlier = latest.filter(
		(message) => !currentIds.has(message.id) && (oldestCurrent === undefined || newerFirst(message, oldestCurrent) > 0),
	);
	const turns: Turn[] = [];
	for (const message of [...earlier].sort(newerFirst)) {
		if (turns.length >= options.windowLength) break;
		const turn = turnOf(message, options.includeSystemMessages);
		if (turn) turns.push(turn);
	}
	return turns.reverse();
}
