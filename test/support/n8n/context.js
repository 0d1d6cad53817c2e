'use strict';
// What every E2E file starts from: a sandbox of its own in this (Node 20)
// process, an n8n with our packed package installed, and a credential for the
// sandbox's seeded key. The n8n is the run's shared one (shared.js): what the
// file imports is removed when it closes, and a restart test restarts it in
// place. A file that sets n8n's environment (`n8nEnv`) or asks for `ownN8n`
// gets one of its own, prepared but not started. With OMNICHANNEL_N8N_URL
// set, the n8n is one started elsewhere (harness/external.js), reached over
// HTTP only; `n8nEnv` cannot apply there.
const { startSandbox } = require('../../../sandbox');
const { startN8n, connectExternalN8n, omnichannelCredential, sandboxClient, waitFor } = require('../../../harness');
const { openQueueCluster } = require('../../../harness/queue');
const { sharedN8n, sharedQueueCluster } = require('./shared');

/**
 * Budget for a file's setup: on a bare machine the first file also installs
 * n8n into the cache (minutes, see CONTRIBUTING); warm, it takes seconds.
 */
const SETUP_TIMEOUT_MS = 25 * 60 * 1000;
/** One test: a few n8n CLI runs or polls of a few seconds each. */
const TEST_TIMEOUT_MS = 3 * 60 * 1000;

/**
 * @param {{ sandbox?: object, n8nEnv?: object, ownN8n?: boolean }} [options] startSandbox
 *   options (seed defaults to demo); extra environment for an n8n of the file's own
 */
async function openContext({ sandbox: sandboxOptions = {}, n8nEnv, ownN8n = n8nEnv !== undefined } = {}) {
	const sandbox = await startSandbox({ seed: 'demo', ...sandboxOptions });
	let n8n;
	try {
		n8n = connectExternalN8n() ?? (ownN8n ? null : await sharedN8n()) ?? (await startN8n({ start: false, env: n8nEnv }));
	} catch (error) {
		await sandbox.close();
		throw error;
	}
	const credential = omnichannelCredential({
		id: 'e2eSandboxCred01',
		name: 'E2E sandbox',
		baseUrl: sandbox.base_url,
		apiKey: sandbox.key,
	});
	return {
		sandbox,
		n8n,
		credential,
		client: sandboxClient(sandbox),
		async close() {
			try {
				await n8n.dispose();
			} finally {
				await sandbox.close();
			}
		},
	};
}

/**
 * What every queue-mode file starts from: a sandbox, a credential for its
 * seeded key, and a running cluster (harness/queue.js). `setUp` gets the
 * sandbox, its client and the credential, and returns what the cluster
 * starts with: `workflows`, the ids to `publish`, more `credentials`, `env`.
 * The cluster is the run's shared one (shared.js), whose main imports and
 * publishes them over REST and removes them when the file closes; a file
 * that sets `env` or asks for `ownCluster` (it restarts or kills processes or
 * services) starts one of its own. With `webhooks`, it resolves once the
 * service holds that many webhooks (the published triggers registered theirs).
 * @param {{ sandbox?: object, credential: { id: string, name?: string }, setUp: Function, webhooks?: number, ownCluster?: boolean }} options
 */
async function openQueueContext({ sandbox: sandboxOptions = {}, credential: { id, name = 'Queue sandbox' }, setUp, webhooks = 0, ownCluster = false }) {
	const sandbox = await startSandbox({ seed: 'demo', ...sandboxOptions });
	const client = sandboxClient(sandbox);
	const credential = omnichannelCredential({ id, name, baseUrl: sandbox.base_url, apiKey: sandbox.key });
	let cluster;
	const close = async () => {
		try {
			await cluster?.dispose();
		} finally {
			await sandbox.close();
		}
	};
	try {
		const { credentials = [], workflows, publish, env } = await setUp({ sandbox, client, credential });
		cluster = ownCluster || env ? null : await sharedQueueCluster();
		if (cluster) {
			await cluster.main.importCredentials([credential, ...credentials]);
			await cluster.main.importWorkflows(workflows);
			for (const workflowId of publish) await cluster.main.publishWorkflow(workflowId);
		} else {
			cluster = await openQueueCluster({ credentials: [credential, ...credentials], workflows, publish, env });
		}
		if (webhooks > 0) {
			await waitFor(async () => ((await client.listAll('/webhooks')).length >= webhooks ? true : undefined), {
				what: `${webhooks} webhooks registered at the service`,
				timeoutMs: 60_000,
			});
		}
	} catch (error) {
		await close();
		throw error;
	}
	return { sandbox, client, credential, cluster, close };
}

module.exports = { openContext, openQueueContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS };
