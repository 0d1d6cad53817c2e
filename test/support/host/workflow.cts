/**
 * What the trigger hosts share: a node type loaded as a fresh n8n process
 * would load it, and the published one-node workflow n8n builds around it.
 */
import { Workflow } from 'n8n-workflow';
import type { IDataObject, INode, INodeType, INodeTypes } from 'n8n-workflow';

/**
 * The node type from a fresh module registry: a new n8n "process" (or a
 * restart), so module-level state starts empty.
 */
export function freshNodeType(load: () => INodeType): INodeType {
	let nodeType: INodeType | undefined;
	jest.isolateModules(() => {
		nodeType = load();
	});
	return nodeType!;
}

/** A published workflow holding `node` of `type`, with the static data n8n loaded from its database. */
export function publishedWorkflow(id: string, name: string, node: INode, type: INodeType, staticData: IDataObject): Workflow {
	const nodeTypes: INodeTypes = {
		getByName: () => type,
		getByNameAndVersion: () => type,
		getKnownTypes: () => ({}),
	};
	return new Workflow({ id, name, nodes: [node], connections: {}, active: true, nodeTypes, staticData });
}
