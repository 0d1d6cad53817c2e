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
//   conversation: the same with Group By Conversation;
//   handoff:      no report: a Code node builds 5,007 items with the keys and
//                 value kinds of the conversation items and hands them to the
//                 same counting Code node (n8n's own cost of handing such
//                 items on, saving and printing them: the residue that is not ours).
// Counted: requests (the sandbox), the report node's own time (n8n's run
// data), its items, the Code node's count and time (what n8n's handing the
// items on costs), peak RSS while the report node ran. Goals: the same
// requests as without a grouping, and time at most 1.1 x the peer without,
// in the same run; the process's peak with Group By Conversation's items
// handed on at most 128 MB above a baseline peer's (n8n with the package,
// one request, the same Code node: as report-memory measures its baseline).
//   npm run bench -- --only report-team     (3 runs: about 5 minutes after seeding)
//   npm run bench -- --only report-team-published   the same peers as published
//       workflows in a running n8n (no `n8n execute` printing the run)
const crypto = require('crypto');
const os = require('os');

const { executeWorkflow, nodeRun } = require('../lib/n8nExecute');
const { peakMbBetween, cpuSecondsBetween, sampleRss } = require('../lib/rssSampler');
const { median } = require('../lib/summary');
const wf = require('../lib/workflows');
const { workflows: w, waitFor, sleep } = require('../../harness');
const { seededWorkspace, reportWorkflow, DAY_MS, RATE_LIMIT } = require('./report');

const COUNT_NODE = 'Count the items';

const PEERS = {
	baseline: { label: 'Contact > Get Many, Limit 1 (memory baseline: n8n with the package, one request)' },
	none: { label: 'Report > Get, Group By None' },
	person: { label: 'Report > Get, Group By Person' },
	conversation: { label: 'Report > Get, Group By Conversation' },
	handoff: { label: "Code node: 5,007 items of the conversation items' keys and value kinds, no report (n8n's own handing on)" },
};

const HANDOFF_ITEMS = 5_007;

/**
 * The handoff peer's Code node (it runs in n8n's task runner, so as source):
 * items of the conversation items' keys, in their order, with values of
 * their kinds and sizes (ids of the sandbox's length, a time zone's ISO
 * times, small counts; null where the bench's day has it most often), one
 * day of 5 channels, 2 people.
 */
function buildConversationShapedItems(count) {
	const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
	let seed = 52;
	const random = () => {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		return seed / 2147483648;
	};
	const id = (prefix) => prefix + Array.from({ length: 20 }, () => base62[Math.floor(random() * 62)]).join('');
	const day = Date.UTC(2026, 10, 28);
	const at = (ms) => `${new Date(ms).toISOString().slice(0, 23)}+00:00`;
	const channels = ['Live Chat', 'WhatsApp', 'Telegram', 'Support Email', 'Instagram'].map((name, index) => ({ id: id('ch_'), name, type: ['livechat', 'whatsapp', 'telegram', 'email', 'instagram'][index] }));
	const people = [id('usr_'), id('usr_')];
	const items = [];
	for (let index = 0; index < count; index++) {
		const channel = channels[index % channels.length];
		const first = day + Math.floor((index / count) * 86_000_000);
		const last = first + Math.floor(random() * 3_600_000);
		const byPerson = random() < 0.3;
		const person = byPerson ? people[index % 2] : null;
		const waiting = random() < 0.1;
		items.push({
			json: {
				scope: 'conversation',
				conversationId: id('conv_'),
				channelId: channel.id,
				channelName: channel.name,
				channelType: channel.type,
				customerId: id('ct_'),
				periodStart: at(day),
				periodEnd: at(day + 86_400_000),
				timeZone: 'Etc/UTC',
				clock: 'calendar',
				firstMessageAt: at(first),
				lastMessageAt: at(last),
				firstCustomerMessageAt: at(first),
				firstWaitReplyMinutes: Math.round(random() * 3000) / 100,
				firstWaitReplyBy: byPerson ? 'person' : 'bot',
				firstWaitReplyPersonId: person,
				firstWaitReplyPersonName: null,
				customerMessages: 1 + Math.floor(random() * 6),
				botMessages: Math.floor(random() * 5),
				personMessages: byPerson ? 1 + Math.floor(random() * 3) : 0,
				failedMessages: 0,
				waits: 1 + Math.floor(random() * 4),
				waitsAnswered: 1 + Math.floor(random() * 3),
				waitingAtEnd: waiting,
				waitingSince: waiting ? at(last) : null,
				topPersonId: person,
				topPersonName: null,
				topPersonReplies: byPerson ? 1 : 0,
				handOvers: byPerson ? 1 : 0,
				handOverOutcome: byPerson ? 'answered' : null,
				botOnly: !byPerson,
				ratings: 0,
				latestRatingScore: null,
			},
		});
	}
	return items;
}

