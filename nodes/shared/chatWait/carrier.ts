import { createCipheriv, createDecipheriv, createHash, createHmac } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { CARRIER_PREFIX } from '../sendKeys';
import { credentialDerivedKey, deriveKey } from '../transport';
import type { OmnichannelContext } from '../transport';

/** The question's client_request_id carries its wait (the carrier), sealed with the credential's key; the service keeps up to this many characters (docs/api-assumptions.md, "Messages"). */
export const MAX_CLIENT_REQUEST_ID = 256;

export type ReplyParty = 'customer' | 'agent' | 'either';
/** Every party a wait can listen to; the carrier stores the index, so new ones go last. */
export const REPLY_PARTIES: readonly ReplyParty[] = ['customer', 'agent', 'either'];

/** What the trigger needs to route a reply; the waiting node keeps the rest. */
export interface ChatWait {
	/** The resume URL's path (`/webhook-waiting/<execution>/<node>`); the trigger adds its own origin. */
	path: string;
	/** 24 hex characters: ties the relay to this wait (the `w` query parameter). */
	waitId: string;
	/** n8n's HMAC of the resume URL (64 hex characters). */
	signature: string;
	party: ReplyParty;
	/** Hashes of the normalised approve and decline words (wordHash); absent for a free reply. */
	approve?: string;
	decline?: string;
	/** When the wait ends without an answer (ms since the epoch); absent without a limit. */
	expiresAt?: number;
	/** workflowTag of the waiting workflow: only its own trigger relays replies to it. */
	workflow: string;
}

/** A short tag of a workflow id, kept in the carrier. */
export function workflowTag(workflowId: string | undefined): string {
	return createHash('sha256').update(workflowId ?? '').digest('hex').slice(0, 8);
}

const VIA_CHAT = 'chat';

/** The query of the resume URL the trigger calls: `via` tells the waiting node's webhook it is a relay. */
export function chatResumeParameters(waitId: string): Record<string, string> {
	return { w: waitId, via: VIA_CHAT };
}

/** Whether a call of the resume URL is a relay, from its query (as chatResumeParameters built it). */
export function isRelayCall(query: IDataObject): boolean {
	const via = Array.isArray(query.via) ? (query.via as unknown[])[0] : query.via;
	return via === VIA_CHAT;
}

/** The resume URL, rebuilt as n8n signed it (parameters in the same order). */
export function chatResumeUrl(origin: string, wait: ChatWait): string {
	const query = new URLSearchParams({ ...chatResumeParameters(wait.waitId), signature: wait.signature });
	return `${origin}${wait.path}?${query.toString()}`;
}

const KEY_PURPOSE = 'omnichannel chat wait v1';

/** The key that seals and signs chat waits, which both nodes derive from the API key of their Omnichannel credential. */
export function chatWaitKey(apiKey: string): Buffer {
	return deriveKey(apiKey, KEY_PURPOSE);
}

/** chatWaitKey of the node's Omnichannel credential. */
export async function credentialChatWaitKey(context: OmnichannelContext): Promise<Buffer> {
	return await credentialDerivedKey(context, KEY_PURPOSE);
}

/** Bytes of a word's hash in the carrier (replies.ts makes it). */
export const WORD_HASH_BYTES = 6;
const HEX = /^[0-9a-f]*$/;

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

/** The carrier of a wait; deterministic, so a send retried with the same wait keeps its idempotency key. */
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
