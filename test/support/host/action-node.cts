/**
 * Runs the Omnichannel node inside n8n's real workflow engine: n8n-core's
 * WorkflowExecute drives a one-node workflow whose node type is the class
 * compiled to dist/ (run `npm run build` first), with a credentials helper that
 * applies the credential's `authenticate` (a generic one through n8n's expression
 * engine), as n8n's own CredentialsHelper does. List searches run through
 * n8n-core's LoadOptionsContext. Nothing of the node is mocked: its requests
 * go to the sandbox over HTTP.
 *
 * Everything a run produces (output, errors) is recorded, so a test can check
 * that no API key ever appears in it (see `assertNoSecretLeaked`).
 */
import './environment.cjs';

import { CredentialsHelper } from './credentials.cjs';
import type { Credentials } from './credentials.cjs';
import { ProcessedDataTable } from './processed-data.cjs';

import { existsSync } from 'fs';
import { join } from 'path';

import { Container } from '@n8n/di';
import { DataDeduplicationService, ErrorReporter, ExecutionLifecycleHooks, LoadOptionsContext, WorkflowExecute } from 'n8n-core';
import { Workflow } from 'n8n-workflow';
import type {
	ICheckProcessedOptions,
	IConnections,
	ICredentialType,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

const DIST = join(__dirname, '..', '..', '..', 'dist');
export const NODE_TYPE = 'n8n-nodes-omnichannel.omnichannel';
export const NODE_NAME = 'Omnichannel';
const WORKFLOW_ID = 'wf_node_tests';

function loadBuilt<T>(relativePath: string, exportName: string): T {
	const file = join(DIST, relativePath);
	if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` before the node tests`);
	const Class = require(file)[exportName] as new () => T;
	return new Class();
}

export const nodeType = loadBuilt<INodeType>('nodes/Omnichannel/Omnichannel.node.js', 'Omnichannel');
const credentialType = loadBuilt<ICredentialType>('credentials/OmnichannelApi.credentials.js', 'OmnichannelApi');

const nodeTypes: INodeTypes = {
	getByName: (type) => {
		if (type !== NODE_TYPE) throw new Error(`Unknown node type ${type}`);
		return nodeType;
	},
	getByNameAndVersion: (type) => nodeTypes.getByName(type) as INodeType,
	getKnownTypes: () => ({ [NODE_TYPE]: { className: 'Omnichannel', sourcePath: DIST } }),
};

export type { Credentials };

/**
 * n8n's de-duplication store (`this.helpers.checkProcessedAndRecord` and the
 * rest), with the races of n8n's own: the node's database lock runs on it.
 */
export const processedData = new ProcessedDataTable();
type Scope = 'node' | 'workflow';
interface DeduplicationContext {
	workflow: { id: string };
	node?: { id: string };
}
const rowsOf = (context: DeduplicationContext) => processedData.helpers(context.workflow.id, context.node?.id ?? '');
void DataDeduplicationService.init({
	checkProcessedAndRecord: async (items: string[], scope: Scope, context: DeduplicationContext, options: ICheckProcessedOptions) =>
		await rowsOf(context).checkProcessedAndRecord(items, scope, options),
	clearAllProcessedItems: async (scope: Scope, context: DeduplicationContext) => await rowsOf(context).clearAllProcessedItems(scope),
} as unknown as Parameters<typeof DataDeduplicationService.init>[0]);

/** Secrets handed to the node; no output or error may ever contain one. */
const secrets = new Set<string>();
/** Serialized outputs and errors of every run and list search so far. */
const produced: string[] = [];

function rememberSecret(apiKey: string): void {
	if (!apiKey) return;
	secrets.add(apiKey);
	// The secret part alone is a leak too.
	const dot = apiKey.indexOf('.');
	if (dot > 0 && apiKey.length - dot > 8) secrets.add(apiKey.slice(dot + 1));
}

function record(value: unknown): void {
	const seen = new WeakSet<object>();
	const text = JSON.stringify(value, (_key, inner: unknown) => {
		if (inner instanceof Error) {
			const plain: IDataObject = { name: inner.name, message: inner.message, stack: inner.stack };
			for (const key of Object.keys(inner)) plain[key] = (inner as unknown as IDataObject)[key];
			if ('description' in inner) plain.description = (inner as { description?: string }).description;
			if (inner.cause) plain.cause = inner.cause as IDataObject;
			return plain;
		}
		if (inner && typeof inner === 'object') {
			if (seen.has(inner)) return '[circular]';
			seen.add(inner);
		}
		if (Buffer.isBuffer(inner)) return `[buffer ${inner.length}]`;
		return inner;
	});
	produced.push(text ?? String(value));
}

/** Whether the text contains one of the API keys (or secret parts) given to the node so far. */
export function containsSecret(text: string): boolean {
	for (const secret of secrets) if (text.includes(secret)) return true;
	return false;
}

// What n8n hands its error reporting (Sentry in production) is recorded like
// any other error, instead of being printed.
Container.get(ErrorReporter).error = (error: unknown, options?: unknown) => record({ reported: error, options });

