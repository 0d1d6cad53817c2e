'use strict';
// Fills a trigger node's de-duplication window in n8n's SQLite database, as
// a workspace receiving 5 events/s for two hours leaves it: 40,000 ids
// (nodes/OmnichannelTrigger/common/eventsInDatabase.ts, LEDGER_ENTRIES). n8n stores each id
// as the base64 MD5 that its de-duplication helper computes; the row must
// exist already (the warm-up event creates it).
const { execFileSync } = require('child_process');
const path = require('path');

const FULL_WINDOW = 40_000;

/** Runs in n8n's Node 24 with n8n's own sqlite3 module: argv = database, workflow id, context, entries. */
const FILL_SCRIPT = `
const crypto = require('crypto');
const sqlite3 = require(process.env.SQLITE3_MODULE);
const [database, workflowId, context, entries] = process.argv.slice(1);
const db = new sqlite3.Database(database);
db.get('SELECT value FROM processed_data WHERE workflowId = ? AND context = ?', [workflowId, context], (error, row) => {
	if (error || !row) { console.error(error ? error.message : 'no row for ' + context); process.exit(1); }
	const current = JSON.parse(row.value);
	const filler = Array.from({ length: Number(entries) - current.data.length }, (_, index) =>
		crypto.createHash('md5').update('evt_prefill_' + index).digest('base64'));
	const value = JSON.stringify({ mode: current.mode, data: [...filler, ...current.data] });
	db.run('UPDATE processed_data SET value = ? WHERE workflowId = ? AND context = ?', [value, workflowId, context], function (updateError) {
		if (updateError || this.changes !== 1) { console.error(updateError ? updateError.message : 'no row updated'); process.exit(1); }
		db.close();
	});
});
`;

/** Fills the window of the trigger node `nodeId` of `workflowId` to `entries` ids. */
function fillLedger(n8n, workflowId, nodeId, entries = FULL_WINDOW) {
	const hostDir = path.join(n8n.install.cacheDir, `n8n-${n8n.install.version}`);
	execFileSync(n8n.install.nodeBin, ['-e', FILL_SCRIPT, path.join(n8n.userFolder, '.n8n', 'database.sqlite'), workflowId, `n:${nodeId}`, String(entries)], {
		env: { ...process.env, SQLITE3_MODULE: path.join(hostDir, 'node_modules', 'sqlite3') },
		stdio: ['ignore', 'ignore', 'inherit'],
		timeout: 60_000,
	});
}

module.exports = { fillLedger, FULL_WINDOW };
