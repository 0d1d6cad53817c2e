'use strict';
// Scenario "report": yesterday's support report of a busy workspace, against
// the sandbox at 100 ms latency and its 60 requests/s limit. The workspace
// holds 10 days of 50,000 messages in 5,000 conversations each (500,000
// messages, POST /bulk-history); the report covers the newest day. Three
// peers in the same run, each a fresh `n8n execute`:
//   report:  Report > Get (Custom, that day), one node;
//   expert:  the flow an experienced user builds today: Channel, Conversation
//            (Updated Since the day's start) and Message > Get Many, Return
//            All (every message of the workspace: the list has no time
//            filter), then a Code node computing the same figures
//            (bench/lib/reportCode.js), in a sub-workflow that saves no
//            execution data (expertWorkflows says why);
//   window:  the same with Message > Get Many's new Created After / Before:
//            only the day's messages, then the Code node.
// Counted: requests (the sandbox), time (the measured nodes, from n8n's own
// run data), the total's figures of each and whether they agree (every
// figure of every channel and of the total). Goals: requests at most the
// window's pages + the conversations' pages + 2; the report's time at most
// 1.2 x what those requests take at 60 requests/s.
// Three more peers of the report alone (node version 1.1, which adds first
// responses per conversation): plain (`report11`), with Business Hours
// (`business`: time at most 1.1 x report11's in the same run), and with
// Compare With Previous Period (`compared`: requests at most both days'
// pages + the conversations' pages since the day before + 3, time at most
// 1.2 x what they take at 60 requests/s).
// BENCH_REPORT_MESSAGES_PER_DAY scales the days down (a quick try); BENCH_REPORT_PEERS
// (report,window,expert) measures some peers only.
//   npm run bench -- --only report          (3 runs: about 10 minutes, most of it the expert flow)
//   npm run bench -- --only report-memory   what a window of 500,000 messages costs n8n's memory
const fs = require('fs');
const os = require('os');

const { executeWorkflow, nodeRun } = require('../lib/n8nExecute');
const { measureExecution, measureRuns } = require('../lib/measure');
const { boundedInteger } = require('../lib/options');
const { codeNodeSource } = require('../lib/reportCode');
const { peakMbBetween } = require('../lib/rssSampler');
const wf = require('../lib/workflows');
const { workflows: w } = require('../../harness');
const { sandboxClient } = require('../../sandbox/client');

const DAYS = 10;
/** BENCH_REPORT_MESSAGES_PER_DAY (default 50,000; a tenth as many conversations) scales it down for a quick try. */
const MESSAGES_PER_DAY = boundedInteger('BENCH_REPORT_MESSAGES_PER_DAY', process.env.BENCH_REPORT_MESSAGES_PER_DAY, 50_000, 100_000);
const PER_DAY = { messages: MESSAGES_PER_DAY, conversations: MESSAGES_PER_DAY / 10 };
const PER_PAGE = 500;
const RATE_LIMIT = 60;
const DAY_MS = 86_400_000;
const TARGET_MINUTES = 15;
const FIGURES = [
	'conversationsWithActivity', 'newConversations', 'customerMessages', 'botMessages', 'personMessages', 'failedMessages',
	'firstResponses', 'botFirstResponses', 'personFirstResponses', 'firstResponseMedianMinutes', 'firstResponseP90Minutes',
	'botFirstResponseMedianMinutes', 'botFirstResponseP90Minutes', 'personFirstResponseMedianMinutes', 'personFirstResponseP90Minutes',
	'targetMinutes', 'answeredWithinTarget', 'answeredWithinTargetShare', 'waitingAtEnd', 'longestWaitMinutes',
	'handOvers', 'handOversAnswered', 'handOverMedianMinutesToPerson', 'handOversExpired', 'ratings', 'ratingsScored', 'ratingMean',
];

/** Business Hours of the bench's version 1.1 peers: split shifts on weekdays, a short weekend day. */
const BUSINESS_HOURS = 'Mon-Fri 09:00-12:30, 13:30-18:00; Sat 10:00-14:00';

