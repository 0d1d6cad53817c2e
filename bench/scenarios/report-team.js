'use strict';
// Scenario "report-team": what Group By Person and Group By Conversation
// cost over the day of the "report" scenario (the same workspace: 10 days of
// 50,000 messages in 5,000 conversations each; the newest day), against the
// sandbox at 100 ms latency and 60 requests/s. Three peers in every run,
// alternating, each a fresh `n8n execute`:
//   none:         Report > Get without a grouping (the "report" scenario's peer);
//   person:       the same with Group By Person;
//   conversation: the same with Group By Conversation, its items handed to a
//                 Code node that counts them.
// Counted: requests (the sandbox), the report node's own time (n8n's run
// data), its items, the Code node's count, peak RSS while the report node
// ran. Goals: the same requests as without a grouping, and time at most 1.1
// x the peer without, in the same run.
//   npm run bench -- --only report-team     (3 runs: about 5 minutes after seeding)
const os = require('os');

const { executeWorkflow, nodeRun } = require('../lib/n8nExecute');
const { peakMbBetween } = require('../lib/rssSampler');
const wf = require('../lib/workflows');
const { workflows: w } = require('../../harness');
const { seededWorkspace, reportWorkflow, DAY_MS, RATE_LIMIT } = require('./report');

const COUNT_NODE = 'Count the items';

const PEERS = {
	none: { label: 'Report > Get, Group By None' },
	person: { label: 'Report > Get, Group By Person' },
	conversation: { label: 'Report > Get, Group By Conversation -> Code node counting the items' },
};

const COLUMNS = [
	{ key: 'succeeded', label: 'Runs finished', kind: 'yesCount' },
	{ key: 'timeS', label: 'Report node time (s)', digits: 2 },
	{ key: 'ratio', label: 'Time ÷ Group By None, same run', digits: 3 },
	{ key: 'requests', label: 'Requests', digits: 0 },
	{ key: 'status429', label: '429s', digits: 0 },
	{ key: 'items', label: 'Items', digits: 0 },
	{ key: 'counted', label: 'Items the Code node counted', digits: 0 },
	{ key: 'nodePeakRssMb', label: 'Peak RSS while the report ran (MB)', digits: 0 },
	{ key: 'peakRssMb', label: 'Peak RSS of the process (MB)', digits: 0 },
];

async function run({ sandbox, openN8n, log, runs }) {
	const { client } = sandbox;
	await client.control('DELETE', '/faults');
	const workspace = await seededWorkspace(sandbox, log);
	const n8n = await openN8n();
	const credential = wf.credentialsFor('RepTeam', { baseUrl: sandbox.base_url, apiKey: workspace.key }).ours;
	const [start, end] = [workspace.end - DAY_MS, workspace.end];
	const count = w.node(COUNT_NODE, 'n8n-nodes-base.code', { mode: 'runOnceForAllItems', jsCode: 'return [{ json: { counted: $input.all().length } }];' }, { typeVersion: 2 });
	const workflows = {
		none: reportWorkflow(wf.benchId('RepTeamNone'), credential, start, end, { groupBy: 'none' }),
		person: reportWorkflow(wf.benchId('RepTeamPpl'), credential, start, end, { groupBy: 'person' }),
		conversation: reportWorkflow(wf.benchId('RepTeamRows'), credential, start, end, { groupBy: 'conversation' }, [count]),
	};
	await n8n.importCredentials([credential]);
	await n8n.importWorkflows(Object.values(workflows));
	await client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: RATE_LIMIT });
	const results = { none: [], person: [], conversation: [] };
	for (let runIndex = 0; runIndex < runs; runIndex++) {
		for (const peer of Object.keys(PEERS)) {
			const loadAverage = os.loadavg()[0];
			await client.control('DELETE', '/stats');
			const { run: execution, rssSamples, peakRssMb } = await executeWorkflow(n8n, workflows[peer].id);
			const stats = await client.control('GET', '/stats');
			const measured = nodeRun(execution, wf.MEASURED);
			const counted = nodeRun(execution, COUNT_NODE)?.items[0]?.counted;
			const items = measured?.items ?? [];
			const total = items.find((item) => item.scope === 'total') ?? {};
			const metrics = {
				succeeded: execution.status === 'success' && !measured?.error ? 1 : 0,
				error: measured?.error,
				timeS: measured.executionTimeMs / 1000,
				requests: stats.requests,
				status429: stats.by_status['429'] ?? 0,
				items: items.length,
				personItems: items.filter((item) => item.scope === 'person').length,
				conversationItems: items.filter((item) => item.scope === 'conversation').length,
				conversationsWithActivity: total.conversationsWithActivity,
				botOnlyShare: total.botOnlyShare,
				counted,
				nodePeakRssMb: peakMbBetween(rssSamples, measured.startTime, measured.startTime + measured.executionTimeMs),
				peakRssMb,
				loadAverage,
			};
			if (peer !== 'none') metrics.ratio = metrics.timeS / results.none[runIndex].timeS;
			results[peer].push(metrics);
			log(`report-team run ${runIndex + 1}/${runs} ${peer}: ${JSON.stringify(metrics)}`);
		}
	}
	await client.control('DELETE', '/faults');
	await n8n.dispose();
	return {
		title: 'Group By Person and Group By Conversation over the day of 50,000 messages in 5,000 conversations (a workspace of 500,000)',
		setup: { day: [new Date(start).toISOString(), new Date(end).toISOString()], latency_ms: 100, rate_limit_per_second: RATE_LIMIT },
		columns: COLUMNS,
		peers: PEERS,
		results,
		runs,
		targets: (summary) => {
			const sameRequests = (peer) => results[peer].every((metrics, index) => metrics.requests === results.none[index].requests);
			const rows = results.conversation;
			return [
				{ target: 'Group By Person: the same requests as Group By None, every run', value: `${summary.person.requests.max} and ${summary.none.requests.max}`, met: sameRequests('person') },
				{ target: 'Group By Conversation: the same requests as Group By None, every run', value: `${summary.conversation.requests.max} and ${summary.none.requests.max}`, met: sameRequests('conversation') },
				{ target: 'Group By Person: time at most 1.1 × Group By None in the same run (worst run)', value: summary.person.ratio.max.toFixed(3), met: summary.person.ratio.max <= 1.1 },
				{ target: 'Group By Conversation: time at most 1.1 × Group By None in the same run (worst run)', value: summary.conversation.ratio.max.toFixed(3), met: summary.conversation.ratio.max <= 1.1 },
				{
					target: 'Group By Conversation: one item per conversation with activity, all handed to the Code node',
					value: `${rows[0].conversationItems} items, ${rows[0].conversationsWithActivity} conversations with activity, ${rows[0].counted} counted`,
					met: rows.every((metrics) => metrics.conversationItems === metrics.conversationsWithActivity && metrics.counted === metrics.items),
				},
			];
		},
		notes: [
			"Time is the report node's own execution time from n8n's run data (the Code node after Group By Conversation excluded); the ratio divides it by Group By None's in the same run. Requests and 429s are counted by the sandbox. Peak RSS is the `n8n execute` process's highest sample while the report node ran.",
		],
	};
}

module.exports = { run };