const EXECUTE_NOTES = [
	"The handoff peer builds its 5,007 items in a Code node (in n8n's task runner, so n8n receives them from it) instead of the report; from there on it is the same: n8n hands them to the counting Code node, saves the execution and prints the run. Its 'report' columns are that Code node's. The peak RSS columns between nodes are 50 ms samples (a short peak may fall between two); the process's peak is exact (getrusage at exit).",
	"Time is the report node's own execution time from n8n's run data (the Code node after it excluded: its time is its own column); the ratio divides it by Group By None's in the same run. CPU time is the `n8n execute` process's (all its threads, not the task runner's process) from /proc, sampled every 50 ms and read between samples as if used evenly, from the report node's start to its end: the machine's load stretches it far less than wall time. Every peer's workflow is the report and the same Code node; the peers' order turns each run. Requests and 429s are counted by the sandbox. Peak RSS is the `n8n execute` process's highest sample while the report node ran.",
];

const PUBLISHED_NOTES = [
	"Each run of each peer starts n8n afresh (`n8n start`, SQLite, the workflows published with a Webhook trigger in place of the manual one) and, 5 s after it is ready, starts the workflow with one request: a production execution as a scheduled workflow's, saved and not printed. The server's RSS and CPU time are sampled from /proc every 20 ms from that request to 2 s after the execution finished (a short peak may fall between two samples); the peak is the highest sample there.",
	"The handoff peer builds its 5,007 items in a Code node (in n8n's task runner, so n8n receives them from it) instead of the report; from there on it is the same: n8n hands them to the counting Code node and saves the execution. Its 'report' columns are that Code node's. Time, CPU time and requests are read as in the `report-team` scenario (the server's CPU, all its threads, not the task runner's process).",
];

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
	{ key: 'handOnPeakRssMb', label: 'Peak RSS sampled from the report\'s end to the Code node\'s end (MB)', digits: 0 },
	{ key: 'afterPeakRssMb', label: 'Peak RSS sampled after the Code node (MB)', digits: 0 },
	{ key: 'peakRssMb', label: 'Peak RSS of the process (MB)', digits: 0 },
];

/**
 * How a peer's workflow runs. `execute`: each run a fresh `n8n execute`
 * (manual trigger; n8n prints the run when it ends). `published`: each run a
 * freshly started `n8n start` with the workflows published, started by a
 * webhook as a scheduled workflow is by its trigger (saved, nothing printed);
 * the server's RSS sampled every 20 ms from the request to 2 s after the
 * execution finished.
 */
const WAYS = {
	execute: {
		trigger: () => w.manualTrigger(),
		prepare: async () => {},
		runOnce: async (n8n, workflow) => await executeWorkflow(n8n, workflow.id),
	},
	published: {
		trigger: (peer) => w.node('Start', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path: webhookPath(peer), responseMode: 'onReceived', options: {} }, { typeVersion: 2, webhookId: crypto.randomUUID() }),
		prepare: async (n8n, workflows) => {
			await n8n.start();
			await n8n.setupOwnerAndApiKey();
			for (const workflow of Object.values(workflows)) await n8n.publishWorkflow(workflow.id);
		},
		runOnce: runPublished,
	},
};

const webhookPath = (peer) => `bench-report-team-${peer}`;
/** After a fresh start, n8n's own start-up work settles before the request. */
const PUBLISHED_IDLE_MS = 5_000;
const PUBLISHED_AFTER_MS = 2_000;

async function runPublished(n8n, workflow, peer) {
	await n8n.stop();
	await n8n.start();
	const seen = new Set((await n8n.api.listExecutions({ workflowId: workflow.id })).map((execution) => String(execution.id)));
	await sleep(PUBLISHED_IDLE_MS);
	const sampler = sampleRss(n8n.pid, 20);
	const requestedAt = Date.now();
	// Until n8n has registered the published workflow's webhook it answers 404 and starts nothing.
	await waitFor(async () => (await fetch(`${n8n.baseUrl}/webhook/${webhookPath(peer)}`, { method: 'POST' })).status === 200, { what: `the ${peer} webhook`, timeoutMs: 60_000, intervalMs: 250 });
	const finished = await waitFor(
		async () => (await n8n.api.listExecutions({ workflowId: workflow.id })).find((execution) => !seen.has(String(execution.id)) && (execution.finished || execution.stoppedAt)),
		{ what: `the ${peer} execution`, timeoutMs: 300_000, intervalMs: 250 },
	);
	await sleep(PUBLISHED_AFTER_MS);
	const rssSamples = sampler.stop();
	const run = await n8n.api.getExecution(finished.id);
	return { run, rssSamples, peakRssMb: peakMbBetween(rssSamples, requestedAt, Infinity) };
}