const PEERS = {
	report: { label: 'Report > Get (one node)' },
	report11: { label: 'Report > Get, version 1.1 (first response per conversation)' },
	business: { label: 'Report > Get, version 1.1, Business Hours' },
	compared: { label: 'Report > Get, version 1.1, Compare With Previous Period' },
	window: { label: 'Get Many with Created After / Before -> Code node' },
	expert: { label: 'Get Many, Return All (today) -> Code node' },
};

const COLUMNS = [
	{ key: 'succeeded', label: 'Runs finished', kind: 'yesCount' },
	{ key: 'timeS', label: 'Time (s)', digits: 2 },
	{ key: 'requests', label: 'Requests', digits: 0 },
	{ key: 'budget', label: 'Request goal', digits: 0 },
	{ key: 'requestsTimeS', label: 'Requests at 60/s (s)', digits: 2 },
	{ key: 'status429', label: '429s', digits: 0 },
	{ key: 'agrees', label: 'Figures agree with the report', kind: 'yesCount' },
	{ key: 'customerMessages', label: 'Customer messages', digits: 0 },
	{ key: 'firstResponses', label: 'First responses', digits: 0 },
	{ key: 'firstResponseMedianMinutes', label: 'Median (min)', digits: 2 },
	{ key: 'waitingAtEnd', label: 'Waiting at the end', digits: 0 },
	{ key: 'handOvers', label: 'Hand-overs', digits: 0 },
	{ key: 'nodePeakRssMb', label: 'Peak RSS while measured (MB)', digits: 0 },
];

/** One workspace per sandbox, seeded once, shared by both scenarios of a run. */
const workspaces = new Map();

