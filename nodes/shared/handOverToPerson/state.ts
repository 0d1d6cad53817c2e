/** Whether a conversation is handed over to a person, decided from the read the trigger already makes for Step Aside. */
import { newerFirst, timeOf } from '../conversation';
import type { ConversationMessage } from '../conversation';
import { messageAuthor } from '../messageAuthors';
import { keepInExecution, keptInExecution } from '../runSeed';
import type { TriggerHandOver } from '../triggerItem';
import type { HandOverMarker } from './marker';
import { handOverMarkerOf } from './marker';

export interface HandOverSince {
	/** The episode of the newest hand-over (marker.ts). */
	episode: string;
	/** Its first send, at the service's time. */
	since: string;
	sinceMs: number;
	/** Its own limit, or the trigger's. */
	limitHours: number;
	untilMs: number;
}

export type HandOverVerdict =
	| { kind: 'none' }
	/** No person has written since the hand-over, and its limit has not passed: the bot stays quiet. */
	| ({ kind: 'waiting' } & HandOverSince)
	/** A person wrote after the hand-over: Step Aside's period after their last message applies. */
	| ({ kind: 'answered'; person: ConversationMessage } & HandOverSince)
	/** No person wrote within the limit: the bot answers again, and its item says so until it has. */
	| ({ kind: 'expired' } & HandOverSince);

/** The newest hand-over in `latest` and where it stands at `message` (a customer's). */
export function handOverVerdict(message: ConversationMessage, latest: ConversationMessage[], defaultLimitHours: number): HandOverVerdict {
	const list = [...latest].sort(newerFirst);
	const markers = list.map((listed) => ({ listed, marker: handOverMarkerOf(listed) })).filter((entry): entry is { listed: ConversationMessage; marker: HandOverMarker } => entry.marker !== undefined);
	if (markers.length === 0) return { kind: 'none' };
	const { episode } = markers[0].marker;
	const sends = markers.filter((entry) => entry.marker.episode === episode);
	const first = sends[sends.length - 1].listed;
	const ownLimit = sends.find((entry) => entry.marker.limitSeconds !== undefined)?.marker.limitSeconds;
	const limitHours = ownLimit === undefined ? defaultLimitHours : ownLimit / 3600;
	const sinceMs = timeOf(first);
	const since: HandOverSince = { episode, since: String(first.created_at), sinceMs, limitHours, untilMs: sinceMs + limitHours * 3_600_000 };
	const firstIndex = list.indexOf(first);
	const person = list.slice(0, firstIndex).find((listed) => messageAuthor(listed) === 'person');
	if (person) return { kind: 'answered', person, ...since };
	if (!(timeOf(message) >= since.untilMs)) return { kind: 'waiting', ...since };
	// Expired: the item says so until the bot has answered after the limit.
	const botAnswered = list.some((listed) => messageAuthor(listed) === 'package' && !handOverMarkerOf(listed) && timeOf(listed) >= since.untilMs);
	return botAnswered ? { kind: 'none' } : { kind: 'expired', ...since };
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function handOverWaitingHint(message: ConversationMessage, verdict: HandOverSince, stepAsideMinutes: number): string {
	return `Message ${message.id}: the conversation was handed over to a person at ${verdict.since} and no person of the workspace has written since, so the workflow stays quiet until a person has answered and ${stepAsideMinutes} minutes have passed after their last message, or until ${iso(verdict.untilMs)} if no person answers (Hand-Over Limit, ${verdict.limitHours} hours). This execution ran nothing downstream.`;
}

export function handOverAnsweredHint(message: ConversationMessage, verdict: HandOverSince, person: ConversationMessage, stepAsideMinutes: number): string {
	const until = iso(timeOf(person) + stepAsideMinutes * 60_000);
	return `Message ${message.id}: the conversation was handed over to a person at ${verdict.since}, and a person of the workspace (${String(person.from_user_id)}) wrote at ${String(person.created_at)}, so the workflow steps aside until ${until}. This execution ran nothing downstream.`;
}

/** The trigger item's `handOver` (shared/triggerItem.ts) for a hand-over that expired. */
export function expiredHandOverItem(verdict: HandOverSince): TriggerHandOver {
	return { expired: true, since: verdict.since, expiredAt: iso(verdict.untilMs), limitHours: verdict.limitHours };
}

/** The execution's custom data keeps the episode of a hand-over the trigger found expired, for the operation of the same execution (and of its Retry): a new hand-over then starts a new episode instead of repeating the old one. */
const ENDED_KEY = 'omnichannel_handover_ended';

type CustomDataHolder = Parameters<typeof keepInExecution>[0];

export function keepEndedHandOver(context: CustomDataHolder, episode: string): void {
	keepInExecution(context, ENDED_KEY, episode);
}

export function endedHandOverOf(context: CustomDataHolder): string | undefined {
	return keptInExecution(context, ENDED_KEY);
}
