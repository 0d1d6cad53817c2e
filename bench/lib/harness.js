'use strict';
// The real-n8n harness of the E2E suite (n8n with our packed package, queue-mode
// clusters, workflow builders, polling helpers), which the benchmarks drive as
// the tests do. Bench code takes it from here, so the bench names the test
// folder in one place.
const harness = require('../../test/e2e/harness');
const { startProcesses, startQueueCluster } = require('../../test/e2e/harness/queue');
const { packDirectory } = require('../../test/e2e/harness/package');
const { parseRunOutput } = require('../../test/e2e/harness/n8n-cli');

module.exports = { ...harness, startProcesses, startQueueCluster, packDirectory, parseRunOutput };