async function seededWorkspace(sandbox, log) {
	if (workspaces.has(sandbox.base_url)) return workspaces.get(sandbox.base_url);
	const { client } = sandbox;
	const { app_id: appId } = await client.control('POST', '/workspaces', { owner_name: 'Bench Owner' });
	const { key } = await client.control('POST', '/keys', { app_id: appId, mode: 'test', name: 'bench report' });
	for (const [type, name] of [['livechat', 'Live Chat'], ['whatsapp', 'WhatsApp'], ['telegram', 'Telegram'], ['email', 'Support Email'], ['instagram', 'Instagram']]) {
		await client.control('POST', '/channels', { app_id: appId, type, name });
	}
	await client.control('POST', '/channels', { app_id: appId, type: 'facebook', name: 'Old Facebook Page', is_active: false });
	for (const name of ['Priya Agent', 'Tom Agent']) await client.control('POST', '/users', { app_id: appId, name });
	const end = Math.floor(Date.now() / DAY_MS) * DAY_MS;
	const started = Date.now();
	for (let day = 0; day < DAYS; day++) {
		const from = end - (DAYS - day) * DAY_MS;
		await client.control('POST', '/bulk-history', { app_id: appId, from: new Date(from).toISOString(), to: new Date(from + DAY_MS).toISOString(), ...PER_DAY, seed: 1000 + day });
	}
	log(`report: seeded ${DAYS * PER_DAY.messages} messages in ${DAYS * PER_DAY.conversations} conversations in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	const workspace = { appId, key, end };
	workspaces.set(sandbox.base_url, workspace);
	return workspace;
}

const iso = (ms) => new Date(ms).toISOString();

/** Report > Get over [start, end): `parameters` beside the period, `options` beside the target, `after`: nodes the report's items go on to. */
function reportWorkflow(id, credential, start, end, { parameters = {}, options = {}, typeVersion = 1, after = [], trigger = w.manualTrigger() } = {}) {
	return w.workflow({
		id,
		name: `Bench report ${id} (Report > Get)`,
		nodes: [
			trigger,
			w.omnichannelNode(wf.MEASURED, credential, { resource: 'report', operation: 'get', period: 'custom', after: iso(start), before: iso(end), ...parameters, options: { targetMinutes: TARGET_MINUTES, ...options } }, { typeVersion }),
			...after,
		],
		connections: w.chain('Start', wf.MEASURED, ...after.map((node) => node.name)),
	});
}

/**
 * The expert flow as n8n can run it at this size: its reads and Code node in
 * a sub-workflow (Execute Workflow, waiting for it) that saves no execution
 * data, so that only the Code node's items come back. In one workflow, `n8n
 * execute` failed printing the run of 500,000 items ("Invalid string length":
 * V8's longest string), as n8n would saving that execution. Returns the
 * parent and the sub-workflow, which n8n 2 runs only once published.
 */
function expertWorkflows(id, subId, credential, start, end) {
	const sub = codeWorkflow(subId, credential, start, end, false, w.node('Start', 'n8n-nodes-base.executeWorkflowTrigger'));
	sub.settings = { ...sub.settings, saveDataSuccessExecution: 'none', saveDataErrorExecution: 'none', saveManualExecutions: false };
	const parent = w.workflow({
		id,
		name: `Bench report ${id} (Return All -> Code, in a sub-workflow)`,
		nodes: [w.manualTrigger(), w.node(wf.MEASURED, 'n8n-nodes-base.executeWorkflow', { source: 'database', workflowId: subId }, { typeVersion: 1 })],
		connections: w.chain('Start', wf.MEASURED),
	});
	return [parent, sub];
}

/** Channels, conversations and messages read with Get Many, then the Code node; `window` adds Created After / Before. */
function codeWorkflow(id, credential, start, end, window, trigger = w.manualTrigger()) {
	const once = { executeOnce: true };
	const nodes = [
		trigger,
		w.omnichannelNode('Channels', credential, { resource: 'channel', operation: 'getAll', returnAll: true }),
		w.omnichannelNode('Conversations', credential, { resource: 'conversation', operation: 'getAll', returnAll: true, filters: { updatedSince: iso(start) } }, once),
		w.omnichannelNode('Messages', credential, { resource: 'message', operation: 'getAll', returnAll: true, filters: window ? { createdAfter: iso(start), createdBefore: iso(end) } : {} }, once),
		w.node(wf.MEASURED, 'n8n-nodes-base.code', { mode: 'runOnceForAllItems', jsCode: codeNodeSource({ start, end, targetMinutes: TARGET_MINUTES }) }, { typeVersion: 2 }),
	];
	return w.workflow({ id, name: `Bench report ${id} (${window ? 'window' : 'Return All'} -> Code)`, nodes, connections: w.chain('Start', 'Channels', 'Conversations', 'Messages', wf.MEASURED) });
}

/** The last lines of the n8n log an execute error names ("see <file>"), for the results. */
function logTail(message) {
	const file = /see (\S+\.log)/.exec(String(message))?.[1];
	if (!file || !fs.existsSync(file)) return '';
	const lines = fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '');
	const telling = lines.filter((line) => /error|heap|memory|killed|payload|timeout|fail/i.test(line));
	return (telling.length > 0 ? telling : lines).slice(-4).join(' | ').slice(0, 800);
}

/** From the first measured node's start to the last one's end (the manual trigger excluded). */
function spanOf(run) {
	let from = Infinity;
	let to = 0;
	for (const [name, tasks] of Object.entries(run.data.resultData.runData)) {
		if (name === 'Start') continue;
		for (const task of tasks) {
			from = Math.min(from, task.startTime);
			to = Math.max(to, task.startTime + task.executionTime);
		}
	}
	return { from, to };
}

/** The figures of the channel items and the total, by scope and channel. */
function figuresOf(items) {
	return Object.fromEntries(
		items.filter((item) => item.scope === 'channel' || item.scope === 'total').map((item) => [`${item.scope}:${item.channelId}`, Object.fromEntries(FIGURES.map((field) => [field, item[field]]))]),
	);
}

async function setUp({ sandbox, openN8n, log }) {
	const { client } = sandbox;
	await client.control('DELETE', '/faults');
	const workspace = await seededWorkspace(sandbox, log);
	const n8n = await openN8n();
	const credential = wf.credentialsFor('Rep', { baseUrl: sandbox.base_url, apiKey: workspace.key }).ours;
	const [start, end] = [workspace.end - DAY_MS, workspace.end];
	const [expert, expertSub] = expertWorkflows(wf.benchId('RepExpert'), wf.benchId('RepExpSub'), credential, start, end);
	const workflows = {
		report: reportWorkflow(wf.benchId('RepOurs'), credential, start, end),
		report11: reportWorkflow(wf.benchId('RepOurs11'), credential, start, end, { typeVersion: 1.1 }),
		business: reportWorkflow(wf.benchId('RepBusiness'), credential, start, end, { options: { businessHours: BUSINESS_HOURS }, typeVersion: 1.1 }),
		compared: reportWorkflow(wf.benchId('RepCompared'), credential, start, end, { options: { compareWith: 'previousPeriod' }, typeVersion: 1.1 }),
		window: codeWorkflow(wf.benchId('RepWindow'), credential, start, end, true),
		expert,
	};
	await n8n.importCredentials([credential]);
	await n8n.importWorkflows([...Object.values(workflows), expertSub]);
	// Published through a running n8n (n8n 2's publication), which then stops for the `n8n execute` runs.
	await n8n.start();
	await n8n.setupOwnerAndApiKey();
	await n8n.publishWorkflow(expertSub.id);
	await n8n.stop();
	return { n8n, workflows, start, end };
}

async function measure({ n8n, sandbox, workflows }, peer, reference) {
	await sandbox.client.control('DELETE', '/stats');
	const started = Date.now();
	let executed;
	try {
		executed = await executeWorkflow(n8n, workflows[peer].id);
	} catch (error) {
		// A flow n8n could not finish is a result: what it said, and what it had asked the API.
		const stats = await sandbox.client.control('GET', '/stats');
		return { succeeded: 0, error: `${String(error.message).split('; see ')[0]} ${logTail(error.message)}`.trim(), wallS: (Date.now() - started) / 1000, requests: stats.requests, byRoute: stats.by_route, requestsTimeS: stats.requests / RATE_LIMIT, status429: stats.by_status['429'] ?? 0 };
	}
	const { run, peakRssMb, rssSamples } = executed;
	const stats = await sandbox.client.control('GET', '/stats');
	const measured = nodeRun(run, wf.MEASURED);
	const { from, to } = spanOf(run);
	const items = measured?.items ?? [];
	const total = items.find((item) => item.scope === 'total') ?? {};
	const figures = figuresOf(items);
	if (peer === 'report' && run.status === 'success') reference.figures = figures;
	// The version 1.1 peers name the per-wait figures as reply times: compared with the report on what both name alike.
	const ownVersion = ['report11', 'business', 'compared'].includes(peer);
	return {
		succeeded: run.status === 'success' && !measured?.error ? 1 : 0,
		error: measured?.error ?? (run.status === 'success' ? undefined : run.data.resultData.error?.message),
		timeS: (to - from) / 1000,
		requests: stats.requests,
		byRoute: stats.by_route,
		requestsTimeS: stats.requests / RATE_LIMIT,
		status429: stats.by_status['429'] ?? 0,
		agrees: reference.figures && !ownVersion ? (JSON.stringify(figures) === JSON.stringify(reference.figures) ? 1 : 0) : undefined,
		customerMessages: total.customerMessages,
		firstResponses: ownVersion ? total.waitsAnswered : total.firstResponses,
		firstResponseMedianMinutes: ownVersion ? total.replyTimeMedianMinutes : total.firstResponseMedianMinutes,
		conversationFirstResponses: ownVersion ? total.firstResponses : undefined,
		previousCustomerMessages: total.previousCustomerMessages,
		waitingAtEnd: total.waitingAtEnd,
		handOvers: total.handOvers,
		nodePeakRssMb: peakMbBetween(rssSamples, from, to),
		peakRssMb,
	};
}

async function run(context) {
	const { sandbox, log } = context;
	const setup = await setUp(context);
	const { client } = sandbox;
	// The goal's parts, read from the sandbox without latency or limit: the day's message pages and conversation pages.
	await client.control('DELETE', '/faults');
	const own = sandboxClient(sandbox, workspaces.get(sandbox.base_url).key);
	// Pages that hold the day's messages (1-based position of the first older message, less one).
	const windowPages = Math.ceil((await firstPositionOlderThan(own, setup.start)) / PER_PAGE);
	const conversationPages = Math.ceil((await own.api('GET', `/conversations?per_page=1&last_updated_at=${Math.floor(setup.start / 1000)}`)).total / PER_PAGE);
	const budget = windowPages + conversationPages + 2;
	// Compare With Previous Period: the pages of both days, and the conversations updated since the day before.
	const bothWindowPages = Math.ceil((await firstPositionOlderThan(own, setup.start - DAY_MS)) / PER_PAGE);
	const conversationPagesSincePrevious = Math.ceil((await own.api('GET', `/conversations?per_page=1&last_updated_at=${Math.floor((setup.start - DAY_MS) / 1000)}`)).total / PER_PAGE);
	const comparedBudget = bothWindowPages + conversationPagesSincePrevious + 3;
	await client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: RATE_LIMIT });
	const reference = {};
	// The report first in every run: the others are compared with its figures.
	const results = { report: [], report11: [], business: [], compared: [], window: [], expert: [] };
	// BENCH_REPORT_PEERS (a comma list) measures some peers only, e.g. to look at one.
	const only = (process.env.BENCH_REPORT_PEERS ?? '').split(',').filter(Boolean);
	for (let runIndex = 0; runIndex < context.runs; runIndex++) {
		for (const peer of Object.keys(PEERS).filter((name) => only.length === 0 || only.includes(name))) {
			const loadAverage = os.loadavg()[0];
			const metrics = { ...(await measure({ ...setup, sandbox }, peer, reference)), budget: peer === 'compared' ? comparedBudget : budget, loadAverage };
			results[peer].push(metrics);
			log(`report run ${runIndex + 1}/${context.runs} ${peer}: ${JSON.stringify(metrics)}`);
		}
	}
	await client.control('DELETE', '/faults');
	await setup.n8n.dispose();
	return {
		title: `Yesterday's support report of a workspace of ${(DAYS * PER_DAY.messages).toLocaleString('en-US')} messages: a day of ${PER_DAY.messages.toLocaleString('en-US')} messages in ${PER_DAY.conversations.toLocaleString('en-US')} conversations`,
		setup: {
			days: DAYS,
			...PER_DAY,
			messages_in_workspace: DAYS * PER_DAY.messages,
			window_pages: windowPages,
			conversation_pages: conversationPages,
			both_days_pages: bothWindowPages,
			conversation_pages_since_previous: conversationPagesSincePrevious,
			business_hours: BUSINESS_HOURS,
			latency_ms: 100,
			rate_limit_per_second: RATE_LIMIT,
			target_minutes: TARGET_MINUTES,
		},
		columns: COLUMNS,
		peers: PEERS,
		results,
		runs: context.runs,
		targets: (summary) => {
			const ours = summary.report;
			if (!ours?.requests || !summary.window?.requests || !summary.expert?.requests) return [{ target: 'every peer measured (BENCH_REPORT_PEERS left some out)', value: Object.keys(summary).join(', '), met: null }];
			const limit = 1.2 * ours.requestsTimeS.max;
			return [
				{ target: `requests at most the window's pages + the conversations' pages + 2 (${windowPages} + ${conversationPages} + 2), every run`, value: `${ours.requests.max} of ${budget}`, met: ours.requests.max <= budget },
				{ target: 'time at most 1.2 × what its requests take at 60 requests/s (every run)', value: `${ours.timeS.max.toFixed(2)} s against ${limit.toFixed(2)} s`, met: ours.timeS.max <= limit },
				{ target: '0 × 429', value: String(ours.status429.max), met: ours.status429.max === 0 },
				...newPeerTargets(summary, comparedBudget, bothWindowPages, conversationPagesSincePrevious),
				{ target: 'the Code node flows compute the same figures (every channel and the total)', value: `window ${summary.window.agrees?.runs.filter(Boolean).length ?? 0}/${context.runs}, expert ${summary.expert.agrees?.runs.filter(Boolean).length ?? 0}/${context.runs}`, met: null },
				{ target: 'Created After / Before -> Code node, same run: requests and time', value: `${summary.window.requests.median} requests, ${summary.window.timeS.median.toFixed(1)} s`, met: null },
				{
					target: 'Return All -> Code node (today), same run: requests and time',
					value: summary.expert.timeS ? `${summary.expert.requests.median} requests, ${summary.expert.timeS.median.toFixed(1)} s` : `did not finish (${summary.expert.requests?.median ?? 0} requests; ${results.expert.map((run) => run.error).filter(Boolean)[0] ?? ''})`,
					met: null,
				},
			];
		},
		notes: [
			'Time runs from the first measured node\'s start to the last one\'s end (the manual trigger excluded), from n8n\'s own run data; requests and 429s are counted by the sandbox. ' +
				'The window\'s pages are the pages of 500 that hold the day\'s messages (the day is the newest: pages 1 to 100; the report also reads page 101, which shows where the day ends, and that is the goal\'s first +1; the channels are the second), read from the sandbox before the runs; the conversations\' pages hold the conversations updated since the day began. ' +
				'Figures agree when every figure of every channel and of the total equals the report\'s. Peak RSS is the `n8n execute` process\'s highest sample while the measured nodes ran.',
		],
	};
}

