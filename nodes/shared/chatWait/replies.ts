import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { messageAuthor } from '../messageAuthors';
import { REPROMPT_PREFIX } from '../sendKeys';
import { WORD_HASH_BYTES } from './carrier';
import type { ChatWait, ReplyParty } from './carrier';

/** A reply or a word as it is compared: accents, punctuation and symbols removed, case folded, spaces collapsed (" Sí! " and "SI" are the same). */
export function normaliseAnswer(text: string): string {
	return text
		.normalize('NFD')
		.replace(/\p{M}/gu, '')
		.replace(/[\p{P}\p{S}]/gu, ' ')
		.toLowerCase()
		.replace(/\s+/g, ' ')
		.trim();
}

export function wordHash(word: string): string {
	return createHash('sha256').update(normaliseAnswer(word)).digest('hex').slice(0, WORD_HASH_BYTES * 2);
}

/** Which word a reply is: 'approve', 'decline', or undefined (neither). */
export function answerOf(wait: Pick<ChatWait, 'approve' | 'decline'>, text: unknown): 'approve' | 'decline' | undefined {
	if (typeof text !== 'string') return undefined;
	const hash = wordHash(text);
	if (hash === wait.approve) return 'approve';
	if (wait.decline && hash === wait.decline) return 'decline';
	return undefined;
}

/** The key of the re-prompt for one reply of one wait. */
export function repromptKey(waitId: string, replyId: string): string {
	return REPROMPT_PREFIX + createHash('sha256').update(`${waitId}:${replyId}`).digest('hex').slice(0, 40);
}

/** Whether a message is a reply from the party a wait listens to: a customer, or a person of the workspace for 'agent' (messageAuthors.ts). */
export function isFromParty(message: IDataObject, party: ReplyParty): boolean {
	const author = messageAuthor(message);
	return party === 'customer' ? author === 'customer' : party === 'agent' ? author === 'person' : author === 'customer' || author === 'person';
}

/** Whether a reply settles the wait: a free reply is settled by the first, an approval by the first that is one of the words. */
export function settlesWait(wait: ChatWait, message: IDataObject): boolean {
	return isFromParty(message, wait.party) && (!wait.approve || answerOf(wait, message.content) !== undefined);
}
