'use strict';
// n8n 3.0's defaults, as far as they can be set on a 2.x n8n, for the
// v3-defaults suites (`npm run test:compat -- 2.41.1-v3-defaults`). n8n 3 is
// published as a Docker image only; what it changes is read from the v3
// breaking-change rules n8n 2.40.7 and 2.41.1 ship
// (n8n/dist/modules/breaking-changes/rules/v3/*.rule.js):
// - offload-manual-executions: in queue mode, manual executions always run on
//   workers (harness/queue.js already sets OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS);
// - in-memory-binary-data: the in-memory binary mode goes, `filesystem` is
//   the mode of a single instance and of a queue-mode setup sharing a folder;
// - unverified-packages: N8N_UNVERIFIED_PACKAGES_ENABLED defaults to false
//   and 3.0 stops loading unverified packages (2.x still loads them: measured
//   by the first test of v3-defaults.n8n.test.js);
// - ssrf-default-blocked-ranges: more blocked ranges; SSRF protection itself
//   stays opt-in there, and is turned on here as the strictest setting a 3.x
//   user may run.
// Durable poll cursors are in no v3 rule; they are turned on because they
// change what a poll's static data is (a fresh copy per poll).
const crypto = require('crypto');

const { waitFor } = require('../../harness');
const { MEDIA, mediaBytes } = require('../support/n8n/action-workflows');

const V3_ENV = Object.freeze({
	N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
	N8N_UNVERIFIED_PACKAGES_ENABLED: 'false',
	N8N_SSRF_PROTECTION_ENABLED: 'true',
	// The sandbox listens on 127.0.0.1, which the built-in blocked list holds.
	N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1/32',
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
});

/** The media sends measured here: an image and a document, each made from binary input. */
const SENT_MEDIA = MEDIA.filter(({ kind }) => kind === 'image' || kind === 'document');

const sha256 = (buffer) => crypto.createHash('sha256').update(buffer).digest('hex');

/**
 * Manual trigger → a Set node with each file as base64 → Convert to File →
 * Send Image / Send Document, the way a user turns data into binary input.
 */
function mediaWorkflow(w, { id, credential, conversationId }) {
	const files = w.node(
		'Files',
		'n8n-nodes-base.set',
		{
			mode: 'manual',
			assignments: {
				assignments: SENT_MEDIA.map(({ kind }) => ({ id: kind, name: kind, value: mediaBytes(kind).toString('base64'), type: 'string' })),
			},
			options: {},
		},
		{ typeVersion: 3.4 },
	);
	const perKind = SENT_MEDIA.flatMap(({ kind, operation, fileName, mimeType, caption }) => [
		w.node(
			`To ${kind} file`,
			'n8n-nodes-base.convertToFile',
			{ operation: 'toBinary', sourceProperty: kind, binaryPropertyName: 'data', options: { fileName, mimeType } },
			{ typeVersion: 1.1 },
		),
		w.omnichannelNode(`Send ${kind}`, credential, {
			resource: 'message',
			operation,
			conversationId: w.byId(conversationId),
			binaryPropertyName: 'data',
			options: { caption: `={{ '${caption} ' + $execution.id }}` },
		}),
	]);
	return w.workflow({
		id,
		name: `v3 defaults: media sends ${id}`,
		nodes: [w.manualTrigger(), files, ...perKind],
		connections: [...w.chain('Start', 'Files'), ...SENT_MEDIA.flatMap(({ kind }) => w.chain('Files', `To ${kind} file`, `Send ${kind}`))],
	});
}

/**
 * The messages an execution's Send nodes stored at the sandbox, each checked
 * against the bytes the workflow made; returns how many arrived intact.
 */
async function storedMediaOf(client, execution) {
	let intact = 0;
	for (const { kind, fileName } of SENT_MEDIA) {
		const task = execution.data.resultData.runData[`Send ${kind}`]?.[0];
		const sent = task?.data?.main?.[0]?.[0]?.json;
		if (!sent?.id) continue;
		const stored = await client.control('GET', `/messages/${sent.id}`);
		if (stored.sha256 === sha256(mediaBytes(kind)) && stored.file_name === fileName) intact += 1;
	}
	return intact;
}

/** Waits until the execution's media messages are all stored; returns the count. */
async function expectMediaStored(client, execution) {
	expect(execution.status).toBe('success');
	const intact = await storedMediaOf(client, execution);
	expect(intact).toBe(SENT_MEDIA.length);
	return intact;
}

module.exports = { V3_ENV, SENT_MEDIA, mediaWorkflow, storedMediaOf, expectMediaStored, sha256, waitFor };
