'use strict';
// The intake bench's third peer: the smallest community webhook trigger
// (bench/intake-peer, never published), installed beside our package the way
// a community package is, and a workflow that uses it.
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { installPackage, packDirectory, workflows } = require('../../harness');
const { MEASURED } = require('./workflows');

const PEER_DIR = path.join(__dirname, '..', 'intake-peer');
const PEER_TYPE = `${require(path.join(PEER_DIR, 'package.json')).name}.benchIntakeTrigger`;

/** Packs bench/intake-peer and installs it into the n8n user folder (before n8n starts). */
function installIntakePeer(userFolder) {
	const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-intake-peer-'));
	try {
		installPackage(userFolder, packDirectory(PEER_DIR, packDir));
	} finally {
		fs.rmSync(packDir, { recursive: true, force: true });
	}
}

/** A workflow with only the peer trigger, and the production path the bench registers at the sandbox. */
function intakePeerWorkflow(id) {
	const webhookId = crypto.randomUUID();
	const trigger = workflows.node(MEASURED, PEER_TYPE, {}, { typeVersion: 2, webhookId });
	return {
		workflow: workflows.workflow({ id, name: `Bench intake ${id} (minimal community trigger)`, nodes: [trigger], connections: [] }),
		path: `${webhookId}/webhook`,
	};
}

module.exports = { installIntakePeer, intakePeerWorkflow };
