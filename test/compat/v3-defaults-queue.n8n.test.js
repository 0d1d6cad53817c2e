'use strict';
// n8n 3.0's defaults in queue mode (harness/queue.js: PostgreSQL, Redis, main,
// 2 workers, a webhook process), as a 3.x deployment runs it: manual
// executions offloaded to workers, and binary data in `filesystem` mode in one
// storage folder that main, the workers and the webhook process share
// (N8N_STORAGE_PATH). Media sends from binary input made on a worker (a
// manual run from the editor's route) and from a file uploaded to the webhook
// process (stored there, read by the worker that runs the send); each message
// is checked at the sandbox against the sent bytes' sha256. Prints one line
// of counts per case. v3-defaults.js says where each setting comes from.
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { N8N_VERSION, omnichannelCredential, sandboxClient, workflows: w } = require('../../harness');
const { openQueueCluster } = require('../../harness/queue');
const { SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { startSandbox } = require('../../sandbox');
const { MEDIA, mediaBytes } = require('../support/n8n/action-workflows');
const { V3_ENV, SENT_MEDIA, mediaWorkflow, expectMediaStored, sha256 } = require('./v3-defaults');

const TEST_TIMEOUT_MS = 4 * 60 * 1000;
const IDS = { manual: 'v3QueueMedia0001', upload: 'v3QueueUpload001' };
const UPLOAD_PATH = 'v3-defaults-upload';
const IMAGE = MEDIA.find(({ kind }) => kind === 'image');

const report = (line) => process.stdout.write(`v3 defaults, queue mode (n8n ${N8N_VERSION}): ${line}\n`);

let cluster;
let sandbox;
let client;
let storage;

/** Files under the shared storage folder (filesystem-mode binary data). */
function storedFiles() {
	const files = [];
	const walk = (dir) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(full);
			else files.push(full);
		}
	};
	if (fs.existsSync(storage)) walk(storage);
	return files;
}

/** Which workers ran an execution (their logs name it). */
const workersThatRan = (executionId) => cluster.workerExecutionIds().filter((ids) => ids.has(String(executionId))).length;

beforeAll(async () => {
	sandbox = await startSandbox({ seed: 'demo' });
	client = sandboxClient(sandbox);
	storage = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-v3-storage-'));
	const credential = omnichannelCredential({ id: 'v3QueueSandbox01', name: 'v3 queue sandbox', baseUrl: sandbox.base_url, apiKey: sandbox.key });
	const conversationId = (await client.listAll('/conversations'))[0].id;
	const upload = w.workflow({
		id: IDS.upload,
		name: 'v3 defaults: upload to the webhook process, send from a worker',
		nodes: [
			w.node(
				'Upload',
				'n8n-nodes-base.webhook',
				{ httpMethod: 'POST', path: UPLOAD_PATH, responseMode: 'lastNode', responseData: 'firstEntryJson', options: {} },
				{ typeVersion: 2, webhookId: crypto.randomUUID() },
			),
			w.omnichannelNode('Send upload', credential, {
				resource: 'message',
				operation: 'sendImage',
				conversationId: w.byId(conversationId),
				binaryPropertyName: 'data',
				options: {},
			}),
		],
		connections: w.chain('Upload', 'Send upload'),
	});
	cluster = await openQueueCluster({
		credentials: [credential],
		workflows: [mediaWorkflow(w, { id: IDS.manual, credential, conversationId }), upload],
		publish: [IDS.upload],
		env: { ...V3_ENV, N8N_STORAGE_PATH: storage },
	});
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	await cluster?.dispose();
	await sandbox?.close();
	if (storage) fs.rmSync(storage, { recursive: true, force: true });
});

test(
	'a manual run goes to a worker, and its media sends read the binary data from the shared folder',
	async () => {
		const runs = 2;
		let intact = 0;
		let onWorkers = 0;
		for (let run = 0; run < runs; run++) {
			const execution = await cluster.main.api.runManually(IDS.manual, { trigger: 'Start' });
			intact += await expectMediaStored(client, execution);
			onWorkers += workersThatRan(execution.id);
		}
		const files = storedFiles().length;
		report(`manual runs offloaded: ${onWorkers}/${runs} ran on a worker; ${intact}/${runs * SENT_MEDIA.length} media messages stored with the sent bytes' sha256; ${files} files in the shared storage folder`);
		expect(onWorkers).toBe(runs);
		expect(files).toBeGreaterThan(0);
	},
	TEST_TIMEOUT_MS,
);

test(
	'a file uploaded to the webhook process is sent by a worker, intact',
	async () => {
		const uploads = 3;
		const bytes = mediaBytes(IMAGE.kind);
		let intact = 0;
		let onWorkers = 0;
		for (let n = 0; n < uploads; n++) {
			const response = await fetch(`${cluster.webhook.baseUrl}/webhook/${UPLOAD_PATH}`, {
				method: 'POST',
				headers: { 'content-type': IMAGE.mimeType, 'content-disposition': `attachment; filename="${IMAGE.fileName}"` },
				body: bytes,
				signal: AbortSignal.timeout(60_000),
			});
			const text = await response.text();
			expect(response.status).toBe(200);
			const sent = JSON.parse(text);
			const stored = await client.control('GET', `/messages/${sent.id}`);
			if (stored.sha256 === sha256(bytes) && stored.file_name === IMAGE.fileName) intact += 1;
		}
		const executions = await cluster.main.listExecutions({ workflowId: IDS.upload });
		for (const execution of executions) onWorkers += workersThatRan(execution.id);
		report(`uploads to the webhook process: ${intact}/${uploads} sent intact, ${onWorkers}/${executions.length} executions on a worker (${executions.filter((e) => e.status === 'success').length} successful)`);
		expect(intact).toBe(uploads);
		expect(executions).toHaveLength(uploads);
		expect(onWorkers).toBe(uploads);
	},
	TEST_TIMEOUT_MS,
);
