'use strict';
// Scenario "report-team": what Group By Person and Group By Conversation
// cost over the day of the "report" scenario (the same workspace: 10 days of
// 50,000 messages in 5,000 conversations each; the newest day), against the
// sandbox at 100 ms latency and 60 requests/s. Three peers in every run, each
// a fresh `n8n execute`, their order turned by one each run (so none always
// runs first or after the same peer), each workflow the same but for the
// grouping: the report, then a Code node that counts its items:
//   none:         Report > Get without a grouping (the "report" scenario's peer);
//   person:       the same with Group By Person;
//   conversation: the same with Group By Conversation.
// Counted: requests (the sandbox), the report node's own time (n8n's run
// data), its items, the Code node's count and time (what n8n's handing the
// items on costs), peak RSS while the report node ran. Goals: the same
// requests as without a grouping, and time at most 1.1 x the peer without,
// in the same run; the process's peak with Group By Conversation's items
// handed on at most 128 MB above a baseline peer's (n8n with the package,
// one request, the same Code node: as report-memory measures its baseline).
//   npm run bench -- --only report-team     (3 runs: about 5 minutes after seeding)
const os = require('os');

const { executeWorkflow, nodeRun } = require('../lib/n8nExecute');
const { peakMbBetween, cpuSecondsBetween } = require('../lib/rssSampler');
const wf = require('../lib/workflows');
const { workflows: w } = require('../../harness');
const { seededWorkspace, reportWorkflow, DAY_MS, RATE_LIMIT } = require('./report');

const COUNT_NODE = 'Count the items';

const PEERS = {
	baseline: { label: 'Contact > Get Many, Limit 1 (memory baseline: n8n with the package, one request)' },
	none: { label: 'Report > Get, Group By None' },
	person: { label: 'Report > Get, Group By Person' },
	conversation: { label: 'Report > Get, Group By Conversation' },
};

