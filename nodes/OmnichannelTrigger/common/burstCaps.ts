/** Answer a Burst Once's caps (Max Wait, Max Messages, End Words): where a burst ends, decided the same way by the hold that receives the deliveries and by the step that reads the conversation (docs/development/trigger-internals.md, "Caps"). */
import type { IDataObject } from 'n8n-workflow';

import { timeOf } from '../../shared/conversation';

/** The options' names in the trigger's Options: the option files declare them, the hold and the step read them. */
export const CAP_OPTION_NAMES = {
	maxWait: 'burstMaxWaitSeconds',
	maxMessages: 'burstMaxMessages',
	endWords: 'burstEndWords',
} as const;

/** Why a burst continued, in the item's `burst.endedBy`; `reply`: an outbound message came after it, and the customer messages after that began the next burst. */
export type BurstEnd = 'quietPeriod' | 'maxWait' | 'maxMessages' | 'endWord' | 'reply';

export interface BurstCaps {
	quietMs: number;
	maxWaitMs?: number;
	maxMessages?: number;
	/** Lower-cased, trimmed, NFC. */
	endWords?: string[];
}

/** The caps among checked option values (an option that is off reads as undefined). */
export function capsIn(values: Readonly<Record<string, unknown>>, quietSeconds: number): BurstCaps {
	const maxWait = values[CAP_OPTION_NAMES.maxWait];
	const maxMessages = values[CAP_OPTION_NAMES.maxMessages];
	const endWords = values[CAP_OPTION_NAMES.endWords];
	return {
		quietMs: quietSeconds * 1000,
		maxWaitMs: typeof maxWait === 'number' ? maxWait * 1000 : undefined,
		maxMessages: typeof maxMessages === 'number' ? maxMessages : undefined,
		endWords: Array.isArray(endWords) && endWords.length > 0 ? (endWords as string[]) : undefined,
	};
}

export const hasCaps = (caps: BurstCaps): boolean =>
	caps.maxWaitMs !== undefined || caps.maxMessages !== undefined || caps.endWords !== undefined;

/** How an End Word is compared: trimmed, NFC, lower case (Unicode's, so every script with case folds). */
export const normaliseEndWord = (text: string): string => text.normalize('NFC').trim().toLowerCase();

const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u;
/** Scripts written without spaces between words: an End Word of theirs ends a message whatever comes before it. */
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const TRAILING_PUNCTUATION = /[\p{P}\s]+$/u;

function endsWithWord(text: string, word: string): boolean {
	if (!text.endsWith(word)) return false;
	const before = text.slice(0, text.length - word.length);
	if (before === '') return true;
	// "thanks" ends "ok thanks", not "nothanks"; a mark such as "?" ends any text.
	const lastBefore = [...before].pop() ?? '';
	const firstOfWord = [...word][0] ?? '';
	if (!WORD_CHARACTER.test(firstOfWord) || !WORD_CHARACTER.test(lastBefore)) return true;
	return UNSPACED_SCRIPT.test(firstOfWord);
}

/** Whether a message's text ends with one of the End Words: case and surrounding spaces ignored; punctuation after a word ("thanks!") too, unless the word is itself a mark. */
export function endsWithEndWord(message: IDataObject, endWords: string[] | undefined): boolean {
	if (!endWords || typeof message.content !== 'string') return false;
	const text = normaliseEndWord(message.content);
	const withoutMarks = text.replace(TRAILING_PUNCTUATION, '');
	return endWords.some((word) => endsWithWord(text, word) || endsWithWord(withoutMarks, word));
}

/** Whether `next` starts a new burst after `burst` (oldest first): the burst reached Max Messages, ended with an End Word, `next` came after Max Wait from its first message, or after a quiet period from its last. */
export function endBefore(burst: IDataObject[], next: IDataObject, caps: BurstCaps): BurstEnd | undefined {
	const first = burst[0];
	const last = burst[burst.length - 1];
	if (endsWithEndWord(last, caps.endWords)) return 'endWord';
	if (caps.maxMessages !== undefined && burst.length >= caps.maxMessages) return 'maxMessages';
	if (caps.maxWaitMs !== undefined && timeOf(next) - timeOf(first) > caps.maxWaitMs) return 'maxWait';
	if (timeOf(next) - timeOf(last) > caps.quietMs) return 'quietPeriod';
	return undefined;
}

/** A run of customer messages (oldest first) split into bursts by the caps: every execution that reads the same messages splits them the same way. */
export function splitBursts<T extends IDataObject>(run: T[], caps: BurstCaps): T[][] {
	const bursts: T[][] = [];
	let current: T[] = [];
	for (const message of run) {
		if (current.length > 0 && endBefore(current, message, caps) !== undefined) {
			bursts.push(current);
			current = [];
		}
		current.push(message);
	}
	if (current.length > 0) bursts.push(current);
	return bursts;
}

/** Why a burst of `count` messages whose last is `last` ends at once, if it does: an End Word, or Max Messages. */
export function endsAfter(count: number, last: IDataObject, caps: BurstCaps): BurstEnd | undefined {
	if (endsWithEndWord(last, caps.endWords)) return 'endWord';
	if (caps.maxMessages !== undefined && count >= caps.maxMessages) return 'maxMessages';
	return undefined;
}

/** Why a burst (oldest first) that nothing newer follows ends at once, if it does. */
export const endsAtOnce = (burst: IDataObject[], caps: BurstCaps): BurstEnd | undefined =>
	burst.length === 0 ? undefined : endsAfter(burst.length, burst[burst.length - 1], caps);