/** Fails when any output or error recorded so far contains an API key or its secret. */
export function assertNoSecretLeaked(): { outputs: number; secrets: number } {
	const leaks = produced.filter(containsSecret);
	if (leaks.length > 0) {
		throw new Error(`${leaks.length} node outputs or errors contain an API key (or its secret part)`);
	}
	return { outputs: produced.length, secrets: secrets.size };
}

function additionalDataFor(
	credentials: Credentials,
	executionId: string | undefined,
	hooks?: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	rememberSecret(credentials.apiKey);
	const unsupported = async () => {
		throw new Error('Not available in the node test harness');
	};
	return {
		hooks,
		credentialsHelper: new CredentialsHelper(credentialType, credentials),
		executionId,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		variables: {},
		currentNodeParameters: undefined,
		executeWorkflow: unsupported,
		getRunExecutionData: unsupported,
		startRunnerTask: unsupported,
		logAiEvent: () => {},
	} as unknown as IWorkflowExecuteAdditionalData;
}

function omnichannelNode(parameters: INodeParameters, settings: Partial<INode> = {}): INode {
	return {
		id: 'c0ffee00-0000-4000-8000-000000000001',
		name: NODE_NAME,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { omnichannelApi: { id: 'cred_1', name: 'Omnichannel account' } },
		...settings,
	};
}

function workflowWith(node: INode, timezone?: string): Workflow {
	const settings = timezone ? { timezone } : {};
	return new Workflow({ id: WORKFLOW_ID, nodes: [node], connections: {}, nodeTypes, active: false, settings });
}

let executionCounter = 0;
export const newExecutionId = (): string => `exec_${process.pid}_${++executionCounter}_${Date.now()}`;

export interface RunOptions {
	parameters: INodeParameters;
	credentials: Credentials;
	/** Input items of the node; one empty item by default. */
	items?: INodeExecutionData[];
	/** Same id = the same execution (e.g. to replay it); new one by default. */
	executionId?: string;
	/** Node settings: onError ('continueRegularOutput' = Continue On Fail), retryOnFail, maxTries, waitBetweenTries. */
	settings?: Partial<INode>;
	mode?: WorkflowExecuteMode;
	/** The workflow's time zone setting (n8n's default otherwise). */
	timezone?: string;
}

export interface RunResult {
	status: IRun['status'];
	/** Output items of the node's last run. */
	items: INodeExecutionData[];
	json: IDataObject[];
	/** The error that stopped the node, if any. */
	error?: IDataObject & { message: string; description?: string; httpCode?: string; context?: IDataObject };
	run: IRun;
	executionId: string;
	node: INode;
}

/**
 * Runs `workflow` from `startNode` with `items` through n8n-core's
 * WorkflowExecute, as n8n runs a workflow, and resolves with the finished run.
 * Without an execution id (n8n's MCP Server Trigger gives tools none) the
 * lifecycle hooks still get one, the node does not.
 */
async function executeFrom(
	workflow: Workflow,
	settings: {
		name: string;
		nodes: INode[];
		connections: IConnections;
		startNode: INode;
		items: INodeExecutionData[];
		mode: WorkflowExecuteMode;
		executionId: string | undefined;
		credentials: Credentials;
	},
): Promise<IRun> {
	const hooks = new ExecutionLifecycleHooks(settings.mode, settings.executionId ?? newExecutionId(), {
		id: WORKFLOW_ID,
		name: settings.name,
		active: false,
		activeVersionId: null,
		isArchived: false,
		nodes: settings.nodes,
		connections: settings.connections,
		createdAt: new Date(),
		updatedAt: new Date(),
	});
	const finished = new Promise<IRun>((resolve) => hooks.addHandler('workflowExecuteAfter', (run) => resolve(run)));
	const runExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [{ node: settings.startNode, data: { main: [settings.items] }, source: null }],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	} as unknown as IRunExecutionData;
	const additionalData = additionalDataFor(settings.credentials, settings.executionId, hooks);
	await new WorkflowExecute(additionalData, settings.mode, runExecutionData).processRunExecutionData(workflow);
	return await finished;
}

/** Runs the node through WorkflowExecute, as n8n runs a workflow's node. */
export async function runNode(options: RunOptions): Promise<RunResult> {
	const executionId = options.executionId ?? newExecutionId();
	const mode = options.mode ?? 'manual';
	const node = omnichannelNode(options.parameters, options.settings);
	const run = await executeFrom(workflowWith(node, options.timezone), {
		name: 'Node test',
		nodes: [node],
		connections: {},
		startNode: node,
		items: options.items ?? [{ json: {} }],
		mode,
		executionId,
		credentials: options.credentials,
	});
	record(run.data.resultData);

	const taskData = run.data.resultData.runData[NODE_NAME]?.at(-1);
	const items = taskData?.data?.main?.[0] ?? [];
	const error = (taskData?.error ?? run.data.resultData.error) as RunResult['error'];
	if (error) record({ error, json: typeof (error as { toJSON?: unknown }).toJSON === 'function' ? error : undefined });
	return { status: run.status, items, json: items.map((item) => item.json), error, run, executionId, node };
}

