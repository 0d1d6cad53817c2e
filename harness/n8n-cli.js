'use strict';
// n8n's own CLI commands, run as separate processes against the user folder:
// import:credentials, import:workflow and execute (2.x has no `--file`).
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

/** Writes `items` to a private temp file in the user folder, runs `fn(file)`, removes it. */
async function withJsonFile(n8n, name, items, fn) {
	const file = path.join(n8n.userFolder, `${name}-${process.pid}-${Date.now()}.json`);
	// Credential files hold plain secrets until n8n encrypts them: owner-only, and gone right after.
	fs.writeFileSync(file, JSON.stringify(items), { mode: 0o600 });
	try {
		return await fn(file);
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/**
 * Imports credentials; each is `{ id, name, type, data }` with `data` as a
 * plain object, which n8n encrypts with the instance key on import.
 */
async function importCredentials(n8n, credentials) {
	await withJsonFile(n8n, 'credentials', credentials, (file) => n8n.runCli(['import:credentials', `--input=${file}`]));
}

/**
 * Imports workflows (each with a fixed `id`, so tests and examples can refer to it).
 * Each gets a `versionId` when it has none, as n8n's own exports do: n8n 2.0
 * (`npm run test:compat`) refuses a workflow without one; 1.123 and 2.40
 * replace it with a new one on import.
 */
async function importWorkflows(n8n, workflows) {
	const withVersions = workflows.map((workflow) => ({ versionId: crypto.randomUUID(), ...workflow }));
	await withJsonFile(n8n, 'workflows', withVersions, (file) => n8n.runCli(['import:workflow', `--input=${file}`]));
}

class WorkflowExecutionError extends Error {
	constructor(message, run) {
		super(message);
		this.run = run;
	}
}

/**
 * `n8n execute --rawOutput` prints the run as pretty JSON, but n8n's logger
 * may print lines around it: take the block from the first line that is `{`
 * to the last line that is `}`.
 */
function parseRunOutput(stdout) {
	const lines = stdout.split('\n');
	const first = lines.indexOf('{');
	const last = lines.lastIndexOf('}');
	if (first === -1 || last < first) return undefined;
	return JSON.parse(lines.slice(first, last + 1).join('\n'));
}

/** The error n8n recorded for a failed run, as one line. */
function describeRunError(run) {
	const error = run?.data?.resultData?.error;
	if (!error) return 'no error recorded';
	const node = error.node?.name ? ` in node "${error.node.name}"` : '';
	return `${error.message}${node}${error.description ? ` (${error.description})` : ''}`;
}

/**
 * Runs a saved workflow from its manual trigger with `n8n execute` and
 * resolves to n8n's full run object (`{ status, data: { resultData } }`).
 * Rejects with a WorkflowExecutionError carrying that object when the run failed.
 */
async function executeWorkflow(n8n, id) {
	let stdout;
	try {
		stdout = await n8n.runCli(['execute', `--id=${id}`, '--rawOutput']);
	} catch (error) {
		// A failed run exits 1 after logging the run as JSON; surface n8n's own error.
		const run = error.stdout && parseRunOutput(error.stdout);
		if (!run) throw error;
		throw new WorkflowExecutionError(`workflow ${id} failed: ${describeRunError(run)}`, run);
	}
	const run = parseRunOutput(stdout);
	if (!run) throw new Error(`n8n execute --id=${id} printed no run data:\n${stdout.slice(-2000)}`);
	// n8n 2.0 (`npm run test:compat`) prints a finished, successful run with
	// the status it had while running.
	if (run.status === 'running' && run.finished === true && !run.data?.resultData?.error) run.status = 'success';
	return run;
}

/** The JSON items a node produced on its first output in a run. */
function nodeOutput(run, nodeName, { runIndex = 0, output = 0 } = {}) {
	const taskData = run.data.resultData.runData[nodeName];
	if (!taskData) throw new Error(`node "${nodeName}" did not run; ran: ${Object.keys(run.data.resultData.runData).join(', ')}`);
	const task = taskData[runIndex];
	if (task.error) throw new Error(`node "${nodeName}" failed: ${task.error.message}`);
	return (task.data.main[output] ?? []).map((item) => item.json);
}

module.exports = { importCredentials, importWorkflows, executeWorkflow, nodeOutput, WorkflowExecutionError, parseRunOutput, describeRunError };
