/**
 * Report > Get, in three phases, one file each: the period and options,
 * checked before any request (plan.ts); the reads, page by page, into the
 * aggregator (read.ts, aggregate.ts, with the per-conversation state in
 * state.ts); the output items and their HTML (format.ts, html.ts).
 * Definitions of every figure: docs/operations.md, "Reports".
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RunContext } from '../helpers/operation';
import { ReportAggregator } from './aggregate';
import { addBotShare } from './botShare';
import { bucketStarts, isoInZone } from './calendar';
import { comparedReads, CompareReader, withComparison } from './compare';
import { conversationItems } from './conversations';
import type { ChannelInfo } from './format';
import { reportedChannels, reportItems } from './format';
import { reportHtml } from './html';
import { peopleTable } from './htmlPeople';
import { personItems } from './people';
import type { ReportPlan } from './plan';
import { readReport } from './read';
import { reportText } from './text';

export { reportPlan } from './plan';
export type { ReportPlan } from './plan';

/** The channel items, the total and the bucket items of one window, with the bot's own share. */
function windowItems(aggregator: ReportAggregator, plan: ReportPlan, reported: ChannelInfo[]) {
	const items = reportItems(aggregator, plan, reported);
	addBotShare(aggregator, plan, items.channels, items.total, items.buckets);
	return items;
}

/**
 * The report's items: one per channel, the total, then one per bucket,
 * person or conversation (Group By). With Compare With, both windows come
 * from one read (compare.ts) and the channel, total and bucket items carry
 * the previous figures.
 */
export async function runReport(context: IExecuteFunctions, itemIndex: number, run: RunContext, plan: ReportPlan): Promise<IDataObject[]> {
	const aggregator = new ReportAggregator(plan);
	const window = plan.previous;
	let previous: { aggregator: ReportAggregator; plan: ReportPlan } | undefined;
	let listed;
	if (window) {
		const unit = plan.groupBy === 'day' || plan.groupBy === 'hour' ? plan.groupBy : undefined;
		const buckets = unit === undefined || window.endMs <= window.startMs ? [] : bucketStarts(window.startMs, window.endMs, unit, plan.timeZone);
		// The previous window gives figures only: no person or conversation items of its own.
		const previousPlan: ReportPlan = { ...plan, startMs: window.startMs, endMs: window.endMs, buckets, groupBy: unit ?? 'none' };
		const reader = new CompareReader(aggregator, new ReportAggregator(previousPlan), plan.startMs);
		listed = await readReport(context, itemIndex, run, plan, reader, comparedReads(reader, plan, window));
		previous = { aggregator: reader.previous, plan: previousPlan };
	} else {
		listed = await readReport(context, itemIndex, run, plan, aggregator);
	}
	const reported = reportedChannels(aggregator, plan, listed);
	let items = windowItems(aggregator, plan, reported);
	if (window && previous) {
		const before = windowItems(previous.aggregator, previous.plan, reportedChannels(previous.aggregator, previous.plan, listed));
		items = withComparison(items, before, window, (epochMs) => isoInZone(epochMs, plan.timeZone));
	}
	const { channels, total, buckets } = items;
	const people = plan.groupBy === 'person' ? personItems(aggregator, plan) : [];
	if (plan.includeHtml) total.html = reportHtml(channels, total, buckets, peopleTable(people));
	if (plan.includeText) total.text = reportText(total, channels);
	const rows = plan.groupBy === 'conversation' ? conversationItems(aggregator, plan, reported) : [];
	return [...channels, total, ...buckets, ...people, ...rows];
}
