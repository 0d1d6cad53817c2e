/** A hand-over to a person is a fact of the conversation: its sends carry marker keys, `n8nhandover1_<part>_<episode>[_<limit seconds>]` (docs/api-assumptions.md, "Messages"). */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { newerFirst, timeOf } from '../conversation';
import type { ConversationMessage } from '../conversation';
import { messageAuthor } from '../messageAuthors';
import { HAND_OVER_PREFIX } from '../sendKeys';

export type HandOverPart = 'message' | 'note';

export interface HandOverMarker {
	part: HandOverPart;
	/** 16 hex characters: every send of one hand-over shares it. */
	episode: string;
	/** The hand-over's own limit, when the operation set one; otherwise the trigger's option applies. */
	limitSeconds?: number;
}

/** The longest limit: a week, as Step Aside's longest period (longer hand-overs are a conversation's status). */
export const MAX_HAND_OVER_HOURS = 7 * 24;
/** The limit when neither the hand-over nor the trigger sets one. */
export const DEFAULT_HAND_OVER_HOURS = 24;

const PART_CODES: Record<HandOverPart, string> = { message: 'm', note: 'n' };
const MARKER = new RegExp(`^${HAND_OVER_PREFIX}([mn])_([0-9a-f]{16})(?:_([1-9][0-9]{0,5}))?$`);

/** A limit in hours as the whole seconds a marker carries (at least 1). */
export const limitSecondsOf = (hours: number): number => Math.max(1, Math.round(hours * 3600));

export function handOverKey(part: HandOverPart, episode: string, limitSeconds?: number): string {
	return `${HAND_OVER_PREFIX}${PART_CODES[part]}_${episode}${limitSeconds === undefined ? '' : `_${limitSeconds}`}`;
}

/** The marker a message carries, or undefined for every other message. */
export function handOverMarkerOf(message: IDataObject): HandOverMarker | undefined {
	const key = message.client_request_id;
	if (typeof key !== 'string' || message.from_customer === true) return undefined;
	const match = MARKER.exec(key);
	if (!match) return undefined;
	const marker: HandOverMarker = { part: match[1] === 'm' ? 'message' : 'note', episode: match[2] };
	if (match[3] !== undefined) marker.limitSeconds = Number(match[3]);
	return marker;
}

/** A hand-over's episode: one per conversation and anchor (the newest message that ended a bot's turn before it). */
export function episodeOf(conversationId: string, anchorId: string | undefined): string {
	return createHash('sha256').update(JSON.stringify(['handover', conversationId, anchorId ?? ''])).digest('hex').slice(0, 16);
}

/** The anchor of a new hand-over, from the conversation's latest messages: the newest message that is a person's, a send of this package other than a hand-over (the bot answered), or a send of a hand-over that is over (`endedEpisodes`). */
export function handOverAnchor(latest: ConversationMessage[], endedEpisodes: ReadonlySet<string> = new Set()): string | undefined {
	for (const message of [...latest].sort(newerFirst)) {
		const marker = handOverMarkerOf(message);
		if (marker) {
			if (endedEpisodes.has(marker.episode)) return message.id;
			continue;
		}
		const author = messageAuthor(message);
		if (author === 'person' || author === 'package') return message.id;
	}
	return undefined;
}

/** Hand-overs whose own limit (set in the operation) has passed by the newest message of the list, on the service's clock: without the trigger's verdict (a workflow without Step Aside), these are the hand-overs known to be over. */
export function expiredByOwnLimit(latest: ConversationMessage[]): Set<string> {
	const newest = Math.max(...latest.map(timeOf).filter((time) => !Number.isNaN(time)));
	const first = new Map<string, { time: number; limitSeconds?: number }>();
	for (const message of latest) {
		const marker = handOverMarkerOf(message);
		if (!marker) continue;
		const time = timeOf(message);
		const known = first.get(marker.episode);
		if (!known || time < known.time) first.set(marker.episode, { time, limitSeconds: marker.limitSeconds ?? known?.limitSeconds });
	}
	const ended = new Set<string>();
	for (const [episode, { time, limitSeconds }] of first) {
		if (limitSeconds !== undefined && time + limitSeconds * 1000 <= newest) ended.add(episode);
	}
	return ended;
}
