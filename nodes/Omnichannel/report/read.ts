/**
 * The report's reads: the period's messages (a time window, pages of 500,
 * a few in flight), the conversations updated since the period began (for
 * new conversations and each waiting customer), and the channels; all at
 * once, through the one transport, so its rate limiter and concurrency
 * apply. Every page is handed to the aggregator as it comes, in order, and
 * dropped: nothing holds the period's messages. What it costs:
 * docs/operations.md, "Reports".
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequestAllItems, readWindow } from '../../shared/transport';
import type { RunContext } from '../helpers/operation';
import type { MessageRead, ReportSink } from './compare';
import type { ReportPlan } from './plan';

export async function readReport(
	context: IExecuteFunctions,
	itemIndex: number,
	run: RunContext,
	plan: ReportPlan,
	aggregator: ReportSink,
	// Compare With adds the previous window's (compare.ts); each is a time window of its own.
	messageReads: MessageRead[] = [{ afterMs: plan.startMs, beforeMs: plan.endMs, onPage: (page) => aggregator.addMessages(page) }],
): Promise<IDataObject[]> {
	const startedAt = Date.now();
	const options = { itemIndex, ...run.throttle };
	const channelsRead = apiRequestAllItems.call(context, '/channels', {}, options);
	const conversationsRead = readWindow.call(
		context,
		'/conversations',
		// The API's own filter: every conversation with a message in the period was updated at or after its start.
		{ last_updated_at: Math.floor(Math.min(...messageReads.map((read) => read.afterMs)) / 1000) },
		{ field: 'updated_at' },
		(page) => aggregator.addConversations(page),
		options,
	);
	const messagesRead = messageReads.map(
		async (read) => await readWindow.call(context, '/messages', {}, { field: 'created_at', afterMs: read.afterMs, beforeMs: read.beforeMs }, read.onPage, options),
	);
	const [channels] = await Promise.all([channelsRead, conversationsRead, ...messagesRead]);
	// A conversation that got a message while the list was read moved to its top, maybe past the pages
	// read already: those are the ones updated since the reads began.
	if (aggregator.unlisted().length > 0) {
		const moved = await apiRequestAllItems.call(context, '/conversations', { last_updated_at: Math.floor(startedAt / 1000) }, options);
		aggregator.addConversations(moved);
	}
	aggregator.finish();
	return channels;
}
