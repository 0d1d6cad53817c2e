'use strict';
// The executions a published workflow started, read through n8n's public API,
// with the event id each one was started for.
const { waitFor } = require('../../harness');
const { MEASURED } = require('./workflows');

/** Executions of a workflow can number a few thousand: 250 a page, at most this many pages. */
const MAX_PAGES = 40;

/**
 * Waits until the workflow has at least `count` finished executions and no
 * new one has appeared for `quietMs`; resolves to them with their data.
 */
async function settledExecutions(n8n, workflowId, { count, quietMs = 2_000, timeoutMs = 300_000 }) {
	let seen = -1;
	let changedAt = Date.now();
	await waitFor(
		async () => {
			const executions = await n8n.api.listExecutions({ workflowId, maxPages: MAX_PAGES });
			const finished = executions.filter((execution) => execution.stoppedAt).length;
			if (executions.length !== seen) {
				seen = executions.length;
				changedAt = Date.now();
			}
			return finished === executions.length && finished >= count && Date.now() - changedAt >= quietMs;
		},
		{ what: `${count} finished execution(s) of workflow ${workflowId}`, timeoutMs, intervalMs: 500 },
	);
	return await n8n.api.listExecutions({ workflowId, includeData: true, maxPages: MAX_PAGES });
}

/** The event id an execution was started for, from the trigger's output item. */
function eventIdOf(execution, readEventId) {
	const item = execution.data?.resultData?.runData?.[MEASURED]?.[0]?.data?.main?.[0]?.[0]?.json;
	return item ? readEventId(item) : undefined;
}

module.exports = { settledExecutions, eventIdOf };
