'use strict';
// Builds workflow JSON for import:workflow. Parameters given to our nodes are
// checked against the built node descriptions first: n8n silently drops a
// parameter it does not know, so a renamed one would otherwise turn into a
// confusing wrong result instead of a clear failure.
const crypto = require('crypto');
const path = require('path');

const { NODE_TYPES } = require('./node-types');
const { REPO_ROOT, assertBuilt } = require('./package');

const BUILT_NODES = {
	[NODE_TYPES.action]: ['Omnichannel', 'Omnichannel'],
	[NODE_TYPES.trigger]: ['OmnichannelTrigger', 'OmnichannelTrigger'],
	[NODE_TYPES.memory]: ['OmnichannelChatMemory', 'OmnichannelChatMemory'],
};

function builtDescription(type) {
	assertBuilt();
	const [folder, className] = BUILT_NODES[type];
	const file = path.join(REPO_ROOT, 'dist', 'nodes', folder, `${folder}.node.js`);
	return new (require(file)[className])().description;
}

/** Every property name a collection/fixedCollection may hold, by parent name. */
function knownNames(properties) {
	const top = new Set();
	const nested = new Map();
	for (const property of properties) {
		top.add(property.name);
		// A collection's options, or a fixedCollection's groups (e.g. `values`) and the fields inside them.
		const children = (property.options ?? []).flatMap((option) =>
			option.values ? [option, ...option.values] : option.name && option.type ? [option] : [],
		);
		if (children.length > 0) {
			const names = nested.get(property.name) ?? new Set();
			children.forEach((child) => names.add(child.name));
			nested.set(property.name, names);
		}
	}
	return { top, nested };
}

function assertKnownParameters(type, nodeName, parameters) {
	const { top, nested } = knownNames(builtDescription(type).properties);
	for (const [name, value] of Object.entries(parameters)) {
		if (!top.has(name)) throw new Error(`node "${nodeName}": ${type} has no parameter "${name}"`);
		const children = nested.get(name);
		if (!children || value === null || typeof value !== 'object' || Array.isArray(value) || value.__rl) continue;
		for (const child of Object.keys(value)) {
			if (!children.has(child)) throw new Error(`node "${nodeName}": "${name}" of ${type} has no option "${child}"`);
		}
	}
}

/** Checks the parameters of every node of ours in a workflow (e.g. a shipped example). */
function checkWorkflowParameters(workflow) {
	for (const n of workflow.nodes) {
		if (BUILT_NODES[n.type]) assertKnownParameters(n.type, n.name, n.parameters ?? {});
	}
}

/** Any n8n node; `extra` holds node settings such as executeOnce or credentials. */
function node(name, type, parameters = {}, { typeVersion = 1, ...extra } = {}) {
	if (BUILT_NODES[type]) assertKnownParameters(type, name, parameters);
	return { id: crypto.randomUUID(), name, type, typeVersion, position: [0, 0], parameters, ...extra };
}

const credentialRef = (credential) => ({ omnichannelApi: { id: credential.id, name: credential.name } });

/** Our action node, bound to an import:credentials entry. */
const omnichannelNode = (name, credential, parameters, extra = {}) =>
	node(name, NODE_TYPES.action, parameters, { credentials: credentialRef(credential), ...extra });

/** Our trigger node; the webhookId gives it a stable production URL. */
/** The trigger (its one version, 2); `extra.credentials` replaces the API credential, e.g. with a signing-secret one. */
const omnichannelTrigger = (name, credential, parameters, extra = {}) =>
	node(name, NODE_TYPES.trigger, parameters, {
		typeVersion: 2,
		credentials: credentialRef(credential),
		webhookId: crypto.randomUUID(),
		...extra,
	});

const manualTrigger = (name = 'Start') => node(name, 'n8n-nodes-base.manualTrigger');

/** A resource-locator value "By ID" (a literal ID or an `=` expression). */
const byId = (value) => ({ __rl: true, mode: 'id', value });

/** Consecutive pairs [a, b], [b, c], ... of node names, for `connections`. */
const chain = (...names) => names.slice(1).map((name, index) => [names[index], name]);

/**
 * A workflow for import:workflow. `connections` is a list of [from, to] node
 * names (main output 0 to main input 0); nodes are laid out left to right.
 */
function workflow({ id, name, nodes, connections }) {
	const wired = {};
	for (const [from, to] of connections) {
		for (const end of [from, to]) {
			if (!nodes.some((n) => n.name === end)) throw new Error(`workflow ${id}: no node named "${end}"`);
		}
		wired[from] ??= { main: [[]] };
		wired[from].main[0].push({ node: to, type: 'main', index: 0 });
	}
	const laidOut = nodes.map((n, index) => ({ ...n, position: [index * 240, (index % 2) * 80] }));
	return { id, name, active: false, nodes: laidOut, connections: wired, settings: { executionOrder: 'v1' }, pinData: {} };
}

module.exports = { checkWorkflowParameters, node, omnichannelNode, omnichannelTrigger, manualTrigger, byId, chain, workflow };
