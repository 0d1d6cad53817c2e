'use strict';
// Scenario 2: 3,000 text messages from 3,000 input items, our node vs the
// HTTP Request node with default settings. Every (run, peer) sends into a
// conversation of its own, so what the sandbox stored there is exactly what
// that run sent; each item's text is unique, so a text stored twice is a
// duplicate and a text never stored is a failed item.
const { measureExecution, measureRuns } = require('../lib/measure');
const wf = require('../lib/workflows');

const MESSAGES = 3_000;
const RATE_LIMIT = 60;

const PEERS = {
	omnichannel: { label: 'Omnichannel node (Send Text)', build: wf.sendsOurs },
	httpRequest: { label: 'HTTP Request node (default settings)', build: wf.sendsHttp },
};

const COLUMNS = [
	{ key: 'succeeded', label: 'Runs the node finished', kind: 'yesCount' },
	{ key: 'timeS', label: 'Time (s)', digits: 2 },
	{ key: 'messagesPerS', label: 'Messages/s', digits: 1 },
	{ key: 'pctOfLimit', label: '% of 60/s', digits: 1 },
	{ key: 'failedItems', label: 'Failed items', digits: 0 },
	{ key: 'status429', label: '429s', digits: 0 },
	{ key: 'stored', label: 'Stored', digits: 0 },
	{ key: 'duplicates', label: 'Duplicates', digits: 0 },
	{ key: 'firstStoredAfterS', label: 'First message stored after (s)', digits: 2 },
];

async function setUp({ sandbox, openN8n, runs }) {
	const { client } = sandbox;
	const n8n = await openN8n();
	const channel = await client.control('POST', '/channels', { type: 'livechat', name: 'Bench sends' });
	const credentials = wf.credentialsFor('Sd', { baseUrl: sandbox.base_url, apiKey: sandbox.key });
	/** plan[peer][runIndex] = { workflowId, conversationId } */
	const plan = {};
	const workflows = [];
	for (const [peer, { build }] of Object.entries(PEERS)) {
		plan[peer] = [];
		for (let runIndex = 0; runIndex < runs; runIndex++) {
			const conversation = await client.control('POST', '/conversations', { channel_id: channel.id });
			const id = wf.benchId('Sd', peer.slice(0, 4), String(runIndex + 1));
			workflows.push(build(id, credentials, conversation.id, MESSAGES, sandbox.base_url));
			plan[peer].push({ workflowId: id, conversationId: conversation.id });
		}
	}
	await n8n.importCredentials([credentials.ours, credentials.header]);
	await n8n.importWorkflows(workflows);
	await client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: RATE_LIMIT });
	return { n8n, plan };
}

const storedMessages = (client, conversationId) =>
	client.listAll('/messages', { conversation_id: conversationId }, { maxPages: 20 });

function metricsOf(measured, messages) {
	const texts = messages.map((message) => message.content);
	const distinct = new Set(texts).size;
	const timeS = measured.executionTimeMs / 1000;
	const firstStoredAt = Math.min(...messages.map((message) => Date.parse(message.created_at)));
	return {
		succeeded: measured.status === 'success' ? 1 : 0,
		nodeError: measured.nodeError,
		timeS,
		messagesPerS: distinct / timeS,
		pctOfLimit: (100 * distinct) / timeS / RATE_LIMIT,
		failedItems: MESSAGES - distinct,
		status429: measured.status429,
		requests: measured.requests,
		stored: texts.length,
		duplicates: texts.length - distinct,
		// From the node's start to the first message stored (one request's latency included).
		firstStoredAfterS: messages.length ? (firstStoredAt - measured.startTime) / 1000 : undefined,
	};
}

function targets(summary) {
	const ours = summary.omnichannel;
	return [
		{ target: 'at least 90% of 60 messages/s (median)', value: `${ours.messagesPerS.median.toFixed(1)}/s (${ours.pctOfLimit.median.toFixed(1)}%)`, met: ours.pctOfLimit.median >= 90 },
		{ target: '0 failed items in every run', value: String(ours.failedItems.max), met: ours.failedItems.max === 0 },
		{ target: '0 duplicates in every run', value: String(ours.duplicates.max), met: ours.duplicates.max === 0 },
	];
}

async function run(context) {
	const { n8n, plan } = await setUp(context);
	const { sandbox } = context;
	const results = await measureRuns(context, 'sends', Object.keys(PEERS), async (peer, runIndex) => {
		const { workflowId, conversationId } = plan[peer][runIndex];
		const measured = await measureExecution({ n8n, sandbox }, workflowId);
		return metricsOf(measured, await storedMessages(sandbox.client, conversationId));
	});
	await n8n.dispose();
	return {
		title: `Sending ${MESSAGES.toLocaleString('en-US')} text messages from ${MESSAGES.toLocaleString('en-US')} items`,
		setup: { messages: MESSAGES, latency_ms: 100, rate_limit_per_second: RATE_LIMIT },
		columns: COLUMNS,
		peers: PEERS,
		results,
		targets,
		notes: [
			'Messages/s counts distinct messages stored in the sandbox per second of the node\'s own executionTime. ' +
				'Failed items are input items whose text the sandbox never stored. The HTTP Request node with default ' +
				'settings sends every item at once and stops at the first 429, so its time is the time until it failed.',
		],
	};
}

module.exports = { run };