/** The goals of the version 1.1 peers (Business Hours, Compare With), when measured. */
function newPeerTargets(summary, comparedBudget, bothWindowPages, conversationPages) {
	const targets = [];
	const { report11: plain, business, compared } = summary;
	if (plain?.timeS && business?.timeS) {
		const limit = 1.1 * plain.timeS.median;
		targets.push({ target: 'Business Hours: time at most 1.1 × version 1.1 without it (medians, same run)', value: `${business.timeS.median.toFixed(2)} s against ${limit.toFixed(2)} s`, met: business.timeS.median <= limit });
	}
	if (compared?.requests) {
		const limit = 1.2 * compared.requestsTimeS.max;
		targets.push(
			{ target: `Compare With Previous Period: requests at most both days' pages + the conversations' pages + 3 (${bothWindowPages} + ${conversationPages} + 3), every run`, value: `${compared.requests.max} of ${comparedBudget}`, met: compared.requests.max <= comparedBudget },
			{ target: 'Compare With Previous Period: time at most 1.2 × what its requests take at 60 requests/s (every run)', value: `${compared.timeS.max.toFixed(2)} s against ${limit.toFixed(2)} s`, met: compared.timeS.max <= limit },
		);
	}
	return targets;
}

/** How many messages are at least as new as `ms` (the 0-based position of the first older one): binary search on pages of 1. */
async function firstPositionOlderThan(client, ms) {
	const total = (await client.api('GET', '/messages?per_page=1')).total;
	let low = 0;
	let high = total;
	while (low < high) {
		const middle = Math.floor((low + high) / 2);
		const [record] = (await client.api('GET', `/messages?per_page=1&page=${middle + 1}`)).data;
		if (Date.parse(record.created_at) < ms) high = middle;
		else low = middle + 1;
	}
	return low;
}

