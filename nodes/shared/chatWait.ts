import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { messageAuthor } from './messageAuthors';
import { CARRIER_PREFIX, REPROMPT_PREFIX } from './sendKeys';

/**
 * A Send and Wait answered in the chat. The question's client_request_id
 * carries the wait ("the carrier"): where n8n resumes the waiting execution
 * and which replies count, sealed with a key derived from the API key, so
 * that only nodes holding the same Omnichannel credential can read it. The
 * Omnichannel Trigger that started the workflow sees every message of the
 * conversation, finds the newest carrier before a reply, and hands the reply
 * to the waiting execution. Nothing is registered at the service, so a wait
 * that ends (answered, timed out, stopped, deleted) leaves nothing behind.
 * The service keeps and returns client_request_id as sent, up to 256
 * characters (docs/api-assumptions.md, "Messages").
 */
export const MAX_CLIENT_REQUEST_ID = 256;

export type ReplyParty = 'customer' | 'agent' | 'either';
/** Every party a wait can listen to; the carrier stores the index, so new ones go last. */
export const REPLY_PARTIES: readonly ReplyParty[] = ['customer', 'agent', 'either'];

/** What the trigger needs to route a reply; the waiting node keeps the rest. */
export interface ChatWait {
	/** The resume URL's path (`/webhook-waiting/<execution>/<node>`); the trigger adds its own origin. */
	path: string;
	/** 24 hex characters: ties the hand-over to this wait (the `w` query parameter). */
	waitId: string;
	/** n8n's HMAC of the resume URL (64 hex characters). */
	signature: string;
	party: ReplyParty;
	/** Hashes of the normalised approve and decline words (wordHash); absent for a free reply. */
	approve?: string;
	decline?: string;
	/** When the wait ends without an answer (ms since the epoch); absent without a limit. */
	expiresAt?: number;
	/** workflowTag of the waiting workflow: only its own trigger hands replies over. */
	workflow: string;
}

/** A short tag of a workflow id, kept in the carrier. */
export function workflowTag(workflowId: string | undefined): string {
	return createHash('sha256').update(workflowId ?? '').digest('hex').slice(0, 8);
}

/** The query of the resume URL the trigger calls: `via` tells the waiting node's webhook it is a hand-over. */
export function chatResumeParameters(waitId: string): Record<string, string> {
	return { w: waitId, via: 'chat' };
}

/** The resume URL, rebuilt as n8n signed it (parameters in the same order). */
export function chatResumeUrl(origin: string, wait: ChatWait): string {
	const query = new URLSearchParams({ ...chatResumeParameters(wait.waitId), signature: wait.signature });
	return `${origin}${wait.path}?${query.toString()}`;
}

/** The key both nodes derive from the API key of their Omnichannel credential. */
export function chatWaitKey(apiKey: string): Buffer {
	return createHmac('sha256', apiKey).update('omnichannel chat wait v1').digest();
}

const WORD_HASH_BYTES = 6;
const HEX = /^[0-9a-f]*$/;

/**
 * A reply or a word as it is compared: accents, punctuation and symbols
 * removed, case folded, spaces collapsed ("  Sí! " and "SI" are the same).
 */
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

const FLAG_APPROVAL = 1;
const FLAG_DECLINE = 2;
const FLAG_EXPIRY = 4;
const PARTY_SHIFT = 4;

function pack(wait: ChatWait): Buffer {
	let flags = REPLY_PARTIES.indexOf(wait.party) << PARTY_SHIFT;
	const parts: Buffer[] = [Buffer.from(wait.waitId, 'hex'), Buffer.from(wait.signature, 'hex'), Buffer.from(wait.workflow, 'hex')];
	if (wait.expiresAt !== undefined) {
		flags |= FLAG_EXPIRY;
		const seconds = Buffer.alloc(4);
		seconds.writeUInt32BE(Math.ceil(wait.expiresAt / 1000));
		parts.push(seconds);
	}
	if (wait.approve) {
		flags |= FLAG_APPROVAL;
		parts.push(Buffer.from(wait.approve, 'hex'));
		if (wait.decline) {
			flags |= FLAG_DECLINE;
			parts.push(Buffer.from(wait.decline, 'hex'));
		}
	}
	parts.push(Buffer.from(wait.path, 'utf8'));
	return Buffer.concat([Buffer.from([1, flags]), ...parts]);
}

