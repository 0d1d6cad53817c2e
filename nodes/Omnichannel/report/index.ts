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
import { conversationItems } from './conversations';
import { reportedChannels, reportItems } from './format';
import { reportHtml } from './html';
import { peopleTable } from './htmlPeople';
import { personItems } from './people';
import type { ReportPlan } from './plan';
import { readReport } from './read';
import { reportText } from './text';

export { reportPlan } from './plan';
export type { ReportPlan } from './plan';

/** The report's items: one per channel, the total, then one per bucket, person or conversation (Group By). */
export async function runReport(context: IExecuteFunctions, itemIndex: number, run: RunContext, plan: ReportPlan): Promise<IDataObject[]> {
	const aggregator = new ReportAggregator(plan);
	const listed = await readReport(context, itemIndex, run, plan, aggregator);
	const reported = reportedChannels(aggregator, plan, listed);
	const { channels, total, buckets } = reportItems(aggregator, plan, reported);
	addBotShare(aggregator, plan, channels, total, buckets);
	const people = plan.groupBy === 'person' ? personItems(aggregator, plan) : [];
	if (plan.includeHtml) total.html = reportHtml(channels, total, buckets, peopleTable(people));
	if (plan.includeText) total.text = reportText(total, channels);
	const rows = plan.groupBy === 'conversation' ? conversationItems(aggregator, plan, reported) : [];
	return [...channels, total, ...buckets, ...people, ...rows];
}
