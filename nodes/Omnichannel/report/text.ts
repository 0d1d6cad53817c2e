/**
 * Include Text: the report's headline as a short Markdown text for a team
 * chat (from node version 1.1 first response and reply time as the items
 * name them; with Compare With each figure's change against the previous
 * window), in what Slack's mrkdwn and Telegram's Markdown (legacy) share with
 * standard Markdown: `*bold*` titles (italics in standard Markdown), `- `
 * lists between blank lines (one line each in every one of them), ids in
 * `code`; characters that would start formatting in a name are replaced. At most
 * TEXT_LIMIT characters, under Slack's 3,000 of a text block and 4,000 of a
 * message, and Telegram's 4,096.
 */
import type { IDataObject } from 'n8n-workflow';

import { changeWords } from './compareHtml';

export const TEXT_LIMIT = 3_000;
/** The waiting customers listed, longest first. */
export const TEXT_WAITING = 5;
const NAME_LIMIT = 60;

/** A workspace name as plain text: nothing in it starts or ends formatting. */
function plain(value: unknown): string {
	const text = String(value ?? '').replace(/[*_`~[\]<>&\\|#]/g, ' ').replace(/\s+/g, ' ').trim();
	return text.length > NAME_LIMIT ? `${text.slice(0, NAME_LIMIT - 1)}…` : text;
}

const code = (value: unknown) => `\`${String(value ?? '').replace(/[`\s]/g, '').slice(0, NAME_LIMIT)}\``;
const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const show = (value: unknown, unit = '') => (typeof value === 'number' ? `${value}${unit}` : '–');
const percent = (share: unknown) => (typeof share === 'number' ? `${Math.round(share * 100)}%` : '–');
const wallClock = (iso: unknown) => String(iso ?? '').slice(0, 16).replace('T', ' ');

/** The headline lines of a total item: version 1's as they were; from 1.1 (it has replyTime…) first response per new conversation and reply time per wait. */
function headline(total: IDataObject): string[] {
	// With Compare With: " (▲ 2)" after a figure, the change against the previous window.
	const change = (field: string) => {
		const words = changeWords(total, field);
		return words === '' ? '' : ` (${words})`;
	};
	const compared = total.comparedWith
		? [`Change against ${wallClock(total.previousPeriodStart)} to ${wallClock(total.previousPeriodEnd)} in brackets (▲ up, ▼ down)`, '']
		: [];
	const clock = total.clock === 'businessHours' ? ', times in business hours' : '';
	const times =
		'replyTimeMedianMinutes' in total
			? [
					`- First response (new conversations): median ${show(total.firstResponseMedianMinutes, ' min')}${change('firstResponseMedianMinutes')}, p90 ${show(total.firstResponseP90Minutes, ' min')}${change('firstResponseP90Minutes')}; ${percent(total.firstResponsesWithinTargetShare)} within ${show(total.firstResponseTargetMinutes, ' min')}${change('firstResponsesWithinTargetShare')}, ${show(total.awaitingFirstResponse)} awaiting`,
					`- Reply time (every wait): median ${show(total.replyTimeMedianMinutes, ' min')}${change('replyTimeMedianMinutes')}, p90 ${show(total.replyTimeP90Minutes, ' min')}${change('replyTimeP90Minutes')}; ${percent(total.repliedWithinTargetShare)} within ${show(total.replyTargetMinutes, ' min')}${change('repliedWithinTargetShare')} (${show(total.repliedWithinTarget)} waits)`,
				]
			: [
					`- First response: median ${show(total.firstResponseMedianMinutes, ' min')}${change('firstResponseMedianMinutes')}, p90 ${show(total.firstResponseP90Minutes, ' min')}${change('firstResponseP90Minutes')}`,
					`- Answered within ${show(total.targetMinutes, ' min')}: ${percent(total.answeredWithinTargetShare)} of waits (${show(total.answeredWithinTarget)})${change('answeredWithinTargetShare')}`,
				];
	return [
		`*Support report* ${wallClock(total.periodStart)} to ${wallClock(total.periodEnd)} (${plain(total.timeZone)})${clock}`,
		...compared,
		`- Conversations with activity: ${show(total.conversationsWithActivity)}${change('conversationsWithActivity')} (${show(total.newConversations)} new)`,
		...times,
		`- Answered by the bot alone: ${percent(total.botOnlyShare)}${change('botOnlyShare')} (${show(total.botOnlyConversations)} of ${show(total.conversationsAnswered)} conversations)`,
		`- Hand-overs to a person: ${show(total.handOvers)}${change('handOvers')} (${show(total.handOversAnswered)} answered, ${show(total.handOversExpired)} expired)`,
		`- Mean rating: ${show(total.ratingMean)} of 5${change('ratingMean')} (${show(total.ratingsScored)} scored)`,
		`- Waiting at the end: ${show(total.waitingAtEnd)}${change('waitingAtEnd')}`,
	];
}

export function reportText(total: IDataObject, channels: IDataObject[]): string {
	const names = new Map(channels.map((item) => [item.channelId, item.channelName]));
	const head = headline(total);
	const waiting = (Array.isArray(total.waiting) ? total.waiting : []) as IDataObject[];
	const lines = waiting
		.slice(0, TEXT_WAITING)
		.map((entry) => `- ${show(entry.minutesWaited, ' min')} · ${plain(entry.channelName || names.get(entry.channelId) || entry.channelId)} · customer ${code(entry.customerId)} · ${code(entry.conversationId)}`);
	const text = (shown: string[]) => {
		const more = number(total.waitingAtEnd) - shown.length;
		const list = shown.length === 0 ? [] : ['', '*Waiting longest*', '', ...shown, ...(more > 0 ? ['', `and ${more} more`] : [])];
		return [head[0], '', ...head.slice(1), ...list].join('\n');
	};
	let shown = lines;
	while (shown.length > 0 && text(shown).length > TEXT_LIMIT) shown = shown.slice(0, -1);
	return text(shown);
}