const COLUMNS = [
	{ key: 'succeeded', label: 'Runs finished', kind: 'yesCount' },
	{ key: 'timeS', label: 'Report node time (s)', digits: 2 },
	{ key: 'ratio', label: 'Time ÷ Group By None, same run', digits: 3 },
	{ key: 'cpuS', label: 'CPU time of n8n while the report ran (s)', digits: 2 },
	{ key: 'cpuRatio', label: 'CPU time ÷ Group By None, same run', digits: 3 },
	{ key: 'requests', label: 'Requests', digits: 0 },
	{ key: 'status429', label: '429s', digits: 0 },
	{ key: 'items', label: 'Items', digits: 0 },
	{ key: 'counted', label: 'Items the Code node counted', digits: 0 },
	{ key: 'countS', label: 'Code node time (s)', digits: 2 },
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
	const count = () => w.node(COUNT_NODE, 'n8n-nodes-base.code', { mode: 'runOnceForAllItems', jsCode: 'return [{ json: { counted: $input.all().length } }];' }, { typeVersion: 2 });
	const workflows = {
		baseline: w.workflow({
			id: wf.benchId('RepTeamBase'),
			name: 'Bench report-team memory baseline',
			nodes: [w.manualTrigger(), w.omnichannelNode(wf.MEASURED, credential, { resource: 'contact', operation: 'getAll', returnAll: false, limit: 1 }), count()],
			connections: w.chain('Start', wf.MEASURED, COUNT_NODE),
		}),
		none: reportWorkflow(wf.benchId('RepTeamNone'), credential, start, end, { parameters: { groupBy: 'none' }, after: [count()] }),
		person: reportWorkflow(wf.benchId('RepTeamPpl'), credential, start, end, { parameters: { groupBy: 'person' }, after: [count()] }),
		conversation: reportWorkflow(wf.benchId('RepTeamRows'), credential, start, end, { parameters: { groupBy: 'conversation' }, after: [count()] }),
	};
	await n8n.importCredentials([credential]);
	await n8n.importWorkflows(Object.values(workflows));
	await client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: RATE_LIMIT });
	const results = { baseline: [], none: [], person: [], conversation: [] };
	for (let runIndex = 0; runIndex < runs; runIndex++) {
		const peers = Object.keys(PEERS);
		const round = {};
		for (const peer of [...peers.slice(runIndex % peers.length), ...peers.slice(0, runIndex % peers.length)]) {
			const loadAverage = os.loadavg()[0];
			await client.control('DELETE', '/stats');
			const { run: execution, rssSamples, peakRssMb } = await executeWorkflow(n8n, workflows[peer].id);
			const stats = await client.control('GET', '/stats');
			const measured = nodeRun(execution, wf.MEASURED);
			const countRun = nodeRun(execution, COUNT_NODE);
			const counted = countRun?.items[0]?.counted;
			const items = measured?.items ?? [];
			const total = items.find((item) => item.scope === 'total') ?? {};
			const metrics = {
				succeeded: execution.status === 'success' && !measured?.error ? 1 : 0,
				error: measured?.error,
				timeS: measured.executionTimeMs / 1000,
				cpuS: cpuSecondsBetween(rssSamples, measured.startTime, measured.startTime + measured.executionTimeMs),
				requests: stats.requests,
				status429: stats.by_status['429'] ?? 0,
				items: items.length,
				personItems: items.filter((item) => item.scope === 'person').length,
				conversationItems: items.filter((item) => item.scope === 'conversation').length,
				conversationsWithActivity: total.conversationsWithActivity,
				botOnlyShare: total.botOnlyShare,
				counted,
				countS: countRun ? countRun.executionTimeMs / 1000 : undefined,
				nodePeakRssMb: peakMbBetween(rssSamples, measured.startTime, measured.startTime + measured.executionTimeMs),
				peakRssMb,
				loadAverage,
			};
			round[peer] = metrics;
			log(`report-team run ${runIndex + 1}/${runs} ${peer}: ${JSON.stringify(metrics)}`);
		}
		for (const peer of peers) {
			if (peer !== 'none' && peer !== 'baseline') {
				round[peer].ratio = round[peer].timeS / round.none.timeS;
				round[peer].cpuRatio = round[peer].cpuS / round.none.cpuS;
			}
			results[peer].push(round[peer]);
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
				{
					target: "Group By Conversation: the process's peak RSS (its 5,007 items handed to the Code node) above the baseline's, worst run: at most 128 MB",
					value: `${summary.conversation.peakRssMb.max - summary.baseline.peakRssMb.min} MB (median ${summary.conversation.peakRssMb.median - summary.baseline.peakRssMb.median} MB)`,
					met: summary.conversation.peakRssMb.max - summary.baseline.peakRssMb.min <= 128,
				},
				{ target: 'Group By Person: the same requests as Group By None, every run', value: `${summary.person.requests.max} and ${summary.none.requests.max}`, met: sameRequests('person') },
				{ target: 'Group By Conversation: the same requests as Group By None, every run', value: `${summary.conversation.requests.max} and ${summary.none.requests.max}`, met: sameRequests('conversation') },
				{ target: 'Group By Person: time at most 1.1 × Group By None in the same run (worst run)', value: summary.person.ratio.max.toFixed(3), met: summary.person.ratio.max <= 1.1 },
				{ target: 'Group By Conversation: time at most 1.1 × Group By None in the same run (worst run)', value: summary.conversation.ratio.max.toFixed(3), met: summary.conversation.ratio.max <= 1.1 },
				{ target: 'Group By Person: CPU time of n8n while the report ran at most 1.1 × Group By None in the same run (median)', value: summary.person.cpuRatio.median.toFixed(3), met: summary.person.cpuRatio.median <= 1.1 },
				{ target: 'Group By Conversation: CPU time of n8n while the report ran at most 1.1 × Group By None in the same run (median)', value: summary.conversation.cpuRatio.median.toFixed(3), met: summary.conversation.cpuRatio.median <= 1.1 },
				{
					target: 'Group By Conversation: one item per conversation with activity, all handed to the Code node',
					value: `${rows[0].conversationItems} items, ${rows[0].conversationsWithActivity} conversations with activity, ${rows[0].counted} counted`,
					met: rows.every((metrics) => metrics.conversationItems === metrics.conversationsWithActivity) && Object.values(results).every((runsOf) => runsOf.every((metrics) => metrics.counted === metrics.items)),
				},
			];
		},
		notes: [
			"Time is the report node's own execution time from n8n's run data (the Code node after it excluded: its time is its own column); the ratio divides it by Group By None's in the same run. CPU time is the `n8n execute` process's (all its threads, not the task runner's process) from /proc, sampled every 50 ms and read between samples as if used evenly, from the report node's start to its end: the machine's load stretches it far less than wall time. Every peer's workflow is the report and the same Code node; the peers' order turns each run. Requests and 429s are counted by the sandbox. Peak RSS is the `n8n execute` process's highest sample while the report node ran.",
		],
	};
}

module.exports = { run };
