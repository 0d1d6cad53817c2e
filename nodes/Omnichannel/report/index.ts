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
import { bucketStarts, isoInZone } from './calendar';
import { comparedReads, CompareReader, withComparison } from './compare';
import type { PreviousWindow } from './compare';
import { reportedChannels, reportItems } from './format';
import { reportHtml } from './html';
import type { ReportPlan } from './plan';
import { readReport } from './read';

export { reportPlan } from './plan';
export type { ReportPlan } from './plan';

/** The report's items: one per channel, the total, then one per bucket. */
export async function runReport(context: IExecuteFunctions, itemIndex: number, run: RunContext, plan: ReportPlan): Promise<IDataObject[]> {
	const aggregator = new ReportAggregator(plan);
	if (plan.previous) return await runCompared(context, itemIndex, run, plan, aggregator, plan.previous);
	const listed = await readReport(context, itemIndex, run, plan, aggregator);
	const { channels, total, buckets } = reportItems(aggregator, plan, reportedChannels(aggregator, plan, listed));
	if (plan.includeHtml) total.html = reportHtml(channels, total, buckets);
	return [...channels, total, ...buckets];
}

/** Compare With: both windows from one read (compare.ts); every item carries the previous figures. */
async function runCompared(context: IExecuteFunctions, itemIndex: number, run: RunContext, plan: ReportPlan, aggregator: ReportAggregator, window: PreviousWindow): Promise<IDataObject[]> {
	const buckets = plan.groupBy === 'none' || window.endMs <= window.startMs ? [] : bucketStarts(window.startMs, window.endMs, plan.groupBy, plan.timeZone);
	const previousPlan: ReportPlan = { ...plan, startMs: window.startMs, endMs: window.endMs, buckets };
	const reader = new CompareReader(aggregator, new ReportAggregator(previousPlan), plan.startMs);
	const listed = await readReport(context, itemIndex, run, plan, reader, comparedReads(reader, plan, window));
	const current = reportItems(aggregator, plan, reportedChannels(aggregator, plan, listed));
	const previous = reportItems(reader.previous, previousPlan, reportedChannels(reader.previous, previousPlan, listed));
	const compared = withComparison(current, previous, window, (epochMs) => isoInZone(epochMs, plan.timeZone));
	if (plan.includeHtml) compared.total.html = reportHtml(compared.channels, compared.total, compared.buckets);
	return [...compared.channels, compared.total, ...compared.buckets];
}