function unpack(bytes: Buffer): ChatWait | undefined {
	if (bytes.length < 2 + 12 + 32 + 4 || bytes[0] !== 1) return undefined;
	const flags = bytes[1];
	const party = REPLY_PARTIES[flags >> PARTY_SHIFT];
	if (!party) return undefined;
	let at = 2;
	const take = (length: number) => bytes.subarray(at, (at += length));
	const wait: ChatWait = {
		waitId: take(12).toString('hex'),
		signature: take(32).toString('hex'),
		workflow: take(4).toString('hex'),
		party,
		path: '',
	};
	if (flags & FLAG_EXPIRY) wait.expiresAt = take(4).readUInt32BE() * 1000;
	if (flags & FLAG_APPROVAL) {
		wait.approve = take(WORD_HASH_BYTES).toString('hex');
		if (flags & FLAG_DECLINE) wait.decline = take(WORD_HASH_BYTES).toString('hex');
	}
	wait.path = bytes.subarray(at).toString('utf8');
	return wait.path.startsWith('/') ? wait : undefined;
}

/**
 * The carrier of a wait. Deterministic (the nonce is derived from the
 * content), so a send retried with the same wait keeps its idempotency key.
 */
export function sealCarrier(key: Buffer, wait: ChatWait): string {
	if (wait.waitId.length !== 24 || wait.signature.length !== 64 || wait.workflow.length !== 8 || !HEX.test(wait.waitId + wait.signature + wait.workflow)) {
		throw new Error('unexpected wait id or resume signature');
	}
	const plain = pack(wait);
	const nonce = createHmac('sha256', key).update(plain).digest().subarray(0, 12);
	const cipher = createCipheriv('aes-256-gcm', key, nonce);
	const sealed = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
	return CARRIER_PREFIX + sealed.toString('base64url');
}

/** The wait a client_request_id carries, or undefined (not a carrier, or sealed with another key). */
export function openCarrier(key: Buffer, clientRequestId: unknown): ChatWait | undefined {
	if (typeof clientRequestId !== 'string' || !clientRequestId.startsWith(CARRIER_PREFIX)) return undefined;
	const sealed = Buffer.from(clientRequestId.slice(CARRIER_PREFIX.length), 'base64url');
	if (sealed.length < 12 + 16 + 2) return undefined;
	try {
		const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
		decipher.setAuthTag(sealed.subarray(sealed.length - 16));
		return unpack(Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]));
	} catch {
		return undefined;
	}
}

/** The key of the re-prompt for one reply of one wait. */
export function repromptKey(waitId: string, replyId: string): string {
	return REPROMPT_PREFIX + createHash('sha256').update(`${waitId}:${replyId}`).digest('hex').slice(0, 40);
}

/**
 * Whether a message is a reply from the party a wait listens to: a customer,
 * or a person of the workspace for 'agent' (messageAuthors.ts). System
 * messages and this package's own sends never count.
 */
export function isFromParty(message: IDataObject, party: ReplyParty): boolean {
	const author = messageAuthor(message);
	return party === 'customer' ? author === 'customer' : party === 'agent' ? author === 'person' : author === 'customer' || author === 'person';
}

/** Whether a reply settles the wait: a free reply is settled by the first, an approval by the first that is one of the words. */
export function settlesWait(wait: ChatWait, message: IDataObject): boolean {
	return isFromParty(message, wait.party) && (!wait.approve || answerOf(wait, message.content) !== undefined);
}

/** The signature of a hand-over body (hex HMAC), checked by the waiting node. */
export function signHandOver(key: Buffer, body: string): string {
	return createHmac('sha256', key).update(body).digest('hex');
}

export function handOverSignatureValid(key: Buffer, body: string, signature: unknown): boolean {
	if (typeof signature !== 'string' || signature.length !== 64) return false;
	return timingSafeEqual(Buffer.from(signHandOver(key, body)), Buffer.from(signature));
}

/** The header that carries it. */
export const HAND_OVER_SIGNATURE_HEADER = 'x-omnichannel-wait-signature';

/**
 * What the trigger hands to the waiting node: the replies since the
 * question, oldest first; or, with no replies, `supersededBy`: the id of a
 * newer question of the same workflow in the conversation, which from now on
 * takes every reply, so this wait ends (docs/send-and-wait.md).
 */
export interface HandOver extends IDataObject {
	questionId: string;
	eventId: string;
	replies: IDataObject[];
	supersededBy?: string;
}
