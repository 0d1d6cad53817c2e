'use strict';
// The real-n8n harness of the E2E suite (n8n with our packed package, queue-mode
// clusters, workflow builders, polling helpers), which the benchmarks drive as
// the tests do. Bench code takes it from here, so the bench names the test
// folder in one place.
const harness = require('../../test/support/n8n');
const { startProcesses, startQueueCluster } = require('../../test/support/n8n/queue');
const { packDirectory } = require('../../test/support/n8n/package');
const { parseRunOutput } = require('../../test/support/n8n/n8n-cli');

module.exports = { ...harness, startProcesses, startQueueCluster, packDirectory, parseRunOutput };