/** Calls one of the node's list searches through n8n-core's LoadOptionsContext. */
export async function listSearch(
	method: string,
	credentials: Credentials,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const node = omnichannelNode({ resource: 'message', operation: 'sendText' });
	const context = new LoadOptionsContext(
		workflowWith(node),
		node,
		additionalDataFor(credentials, undefined),
		'parameters.conversationId',
	);
	const search = nodeType.methods?.listSearch?.[method];
	if (!search) throw new Error(`The node has no list search ${method}`);
	try {
		const result = await search.call(context, filter, paginationToken);
		record(result);
		return result;
	} catch (error) {
		record(error);
		throw error;
	}
}

/** The type n8n gives the node's AI-tool variant (n8n's convertNodeToAiTool: name + 'Tool', an ai_tool output). */
export const TOOL_TYPE = `${NODE_TYPE}Tool`;
const AGENT_TYPE = 'test.agent';
const AGENT_NAME = 'Agent';

export interface ToolCallOutcome {
	/** What the tool returned to the model (n8n's JSON text of the output items), parsed. */
	result?: unknown;
	/** The error the model sees: n8n's message, with "Details: <description>" appended by n8n. */
	error?: string;
}

export interface ToolRunResult {
	name: string;
	description: string;
	/** The tool's input schema as n8n builds it from the $fromAI() calls (a zod object). */
	schemaKeys: string[];
	outcomes: ToolCallOutcome[];
}

/**
 * Calls the node as an AI agent's tool, through n8n-core's own tool machinery
 * (createNodeAsTool, makeHandleToolInvocation, the $fromAI schema): a stand-in
 * agent node gets the tool with getInputConnectionData and invokes it once per
 * entry of `calls`, each a model's arguments. `executionId: null` runs without
 * an execution id, as n8n's MCP Server Trigger does.
 */
export async function runAsTool(options: {
	parameters: INodeParameters;
	credentials: Credentials;
	calls: IDataObject[];
	nodeName?: string;
	executionId?: string | null;
}): Promise<ToolRunResult> {
	const toolNodeName = options.nodeName ?? 'Omnichannel Tool';
	const toolType = {
		description: {
			...nodeType.description,
			name: `${nodeType.description.name}Tool`,
			displayName: `${nodeType.description.displayName} Tool`,
			inputs: [],
			outputs: ['ai_tool'],
		},
		methods: nodeType.methods,
		execute: nodeType.execute,
	} as unknown as INodeType;
	const run: ToolRunResult = { name: '', description: '', schemaKeys: [], outcomes: [] };
	const agentType = {
		description: {
			displayName: 'Agent',
			name: 'agent',
			group: ['transform'],
			version: 1,
			description: 'Calls its tool',
			defaults: { name: AGENT_NAME },
			inputs: ['main', { type: 'ai_tool', displayName: 'Tools' }],
			outputs: ['main'],
			properties: [],
		},
		async execute(this: import('n8n-workflow').IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const [tool] = (await this.getInputConnectionData('ai_tool' as never, 0)) as Array<{
				name: string;
				description: string;
				schema: { shape: Record<string, unknown> };
				invoke: (args: IDataObject) => Promise<string>;
			}>;
			run.name = tool.name;
			run.description = tool.description;
			run.schemaKeys = Object.keys(tool.schema.shape);
			for (const args of options.calls) {
				try {
					run.outcomes.push({ result: JSON.parse(await tool.invoke(args)) as unknown });
				} catch (error) {
					run.outcomes.push({ error: (error as Error).message });
				}
			}
			return [[{ json: {} }]];
		},
	} as unknown as INodeType;
	const types: INodeTypes = {
		getByName: (type) => {
			if (type === TOOL_TYPE) return toolType;
			if (type === AGENT_TYPE) return agentType;
			throw new Error(`Unknown node type ${type}`);
		},
		getByNameAndVersion: (type) => types.getByName(type) as INodeType,
		getKnownTypes: () => ({}),
	};
	const toolNode: INode = {
		...omnichannelNode(options.parameters),
		name: toolNodeName,
		type: TOOL_TYPE,
	};
	const agentNode: INode = { id: 'agent-0001', name: AGENT_NAME, type: AGENT_TYPE, typeVersion: 1, position: [0, 0], parameters: {} };
	const connections = { [toolNodeName]: { ai_tool: [[{ node: AGENT_NAME, type: 'ai_tool', index: 0 }]] } };
	const workflow = new Workflow({
		id: WORKFLOW_ID,
		nodes: [agentNode, toolNode],
		connections: connections as never,
		nodeTypes: types,
		active: false,
	});
	const executionId = options.executionId === undefined ? newExecutionId() : options.executionId;
	const result = await executeFrom(workflow, {
		name: 'Tool test',
		nodes: [agentNode, toolNode],
		connections: connections as never,
		startNode: agentNode,
		items: [{ json: {} }],
		mode: 'manual',
		executionId: executionId ?? undefined,
		credentials: options.credentials,
	});
	record(run);
	record(result.data.resultData);
	if (result.status !== 'success') throw new Error(`the stand-in agent failed: ${JSON.stringify(result.data.resultData.error)}`);
	return run;
}
