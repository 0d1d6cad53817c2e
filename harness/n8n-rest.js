'use strict';
// Importing and running through n8n's REST API, as the editor does, instead
// of `n8n import:*` and `n8n execute` (each a CLI start of n8n, seconds
// apiece): for an n8n that is already running (external.js, attached.js).
// n8n picks credential ids itself, so the ids a caller uses are mapped to
// them, in the workflows too.
const { N8nApiError } = require('./n8n-api');
const { WorkflowExecutionError, describeRunError } = require('./n8n-cli');
const { sleep } = require('./poll');

const UNPUBLISH_TIMEOUT_MS = 60_000;

/** Creates each credential, or updates the one of the same name and type; records the caller's id -> n8n's id in `ids`. */
async function importCredentials(api, credentials, ids) {
	const existing = (await api.rest('GET', '/credentials')) ?? [];
	for (const { id, name, type, data } of credentials) {
		const same = existing.find((c) => c.name === name && c.type === type);
		const saved = same
			? await api.rest('PATCH', `/credentials/${same.id}`, { name, type, data })
			: await api.rest('POST', '/credentials', { name, type, data });
		ids.set(id, saved?.id ?? same.id);
	}
}

/** The workflow with the caller's credential ids replaced by n8n's. */
function withCredentialIds(workflow, ids) {
	const nodes = workflow.nodes.map((node) => {
		if (!node.credentials) return node;
		const credentials = {};
		for (const [type, ref] of Object.entries(node.credentials)) {
			credentials[type] = { ...ref, id: ids.get(ref.id) ?? ref.id };
		}
		return { ...node, credentials };
	});
	return { ...workflow, nodes };
}

/** n8n 2.41 unpublishes through its publication outbox: until that is done it answers archive and delete 409. */
async function whenUnpublished(call) {
	const deadline = Date.now() + UNPUBLISH_TIMEOUT_MS;
	for (;;) {
		try {
			return await call();
		} catch (error) {
			if (!(error instanceof N8nApiError) || error.status !== 409 || Date.now() >= deadline) throw error;
			await sleep(200);
		}
	}
}

/** Unpublishes, archives and deletes a workflow (n8n deletes only archived ones), with its executions. */
async function removeWorkflow(api, id, current) {
	if (current.active || current.activeVersionId) await api.unpublishWorkflow(id);
	if (!current.isArchived) await whenUnpublished(() => api.rest('POST', `/workflows/${id}/archive`, {}));
	await whenUnpublished(() => api.rest('DELETE', `/workflows/${id}`));
}

/**
 * Creates each workflow under its own id. One of the same id left there
 * before is removed first, with its executions: callers count a workflow's
 * executions.
 */
async function importWorkflows(api, workflows, ids) {
	for (const workflow of workflows) {
		const { id, name, nodes, connections, settings, pinData } = withCredentialIds(workflow, ids);
		const current = await api.rest('GET', `/workflows/${id}`).catch(() => undefined);
		if (current) await removeWorkflow(api, id, current);
		await api.rest('POST', '/workflows', { id, name, nodes, connections, settings, pinData: pinData ?? {} });
	}
}

/**
 * Runs a saved workflow from its manual trigger, as the editor does;
 * resolves to the run in `n8n execute`'s shape, rejects with a
 * WorkflowExecutionError carrying it when the run failed.
 */
async function executeWorkflow(api, id) {
	const { nodes } = await api.rest('GET', `/workflows/${id}`);
	const trigger = nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
	if (!trigger) throw new Error(`workflow ${id} has no manual trigger to run from`);
	const run = await api.runManually(id, { trigger: trigger.name });
	if (run.status !== 'success') {
		throw new WorkflowExecutionError(`workflow ${id} failed (${run.status}): ${describeRunError(run)}`, run);
	}
	return run;
}

module.exports = { importCredentials, importWorkflows, removeWorkflow, executeWorkflow, withCredentialIds };
