import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

/** Whether the node runs as a tool: n8n wraps a `usableAsTool` node in a copy whose type name ends in `Tool`, and recognises tools the same way. */
export function isToolNode(node: INode): boolean {
	const name = node.type.split('.').pop() ?? '';
	return name.endsWith('Tool');
}

/** The keys of the `$fromAI('key', ...)` calls in a parameter value (an expression), in order. */
const FROM_AI = /\$fromAI\s*\(\s*(['"`])([^'"`]+)\1/g;

function fromAiKeysIn(value: unknown): string[] {
	if (typeof value === 'string') return Array.from(value.matchAll(FROM_AI), (match) => match[2]);
	if (value && typeof value === 'object') {
		// A resource locator keeps the expression in `value`; collections hold further parameters.
		return Object.values(value as IDataObject).flatMap(fromAiKeysIn);
	}
	return [];
}

/** The value of a parameter of the node by its path ("text", "options.clientRequestId"). */
function parameterAt(node: INode, path: string): unknown {
	let value: unknown = node.parameters;
	for (const part of path.split('.')) {
		if (!value || typeof value !== 'object') return undefined;
		value = (value as IDataObject)[part];
	}
	return value;
}

/** Every argument the tool takes from the model ($fromAI keys in all its parameters), without repeats. */
export function toolArguments(node: INode): string[] {
	return [...new Set(fromAiKeysIn(node.parameters))];
}

/** What a tool call can tell the model about a parameter it failed on. */
export interface ToolParameter {
	/** The parameter's display name, as workflow-mode messages quote it. */
	label: string;
	/** Its path in the node's parameters. */
	path: string;
	/** The $fromAI key that fills it; undefined when the workflow fixes its value. */
	argument?: string;
}

function shownFor(property: INodeProperties, resource: string, operation: string): boolean {
	const show = property.displayOptions?.show;
	const resources = show?.resource as unknown[] | undefined;
	const operations = show?.operation as unknown[] | undefined;
	return (!resources || resources.includes(resource)) && (!operations || operations.includes(operation));
}

/** Finds the current operation's parameters by display name (top level and in collections), and the $fromAI key of each. */
export class ToolParameters {
	private readonly byLabel = new Map<string, ToolParameter>();

	/** Every argument the tool takes from the model. */
	readonly arguments: string[];

	constructor(
		private readonly node: INode,
		properties: INodeProperties[],
		resource: string,
		operation: string,
	) {
		this.arguments = toolArguments(node);
		for (const property of properties) {
			if (!shownFor(property, resource, operation)) continue;
			this.add(property.displayName, property.name);
			if (property.type === 'collection') {
				for (const option of (property.options ?? []) as INodeProperties[]) {
					if ('type' in option) this.add(option.displayName, `${property.name}.${option.name}`);
				}
			}
		}
	}

	private add(label: string, path: string): void {
		if (this.byLabel.has(label)) return;
		const [argument] = fromAiKeysIn(parameterAt(this.node, path));
		this.byLabel.set(label, { label, path, argument });
	}

	get(label: string): ToolParameter | undefined {
		return this.byLabel.get(label);
	}

	/** The parameter at a path, e.g. the one a failed API call was built from. */
	atPath(path: string): ToolParameter | undefined {
		for (const parameter of this.byLabel.values()) if (parameter.path === path) return parameter;
		return undefined;
	}

	/** An editor text with each quoted display name ('Primary Contact') replaced by the argument that fills it ('primaryContactId'). */
	rewrite(text: string): string {
		return text.replace(/'([^']+)'/g, (quoted, label: string) => {
			const argument = this.byLabel.get(label)?.argument;
			return argument ? `'${argument}'` : quoted;
		});
	}
}
