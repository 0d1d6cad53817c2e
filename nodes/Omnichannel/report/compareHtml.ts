/**
 * Compare With in the HTML: under a figure, its change against the previous
 * window with an arrow, in the colour that says better or worse (a lower
 * time, fewer waiting, a higher share within target are better; volumes are
 * neither, in grey), and the previous value.
 */
import type { IDataObject } from 'n8n-workflow';

import { changeName, previousName, riseIsGood } from './compare';

export interface BadgeColors {
	better: string;
	worse: string;
	neither: string;
}

const shown = (field: string, value: number): string => {
	if (/Share$/.test(field)) return `${Math.round(value * 100)}%`;
	const rounded = Math.round(value * 100) / 100;
	return /Minutes$/.test(field) ? `${rounded} min` : String(rounded);
};

/** The change of `field` on a compared item ('' when the item is not compared); a share's change in percentage points. */
export function changeBadge(item: IDataObject, field: string, colors: BadgeColors): string {
	// A count within target is shown as its share: compare the share.
	const compared = `${field}Share` in item ? `${field}Share` : field;
	if (!(changeName(compared) in item)) return '';
	const change = item[changeName(compared)];
	const before = item[previousName(compared)];
	const was = typeof before === 'number' ? shown(compared, before) : '–';
	if (typeof change !== 'number') return `<div style="font-size:11px;color:${colors.neither}">before: ${was}</div>`;
	const rise = riseIsGood(compared);
	const better = change === 0 || rise === undefined ? undefined : change > 0 === rise;
	const color = better === undefined ? colors.neither : better ? colors.better : colors.worse;
	const arrow = change > 0 ? '▲' : change < 0 ? '▼' : '=';
	const amount = /Share$/.test(compared) ? `${Math.round(Math.abs(change) * 100)} pts` : shown(compared, Math.abs(change));
	return `<div style="font-size:11px;color:${color}">${arrow} ${change === 0 ? '' : amount} <span style="color:${colors.neither}">(before: ${was})</span></div>`;
}

/** The change of `field` on a compared item as words for a text ("▲ 0.5 min", "▼ 3 pts", "="), '' when the item is not compared or the change is unknown. */
export function changeWords(item: IDataObject, field: string): string {
	const change = item[changeName(field)];
	if (typeof change !== 'number') return '';
	if (change === 0) return '=';
	const amount = /Share$/.test(field) ? `${Math.round(Math.abs(change) * 100)} pts` : shown(field, Math.abs(change));
	return `${change > 0 ? '▲' : '▼'} ${amount}`;
}