// --- report-memory: a window of 500,000 messages.

const MEMORY_PEERS = {
	report: { label: `Report > Get of the ${DAYS} days (${(DAYS * PER_DAY.messages).toLocaleString('en-US')} messages)` },
	trusted: { label: `Report > Get, version 1.1, Business Hours, the ${DAYS / 2} newest days compared with the ${DAYS / 2} before (the same ${(DAYS * PER_DAY.messages).toLocaleString('en-US')} messages)` },
	small: { label: 'Contact > Get Many, Limit 1 (memory baseline: n8n with the package, one request)' },
};

const MEMORY_COLUMNS = [
	{ key: 'nodePeakRssMb', label: 'Peak RSS while the node ran (MB)', digits: 0 },
	{ key: 'peakRssMb', label: 'Peak RSS of the process (MB)', digits: 0 },
	{ key: 'timeS', label: 'Time (s)', digits: 2 },
	{ key: 'requests', label: 'Requests', digits: 0 },
];

async function runMemory(context) {
	const { sandbox, openN8n, log } = context;
	await sandbox.client.control('DELETE', '/faults');
	const workspace = await seededWorkspace(sandbox, log);
	const n8n = await openN8n();
	const credential = wf.credentialsFor('RepMem', { baseUrl: sandbox.base_url, apiKey: workspace.key }).ours;
	const workflows = {
		report: reportWorkflow(wf.benchId('RepMemAll'), credential, workspace.end - DAYS * DAY_MS, workspace.end),
		trusted: reportWorkflow(wf.benchId('RepMemTrust'), credential, workspace.end - (DAYS / 2) * DAY_MS, workspace.end, { options: { businessHours: BUSINESS_HOURS, compareWith: 'previousPeriod' }, typeVersion: 1.1 }),
		small: w.workflow({ id: wf.benchId('RepMemSmall'), name: 'Bench report memory (baseline)', nodes: [w.manualTrigger(), w.omnichannelNode(wf.MEASURED, credential, { resource: 'contact', operation: 'getAll', returnAll: false, limit: 1 })], connections: w.chain('Start', wf.MEASURED) }),
	};
	await n8n.importCredentials([credential]);
	await n8n.importWorkflows(Object.values(workflows));
	await sandbox.client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: RATE_LIMIT });
	const results = await measureRuns(context, 'report-memory', Object.keys(MEMORY_PEERS), async (peer) => {
		const measured = await measureExecution({ n8n, sandbox }, workflows[peer].id);
		const total = measured.items.find((item) => item.scope === 'total');
		return { nodePeakRssMb: measured.nodePeakRssMb, peakRssMb: measured.peakRssMb, timeS: measured.executionTimeMs / 1000, requests: measured.requests, customerMessages: total?.customerMessages, error: measured.nodeError };
	});
	await sandbox.client.control('DELETE', '/faults');
	await n8n.dispose();
	return {
		title: `What Report > Get holds in n8n for a window of ${(DAYS * PER_DAY.messages).toLocaleString('en-US')} messages`,
		setup: { days: DAYS, ...PER_DAY, latency_ms: 100, rate_limit_per_second: RATE_LIMIT },
		columns: MEMORY_COLUMNS,
		peers: MEMORY_PEERS,
		results,
		targets: (summary) =>
			['report', 'trusted'].map((peer) => {
				const raised = summary[peer].nodePeakRssMb.max - summary.small.peakRssMb.median;
				return { target: `${peer}: peak RSS while the report ran, above the baseline's peak (worst run): at most 128 MB`, value: `${raised} MB (median ${summary[peer].nodePeakRssMb.median - summary.small.peakRssMb.median} MB)`, met: raised <= 128 };
			}),
		notes: [
			'Measured as upsert-memory measures it: each peer runs in a fresh `n8n execute` process whose RSS is sampled every 50 ms (bench/lib/rssSampler.js); the report\'s peak while its node ran, above the peak of the same n8n running a one-request node. The report outputs 7 items, so printing the run adds nothing.',
		],
	};
}

module.exports = { run, runMemory, seededWorkspace, reportWorkflow, DAY_MS, RATE_LIMIT };
