/**
 * The HTML's "People" table (Group By Person): one row per person item,
 * in the style of html.ts (tables and inline styles only); names and ids
 * from the workspace and Person Names are escaped.
 */
import type { IDataObject } from 'n8n-workflow';

import { escape, FONT, MUTED, percent, show } from './html';

const HEADINGS = ['Person', 'Replies', 'Waits answered', 'Reply time, median', 'p90', 'Within target', 'Hand-overs taken', 'Time to a person, median'];

export function peopleTable(people: IDataObject[]): string {
	if (people.length === 0) return '';
	const cell = (value: string, align = 'right') => `<td style="padding:4px 8px 4px 0;font-size:12px;text-align:${align};white-space:nowrap">${value}</td>`;
	const head = HEADINGS.map((label, index) => `<th style="text-align:${index === 0 ? 'left' : 'right'};padding:4px 8px 4px 0;font-size:12px;color:${MUTED};border-bottom:1px solid #d9e2ec">${label}</th>`).join('');
	const rows = people
		.map((person) => {
			// Version 1.1 names the target figures as the total's reply time figures (people.ts).
			const [share, within] = 'repliedWithinTarget' in person ? [person.repliedWithinTargetShare, person.repliedWithinTarget] : [person.withinTargetShare, person.withinTarget];
			const who = person.personName ? `${escape(person.personName)} <span style="color:${MUTED}">${escape(person.personId)}</span>` : escape(person.personId);
			return `<tr>${[
				cell(who, 'left'),
				cell(show(person.replies)),
				cell(show(person.waitsAnswered)),
				cell(show(person.replyTimeMedianMinutes, ' min')),
				cell(show(person.replyTimeP90Minutes, ' min')),
				cell(`${percent(share)} <span style="color:${MUTED}">(${show(within)})</span>`),
				cell(show(person.handOversTaken)),
				cell(show(person.handOverMedianMinutesToPerson, ' min')),
			].join('')}</tr>`;
		})
		.join('');
	return `<h3 style="${FONT};font-size:15px;margin:18px 0 6px">People <span style="font-weight:normal;color:${MUTED}">(within ${show(people[0].replyTargetMinutes ?? people[0].targetMinutes)} min${people[0].clock === 'businessHours' ? ', times in business hours' : ''})</span></h3><table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;${FONT}"><tr>${head}</tr>${rows}</table>`;
}
