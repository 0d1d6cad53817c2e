/**
 * The report as HTML that e-mail clients render (Include HTML): tables and
 * inline styles only, no scripts, no style sheet, no images; bars are table
 * cells with a background. Widths are given twice, as attributes (older
 * e-mail clients) and in `style` (n8n's HTML preview sanitizes attributes
 * other than `style` away). Made from the output items, so it shows exactly
 * their figures. Names from the workspace are escaped.
 */
import type { IDataObject } from 'n8n-workflow';

import { channelTypeLabel } from '../../shared/channelTypes';
import { changeBadge } from './compareHtml';

export const FONT = 'font-family:Arial,Helvetica,sans-serif';
export const MUTED = '#52606d';
const BAR = '#3e7bfa';
const GOOD = '#2f9e66';
const LATE = '#e8590c';
const WAITING_SHOWN = 20;
const CHANGE_COLORS = { better: GOOD, worse: LATE, neither: MUTED };

export function escape(value: unknown): string {
	return String(value ?? '').replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
export const show = (value: unknown, unit = ''): string => (value === null || value === undefined ? '–' : `${escape(value)}${unit}`);
export const percent = (share: unknown): string => (typeof share === 'number' ? `${Math.round(share * 100)}%` : '–');

/** "2026-06-01 00:00" from an ISO time with its offset. */
const wallClock = (iso: unknown): string => String(iso ?? '').slice(0, 16).replace('T', ' ');

function bar(value: number, max: number, color = BAR): string {
	const width = max > 0 ? Math.round((value / max) * 100) : 0;
	if (width <= 0) return '';
	const rest = width >= 100 ? '' : `<td style="font-size:0;line-height:0">&nbsp;</td>`;
	return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;width:100%"><tr><td width="${width}%" style="width:${width}%;background:${color};height:10px;font-size:0;line-height:0">&nbsp;</td>${rest}</tr></table>`;
}

/** A headline figure; tiles are inline blocks, so they wrap: three in a row on a desktop, two on a phone. */
function tile(value: string, label: string, change = ''): string {
	return `<div style="display:inline-block;vertical-align:top;box-sizing:border-box;width:32%;min-width:150px;padding:10px 12px;background:#f0f4f8;border:4px solid #ffffff"><div style="font-size:22px;font-weight:bold;color:#1f2933">${value}</div><div style="font-size:12px;color:${MUTED}">${label}</div>${change}</div>`;
}

interface Row {
	label: string;
	field: string;
	/** The value as shown; the field's value by default. */
	text?: (item: IDataObject) => string;
	/** Bar color; none: no bar. */
	color?: (item: IDataObject) => string;
}

/** A value, with its details in small print under it. */
const detailed = (value: string, details: string) => `${value}<div style="font-size:11px;color:${MUTED}">${details}</div>`;

const withinTarget = (item: IDataObject, field: string, target = 'targetMinutes') => (number(item[field]) <= number(item[target]) ? GOOD : LATE);

const ROWS: Row[] = [
	{ label: 'Conversations with activity', field: 'conversationsWithActivity', color: () => BAR },
	{ label: 'New conversations', field: 'newConversations', color: () => BAR },
	{ label: 'Customer messages', field: 'customerMessages', color: () => BAR },
	{ label: 'Replies by the bot', field: 'botMessages', color: () => BAR },
	{ label: 'Replies by people', field: 'personMessages', color: () => BAR },
	{
		label: 'First response, median',
		field: 'firstResponseMedianMinutes',
		text: (item) => detailed(show(item.firstResponseMedianMinutes, ' min'), `bot ${show(item.botFirstResponseMedianMinutes, ' min')} · people ${show(item.personFirstResponseMedianMinutes, ' min')}`),
		color: (item) => withinTarget(item, 'firstResponseMedianMinutes'),
	},
	{ label: 'First response, 90th percentile', field: 'firstResponseP90Minutes', text: (item) => show(item.firstResponseP90Minutes, ' min'), color: (item) => withinTarget(item, 'firstResponseP90Minutes') },
	{
		label: 'Answered within target',
		field: 'answeredWithinTarget',
		text: (item) => detailed(percent(item.answeredWithinTargetShare), `${show(item.answeredWithinTarget)} within ${show(item.targetMinutes)} min`),
	},
	{ label: 'Waiting at the end', field: 'waitingAtEnd', color: () => LATE },
	{
		label: 'Hand-overs to a person',
		field: 'handOvers',
		text: (item) => detailed(show(item.handOvers), `${show(item.handOversAnswered)} answered (median ${show(item.handOverMedianMinutesToPerson, ' min')}) · ${show(item.handOversExpired)} expired`),
		color: () => BAR,
	},
	{ label: 'Ratings', field: 'ratings', text: (item) => detailed(show(item.ratings), `mean ${show(item.ratingMean)} of 5`) },
];

/** From node version 1.1: first response per conversation, then reply time per wait (firstResponse.ts). */
const FIELD_DEFINITION_ROWS: Row[] = [
	...ROWS.slice(0, 5),
	{
		label: 'First response, median',
		field: 'firstResponseMedianMinutes',
		text: (item) => detailed(show(item.firstResponseMedianMinutes, ' min'), `bot ${show(item.botFirstResponseMedianMinutes, ' min')} · people ${show(item.personFirstResponseMedianMinutes, ' min')}`),
		color: (item) => withinTarget(item, 'firstResponseMedianMinutes', 'firstResponseTargetMinutes'),
	},
	{ label: 'First response, 90th percentile', field: 'firstResponseP90Minutes', text: (item) => show(item.firstResponseP90Minutes, ' min'), color: (item) => withinTarget(item, 'firstResponseP90Minutes', 'firstResponseTargetMinutes') },
	{
		label: 'First responses within target',
		field: 'firstResponsesWithinTarget',
		text: (item) => detailed(percent(item.firstResponsesWithinTargetShare), `${show(item.firstResponsesWithinTarget)} within ${show(item.firstResponseTargetMinutes)} min · ${show(item.awaitingFirstResponse)} awaiting`),
	},
	{
		label: 'Reply time, median',
		field: 'replyTimeMedianMinutes',
		text: (item) => detailed(show(item.replyTimeMedianMinutes, ' min'), `bot ${show(item.botReplyTimeMedianMinutes, ' min')} · people ${show(item.personReplyTimeMedianMinutes, ' min')}`),
		color: (item) => withinTarget(item, 'replyTimeMedianMinutes', 'replyTargetMinutes'),
	},
	{ label: 'Reply time, 90th percentile', field: 'replyTimeP90Minutes', text: (item) => show(item.replyTimeP90Minutes, ' min'), color: (item) => withinTarget(item, 'replyTimeP90Minutes', 'replyTargetMinutes') },
	{
		label: 'Replies within target',
		field: 'repliedWithinTarget',
		text: (item) => detailed(percent(item.repliedWithinTargetShare), `${show(item.repliedWithinTarget)} within ${show(item.replyTargetMinutes)} min`),
	},
	...ROWS.slice(8),
];

/** The rows for the items' version: from 1.1 they carry the reply time under its own name. */
const rowsFor = (total: IDataObject): Row[] => ('replyTimeMedianMinutes' in total ? FIELD_DEFINITION_ROWS : ROWS);

function channelTable(item: IDataObject, maxima: Map<string, number>, rows: Row[]): string {
	const type = channelTypeLabel(item.channelType);
	const title = `${escape(item.channelName || item.channelId)} <span style="font-weight:normal;color:${MUTED}">· ${escape(type)}${item.channelActive === false ? ' · inactive' : ''}</span>`;
	const active = number(item.conversationsWithActivity) + number(item.newConversations) + number(item.ratings) > 0;
	const body = active
		? rows.map((row) => {
				const value = item[row.field];
				const text = (row.text ? row.text(item) : show(value)) + changeBadge(item, row.field, CHANGE_COLORS);
				const cell = row.color ? bar(number(value), maxima.get(row.field) ?? 0, row.color(item)) : '';
				return `<tr><td style="padding:4px 8px 4px 0;font-size:13px;color:${MUTED}">${row.label}</td><td style="padding:4px 8px;font-size:13px">${text}</td><td width="35%" style="width:35%;padding:4px 0">${cell}</td></tr>`;
			}).join('')
		: `<tr><td style="padding:4px 0;font-size:13px;color:${MUTED}">No activity in the period.</td></tr>`;
	return `<h3 style="${FONT};font-size:15px;margin:18px 0 6px">${title}</h3><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;width:100%;${FONT}">${body}</table>`;
}

function waitingTable(total: IDataObject): string {
	const waiting = (Array.isArray(total.waiting) ? total.waiting : []) as IDataObject[];
	if (waiting.length === 0) return `<p style="${FONT};font-size:13px;color:${MUTED}">Nobody was waiting for an answer at the end of the period.</p>`;
	const head = ['Conversation', 'Channel', 'Customer', 'Waiting since', 'Minutes'].map((label) => `<th style="text-align:left;padding:4px 8px 4px 0;font-size:12px;color:${MUTED};border-bottom:1px solid #d9e2ec">${label}</th>`).join('');
	const rows = waiting
		.slice(0, WAITING_SHOWN)
		.map((entry) => `<tr>${[entry.conversationId, entry.channelName || entry.channelId, entry.customerId, wallClock(entry.since), entry.minutesWaited].map((value) => `<td style="padding:4px 8px 4px 0;font-size:12px;word-break:break-all">${show(value)}</td>`).join('')}</tr>`)
		.join('');
	const more = number(total.waitingAtEnd) > WAITING_SHOWN ? `<p style="${FONT};font-size:12px;color:${MUTED}">and ${number(total.waitingAtEnd) - WAITING_SHOWN} more (the report's items list up to 100).</p>` : '';
	return `<table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;${FONT}"><tr>${head}</tr>${rows}</table>${more}`;
}

function bucketTable(buckets: IDataObject[]): string {
	if (buckets.length === 0) return '';
	const max = Math.max(...buckets.map((bucket) => number(bucket.customerMessages)));
	const rows = buckets
		.map(
			(bucket) =>
				`<tr><td style="padding:2px 8px 2px 0;font-size:12px;color:${MUTED};white-space:nowrap">${escape(bucket.scope === 'hour' ? wallClock(bucket.periodStart) : String(bucket.periodStart).slice(0, 10))}</td><td style="padding:2px 8px;font-size:12px;text-align:right">${show(bucket.customerMessages)}</td><td width="60%" style="width:60%">${bar(number(bucket.customerMessages), max)}</td><td style="padding:2px 0 2px 8px;font-size:12px;white-space:nowrap">${show(bucket.firstResponseMedianMinutes, ' min')}</td></tr>`,
		)
		.join('');
	return `<h3 style="${FONT};font-size:15px;margin:18px 0 6px">Customer messages by ${escape(buckets[0].scope)} <span style="font-weight:normal;color:${MUTED}">(with the median first response)</span></h3><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;width:100%;${FONT}">${rows}</table>`;
}

/** The HTML of the whole report; `peopleSection`: the People table of Group By Person (htmlPeople.ts). */
export function reportHtml(channels: IDataObject[], total: IDataObject, buckets: IDataObject[], peopleSection = ''): string {
	const rows = rowsFor(total);
	const maxima = new Map(rows.map((row) => [row.field, Math.max(0, ...channels.map((item) => number(item[row.field])))]));
	const fieldDefinitions = rows === FIELD_DEFINITION_ROWS;
	const change = (field: string) => changeBadge(total, field, CHANGE_COLORS);
	const tiles = [
		tile(show(total.conversationsWithActivity), 'conversations with activity', change('conversationsWithActivity')),
		tile(show(total.firstResponseMedianMinutes, ' min'), 'median first response', change('firstResponseMedianMinutes')),
		fieldDefinitions
			? tile(show(total.replyTimeMedianMinutes, ' min'), 'median reply time', change('replyTimeMedianMinutes'))
			: tile(percent(total.answeredWithinTargetShare), `answered within ${show(total.targetMinutes)} min`, change('answeredWithinTargetShare')),
		tile(show(total.waitingAtEnd), 'waiting at the end', change('waitingAtEnd')),
		tile(percent(total.botOnlyShare), `answered by the bot alone (${show(total.botOnlyConversations)} of ${show(total.conversationsAnswered)})`, change('botOnlyShare')),
		tile(show(total.handOvers), 'hand-overs to a person', change('handOvers')),
		tile(show(total.ratingMean), 'mean rating of 5', change('ratingMean')),
	].join('');
	const compared = total.comparedWith ? ` · compared with ${escape(wallClock(total.previousPeriodStart))} to ${escape(wallClock(total.previousPeriodEnd))}` : '';
	return [
		`<div style="${FONT};color:#1f2933;max-width:760px">`,
		`<h2 style="font-size:20px;margin:0 0 4px">Support report</h2>`,
		`<p style="font-size:13px;color:${MUTED};margin:0 0 12px">${escape(wallClock(total.periodStart))} to ${escape(wallClock(total.periodEnd))} (${escape(total.timeZone)})${total.clock === 'businessHours' ? ' · times in business hours' : ''}${compared}</p>`,
		`<div>${tiles}</div>`,
		...channels.map((item) => channelTable(item, maxima, rows)),
		`<h3 style="${FONT};font-size:15px;margin:18px 0 6px">Waiting for an answer at the end</h3>`,
		waitingTable(total),
		bucketTable(buckets),
		peopleSection,
		'</div>',
	].join('');
}
