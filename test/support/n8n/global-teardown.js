'use strict';
// Jest's globalTeardown for the real-n8n files: the shared n8n and cluster
// stopped by pid, and the run's folder (the packed package with it) removed.
const { stopSharedServices } = require('./shared');

module.exports = async () => {
	await stopSharedServices();
};