function run(context) {
	return measure(context, 'execute');
}

function runInRunningN8n(context) {
	return measure(context, 'published');
}

async function measure({ sandbox, openN8n, log, runs }, way) {
	const { client } = sandbox;
	await client.control('DELETE', '/faults');
	const workspace = await seededWorkspace(sandbox, log);
	const n8n = await openN8n();
	const credential = wf.credentialsFor('RepTeam', { baseUrl: sandbox.base_url, apiKey: workspace.key }).ours;
	const [start, end] = [workspace.end - DAY_MS, workspace.end];
	const { trigger, prepare, runOnce } = WAYS[way];
	const count = () => w.node(COUNT_NODE, 'n8n-nodes-base.code', { mode: 'runOnceForAllItems', jsCode: 'return [{ json: { counted: $input.all().length } }];' }, { typeVersion: 2 });
	const workflows = {
		baseline: w.workflow({
			id: wf.benchId('RepTeamBase'),
			name: 'Bench report-team memory baseline',
			nodes: [trigger('baseline'), w.omnichannelNode(wf.MEASURED, credential, { resource: 'contact', operation: 'getAll', returnAll: false, limit: 1 }), count()],
			connections: w.chain('Start', wf.MEASURED, COUNT_NODE),
		}),
		none: reportWorkflow(wf.benchId('RepTeamNone'), credential, start, end, { parameters: { groupBy: 'none' }, after: [count()], trigger: trigger('none') }),
		person: reportWorkflow(wf.benchId('RepTeamPpl'), credential, start, end, { parameters: { groupBy: 'person' }, after: [count()], trigger: trigger('person') }),
		conversation: reportWorkflow(wf.benchId('RepTeamRows'), credential, start, end, { parameters: { groupBy: 'conversation' }, after: [count()], trigger: trigger('conversation') }),
		handoff: w.workflow({
			id: wf.benchId('RepTeamHand'),
			name: 'Bench report-team handoff (n8n alone: conversation-shaped items to the Code node)',
			nodes: [
				trigger('handoff'),
				w.node(wf.MEASURED, 'n8n-nodes-base.code', { mode: 'runOnceForAllItems', jsCode: `${buildConversationShapedItems.toString()}\nreturn buildConversationShapedItems(${HANDOFF_ITEMS});` }, { typeVersion: 2 }),
				count(),
			],
			connections: w.chain('Start', wf.MEASURED, COUNT_NODE),
		}),
	};
	await n8n.importCredentials([credential]);
	await n8n.importWorkflows(Object.values(workflows));
	await prepare(n8n, workflows);
	await client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: RATE_LIMIT });
	const results = Object.fromEntries(Object.keys(PEERS).map((peer) => [peer, []]));
	for (let runIndex = 0; runIndex < runs; runIndex++) {
		const peers = Object.keys(PEERS);
		const round = {};
		for (const peer of [...peers.slice(runIndex % peers.length), ...peers.slice(0, runIndex % peers.length)]) {
			const loadAverage = os.loadavg()[0];
			await client.control('DELETE', '/stats');
			const { run: execution, rssSamples, peakRssMb } = await runOnce(n8n, workflows[peer], peer);
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
				handOnPeakRssMb: countRun ? peakMbBetween(rssSamples, measured.startTime + measured.executionTimeMs, countRun.startTime + countRun.executionTimeMs) : undefined,
				afterPeakRssMb: countRun ? peakMbBetween(rssSamples, countRun.startTime + countRun.executionTimeMs, Infinity) : undefined,
				peakRssMb,
				loadAverage,
			};
			round[peer] = metrics;
			const spans = { measured: [measured.startTime, measured.startTime + measured.executionTimeMs], count: countRun && [countRun.startTime, countRun.startTime + countRun.executionTimeMs] };
			log(`report-team run ${runIndex + 1}/${runs} ${peer}: ${JSON.stringify(metrics)} spans ${JSON.stringify(spans)}`);
		}
		for (const peer of peers) {
			if (peer === 'person' || peer === 'conversation') {
				round[peer].ratio = round[peer].timeS / round.none.timeS;
				round[peer].cpuRatio = round[peer].cpuS / round.none.cpuS;
			}
			results[peer].push(round[peer]);
		}
	}
	await client.control('DELETE', '/faults');
	await n8n.dispose();
	return {
		title: `Group By Person and Group By Conversation over the day of 50,000 messages in 5,000 conversations (a workspace of 500,000)${way === 'published' ? ', published workflows in a running n8n' : ''}`,
		setup: { day: [new Date(start).toISOString(), new Date(end).toISOString()], latency_ms: 100, rate_limit_per_second: RATE_LIMIT },
		columns: COLUMNS,
		peers: PEERS,
		results,
		runs,
		targets: (summary) => {
			const sameRequests = (peer) => results[peer].every((metrics, index) => metrics.requests === results.none[index].requests);
			const rows = results.conversation;
			const aboveBaseline = (peer) => results[peer].map((metrics, index) => metrics.peakRssMb - results.baseline[index].peakRssMb);
			return [
				// Same-run differences, judged on their median: a fresh n8n's own peak spreads by about 20 MB from run to run, so one run's difference measures that too.
				{
					target: "Group By Conversation: the process's peak RSS (its 5,007 items handed to the Code node) above the baseline's in the same run: at most 128 MB (median of the runs; worst run beside)",
					value: `${median(aboveBaseline('conversation'))} MB (worst ${Math.max(...aboveBaseline('conversation'))} MB)`,
					met: median(aboveBaseline('conversation')) <= 128,
				},
				{
					target: "For reference, n8n's own cost: the handoff peer's process peak (5,007 conversation-shaped items built in a Code node and handed to the Code node, no report) above the baseline's in the same run",
					value: `${median(aboveBaseline('handoff'))} MB (worst ${Math.max(...aboveBaseline('handoff'))} MB)`,
					met: null,
				},
				{
					target: "For reference, the read's residue: Group By None's process peak above the baseline's in the same run",
					value: `${median(aboveBaseline('none'))} MB (worst ${Math.max(...aboveBaseline('none'))} MB)`,
					met: null,
				},
				{
					target: "For reference, ours beyond n8n's handing on: Group By Conversation's process peak above the handoff peer's in the same run",
					value: `${median(rows.map((metrics, index) => metrics.peakRssMb - results.handoff[index].peakRssMb))} MB (worst ${Math.max(...rows.map((metrics, index) => metrics.peakRssMb - results.handoff[index].peakRssMb))} MB)`,
					met: null,
				},
				{ target: 'Group By Person: the same requests as Group By None, every run', value: `${summary.person.requests.max} and ${summary.none.requests.max}`, met: sameRequests('person') },
				{ target: 'Group By Conversation: the same requests as Group By None, every run', value: `${summary.conversation.requests.max} and ${summary.none.requests.max}`, met: sameRequests('conversation') },
				// The median of the runs' ratios: Group By None alone spreads by more than 10% from run to run on this machine, so one run's ratio measures the machine.
				{ target: 'Group By Person: time at most 1.1 × Group By None in the same run (median of the runs; worst run beside)', value: `${summary.person.ratio.median.toFixed(3)} (worst ${summary.person.ratio.max.toFixed(3)})`, met: summary.person.ratio.median <= 1.1 },
				{ target: 'Group By Conversation: time at most 1.1 × Group By None in the same run (median of the runs; worst run beside)', value: `${summary.conversation.ratio.median.toFixed(3)} (worst ${summary.conversation.ratio.max.toFixed(3)})`, met: summary.conversation.ratio.median <= 1.1 },
				{ target: 'Group By Person: CPU time of n8n while the report ran at most 1.1 × Group By None in the same run (median)', value: summary.person.cpuRatio.median.toFixed(3), met: summary.person.cpuRatio.median <= 1.1 },
				{ target: 'Group By Conversation: CPU time of n8n while the report ran at most 1.1 × Group By None in the same run (median)', value: summary.conversation.cpuRatio.median.toFixed(3), met: summary.conversation.cpuRatio.median <= 1.1 },
				{
					target: 'Group By Conversation: one item per conversation with activity, all handed to the Code node',
					value: `${rows[0].conversationItems} items, ${rows[0].conversationsWithActivity} conversations with activity, ${rows[0].counted} counted`,
					met: rows.every((metrics) => metrics.conversationItems === metrics.conversationsWithActivity) && Object.values(results).every((runsOf) => runsOf.every((metrics) => metrics.counted === metrics.items)),
				},
			];
		},
		notes: way === 'published' ? PUBLISHED_NOTES : EXECUTE_NOTES,
	};
}

module.exports = { run, runInRunningN8n };
