'use strict';
// One real n8n with our package installed, for the E2E suite, the demo and
// the benchmarks. Typical use:
//
//   const n8n = await startN8n();                 // packs the repo, installs, starts
//   await n8n.importCredentials([omnichannelCredential({ id, baseUrl, apiKey })]);
//   await n8n.importWorkflows([workflow]);
//   const run = await n8n.executeWorkflow(workflow.id);
//   await n8n.setupOwnerAndApiKey();
//   await n8n.publishWorkflow(id);
//   await n8n.dispose();                       // stop + remove the temp user folder
const { N8nApi, N8nApiError } = require('./n8n-api');
const cli = require('./n8n-cli');
const { N8n, startN8n, DEFAULT_OWNER } = require('./n8n');
const { ensureN8nInstall, N8N_VERSION } = require('./install');
const { NODE_TYPES, PACKAGE_NAME, omnichannelCredential } = require('./node-types');
const { packDirectory, packRepo, installPackage, installedPackageDir } = require('./package');
const { startQueueCluster, startProcesses } = require('./queue');
const { ExternalN8n, connectExternalN8n } = require('./external');
const { sandboxClient } = require('../sandbox/client');
const workflows = require('./workflows');
const { freePort } = require('./ports');
const { waitFor, sleep } = require('./poll');

module.exports = {
	startN8n,
	N8n,
	N8nApi,
	N8nApiError,
	DEFAULT_OWNER,
	NODE_TYPES,
	PACKAGE_NAME,
	N8N_VERSION,
	omnichannelCredential,
	ensureN8nInstall,
	packRepo,
	packDirectory,
	startQueueCluster,
	startProcesses,
	ExternalN8n,
	connectExternalN8n,
	installPackage,
	installedPackageDir,
	freePort,
	waitFor,
	sleep,
	sandboxClient,
	workflows,
	nodeOutput: cli.nodeOutput,
	WorkflowExecutionError: cli.WorkflowExecutionError,
	parseRunOutput: cli.parseRunOutput,
};
