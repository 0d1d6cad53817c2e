/**
 * A small stand-in for the parts of n8n that drive a webhook trigger, built on
 * n8n-core's real HookContext and WebhookContext. What it copies from n8n
 * 2.40 (packages/cli: active-workflow-manager, live-webhooks, test-webhooks,
 * webhook-helpers, middlewares/body-parser):
 * - activation: checkExists, then create when it answered false; after a
 *   failed create, delete; then static data is saved when it changed;
 *   deactivation runs delete in "internal" mode;
 * - production deliveries: the workflow and its static data are loaded from
 *   the "database" for every request, the body is read into `rawBody` and
 *   parsed (invalid JSON with a JSON content type is a 422 before the node
 *   runs), webhook() runs in "webhook" mode, and the static data is saved
 *   whole, when changed, before the answer goes out;
 * - test deliveries ("listen for event"): a workflow with empty static data,
 *   "manual" mode, static data kept in the registration only, and the test
 *   webhook removed after the first call that started an execution.
 * Several "processes" can share the database (n8n's queue mode with several
 * webhook processes); each has its own copy of the node's modules.
 */
import './environment.cjs';

import { randomUUID } from 'crypto';
import { createServer } from 'http';
import type { IncomingMessage, Server, ServerResponse } from 'http';
import type { AddressInfo } from 'net';

import { HookContext, WebhookContext } from 'n8n-core';
import type { Workflow } from 'n8n-workflow';

import { OmnichannelApi } from '../../../credentials/OmnichannelApi.credentials';
import { CredentialsHelper } from './credentials.cjs';
import type { Credentials } from './credentials.cjs';
import { ProcessedDataTable } from './processed-data.cjs';
import { freshNodeType, publishedWorkflow } from './workflow.cjs';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INode,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

export type Kind = 'production' | 'test';

export interface Execution {
	kind: Kind;
	process: number;
	json: IDataObject;
}

export interface Answer {
	kind: Kind;
	status: number;
	body: string;
}

/** A request as it reached the webhook URL, for replaying or altering it. */
export interface Received {
	kind: Kind;
	headers: Record<string, string>;
	rawBody: Buffer;
}

/**
 * What happens to a request before n8n runs the node: "process" it, answer
 * "unavailable" (503, node not run: the sender retries), or "processThenDrop"
 * (run and save as usual, then drop the connection before answering, as a
 * crash would), or "failToStart" (run the node, then fail to create the
 * execution and answer 500, as n8n does when its database or Redis fails).
 */
export type Gate = 'process' | 'unavailable' | 'processThenDrop' | 'failToStart';

export interface HostOptions {
	credentials: Credentials;
	parameters: INodeParameters;
	/** Loads the node type from a fresh module registry: one call per "process". */
	loadNodeType: () => INodeType;
	processes?: number;
}

const NODE_NAME = 'Omnichannel Trigger';
const NODE_TYPE = 'n8n-nodes-omnichannel.omnichannelTrigger';
const credentialType = new OmnichannelApi();

/** The node type from a fresh module registry: a new n8n "process" (or a restart). */
export function loadTriggerType(): INodeType {
	return freshNodeType(() => {
		const { OmnichannelTrigger } = require('../../../nodes/OmnichannelTrigger/OmnichannelTrigger.node');
		return new OmnichannelTrigger() as INodeType;
	});
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

export class TriggerHost {
	readonly node: INode;

	readonly workflowId = 'wf1';

	/** The workflow row's static data, as JSON, as n8n keeps it in its database. */
	savedStaticData = '{}';

	/** Executions whose trigger step passed the event on: their downstream nodes ran. */
	readonly executions: Execution[] = [];

	/** Executions that failed in their trigger step, with the error's message. */
	readonly failedExecutions: Array<{ kind: Kind; process: number; error: string }> = [];

	/** Executions whose trigger step found the event in the ledger: nothing ran downstream. */
	readonly duplicateExecutions: Array<Execution & { hints: string[] }> = [];

	/** n8n's `processed_data` table, shared by every "process" and kept across restarts. */
	readonly processedData = new ProcessedDataTable();

	readonly warnings: string[] = [];

	readonly answers: Answer[] = [];

	/** Deliveries answered without an execution: a newer message of their burst reached the same process during the quiet period. */
	heldInBurst(): Answer[] {
		return this.answers.filter((answer) => answer.body.includes('part of a burst'));
	}

	readonly received: Received[] = [];

	gate: (eventId: string | undefined) => Gate = () => 'process';

	/** Awaited by a request before n8n runs the node: a delivery queued in a busy process. */
	beforeNode: (eventId: string | undefined) => Promise<void> = async () => undefined;

	/** Awaited by a run after webhook() and before its static data is saved. */
	beforeSave: (eventId: string | undefined) => Promise<void> = async () => undefined;

	/** Chooses the "process" that handles a production request. */
	route: (requestNumber: number) => number = () => 0;

	private nodeTypes: INodeType[] = [];

	private server?: Server;

	private origin = '';

	private testRegistration?: { staticData: IDataObject };

	private requestCount = 0;

	constructor(private readonly options: HostOptions) {
		this.node = {
			id: randomUUID(),
			name: NODE_NAME,
			type: NODE_TYPE,
			typeVersion: 2,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: options.parameters,
			credentials: { omnichannelApi: { id: 'cred1', name: 'Omnichannel' } },
		};
		this.restart();
	}

	/** Every "process" starts again with fresh module state; the database stays. */
	restart(): void {
		this.nodeTypes = Array.from({ length: this.options.processes ?? 1 }, () => this.options.loadNodeType());
	}

	/** Manual registration's secret, in the node's signing-secret credential. */
	useSigningSecret(secret: string): void {
		this.options.credentials.signingSecret = secret;
		this.node.credentials = { ...this.node.credentials, omnichannelWebhookSigningApi: { id: 'cred2', name: 'Signing secret' } };
	}

	setParameters(parameters: INodeParameters): void {
		this.node.parameters = parameters;
	}

	async listen(port = 0): Promise<void> {
		const server = createServer((request, response) => {
			this.handle(request, response).catch((error: Error) => {
				if (!response.headersSent) response.writeHead(500);
				response.end(JSON.stringify({ message: error.message }));
			});
		});
		await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
		this.server = server;
		this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	}

	async close(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (server) {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	}

	url(kind: Kind): string {
		return `${this.origin}/${kind === 'test' ? 'webhook-test' : 'webhook'}/${this.node.webhookId}/omnichannel`;
	}

	/** Node static data as last saved to the database. */
	nodeStaticData(): IDataObject {
		return (JSON.parse(this.savedStaticData) as IDataObject)[`node:${NODE_NAME}`] as IDataObject;
	}

	/** Publishing the workflow: checkExists, create if needed, save. */
	async activate(): Promise<void> {
		const workflow = this.loadWorkflow(0);
		const hooks = this.hookContext(workflow, 'trigger', 'activate', false);
		try {
			if (!(await this.lifecycle('checkExists', hooks))) await this.lifecycle('create', hooks);
		} catch (error) {
			await this.deactivate();
			throw error;
		}
		this.save(workflow);
	}

	/** Unpublishing: delete in n8n's "internal" mode, with the static data from the database. */
	async deactivate(): Promise<boolean> {
		const workflow = this.loadWorkflow(0);
		const removed = await this.lifecycle('delete', this.hookContext(workflow, 'internal', 'update', false));
		this.save(workflow);
		return removed;
	}

	/** "Listen for test event": registers the test URL with empty, unsaved static data. */
	async listenForTestEvent(): Promise<void> {
		const workflow = this.newWorkflow(0, {});
		const hooks = this.hookContext(workflow, 'manual', 'manual', true);
		if (!(await this.lifecycle('checkExists', hooks))) await this.lifecycle('create', hooks);
		this.testRegistration = { staticData: workflow.staticData };
	}

	/** What n8n does once a test delivery started an execution, or when listening is cancelled. */
	async stopListening(): Promise<boolean> {
		const registration = this.testRegistration;
		if (!registration) return true;
		this.testRegistration = undefined;
		const workflow = this.newWorkflow(0, {});
		workflow.staticData = registration.staticData;
		return await this.lifecycle('delete', this.hookContext(workflow, 'internal', 'update', true));
	}

	isListening(): boolean {
		return this.testRegistration !== undefined;
	}

	/** WebhookService.runWebhookMethod */
	private async lifecycle(method: 'checkExists' | 'create' | 'delete', context: HookContext): Promise<boolean> {
		const run = this.nodeTypes[0].webhookMethods?.default?.[method];
		if (!run) throw new Error(`the node has no webhookMethods.default.${method}`);
		return await run.call(context);
	}

	private newWorkflow(process: number, staticData: IDataObject): Workflow {
		return publishedWorkflow(this.workflowId, 'Omnichannel trigger test', this.node, this.nodeTypes[process], staticData);
	}

	private loadWorkflow(process: number): Workflow {
		return this.newWorkflow(process, JSON.parse(this.savedStaticData) as IDataObject);
	}

	/** WorkflowStaticDataService.saveStaticData: the whole object, only when changed. */
	private save(workflow: Workflow): void {
		if (workflow.staticData.__dataChanged === true) {
			this.savedStaticData = JSON.stringify(workflow.staticData);
			workflow.staticData.__dataChanged = false;
		}
	}

	private additionalData(extra: Partial<IWorkflowExecuteAdditionalData> = {}): IWorkflowExecuteAdditionalData {
		return {
			credentialsHelper: new CredentialsHelper(credentialType, this.options.credentials),
			webhookBaseUrl: `${this.origin}/webhook`,
			webhookTestBaseUrl: `${this.origin}/webhook-test`,
			webhookWaitingBaseUrl: `${this.origin}/webhook-waiting`,
			...extra,
		} as unknown as IWorkflowExecuteAdditionalData;
	}

	private webhookData(isTest: boolean): IWebhookData {
		const type = this.nodeTypes[0];
		return {
			httpMethod: 'POST',
			node: NODE_NAME,
			path: `${this.node.webhookId}/omnichannel`,
			webhookDescription: type.description.webhooks![0],
			workflowId: this.workflowId,
			workflowExecuteAdditionalData: this.additionalData(),
			webhookId: this.node.webhookId,
			isTest,
		};
	}

	private hookContext(workflow: Workflow, mode: 'trigger' | 'manual' | 'internal', activation: 'activate' | 'manual' | 'update', isTest: boolean) {
		return new HookContext(workflow, this.node, this.additionalData(), mode, activation, this.webhookData(isTest));
	}

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const kind: Kind = request.url?.startsWith('/webhook-test/') ? 'test' : 'production';
		const path = `/${kind === 'test' ? 'webhook-test' : 'webhook'}/${this.node.webhookId}/omnichannel`;
		if (request.method !== 'POST' || request.url !== path || (kind === 'test' && !this.testRegistration)) {
			response.writeHead(404).end();
			return;
		}
		const process = kind === 'test' ? 0 : this.route(this.requestCount++);
		const rawBody = await readBody(request);
		const eventId = request.headers['x-service-webhook-id'] as string | undefined;
		this.received.push({ kind, headers: { ...(request.headers as Record<string, string>) }, rawBody });
		const gate = this.gate(eventId);
		if (gate === 'unavailable') {
			this.answer(kind, response, 503, { message: 'unavailable' });
			return;
		}
		await this.beforeNode(eventId);
		const req = request as IncomingMessage & { rawBody: Buffer; body?: unknown; params: object; query: object };
		req.rawBody = rawBody;
		req.params = {};
		req.query = {};
		const contentType = (request.headers['content-type'] ?? '').split(';')[0].trim();
		if (contentType === 'application/json' && rawBody.length > 0) {
			try {
				req.body = JSON.parse(rawBody.toString('utf8'));
			} catch {
				this.answer(kind, response, 422, { code: 422, message: 'Failed to parse request body' });
				return;
			}
		} else if (contentType === 'text/plain') {
			req.body = rawBody.toString('utf8');
		}

		let workflow: Workflow;
		if (kind === 'test') {
			workflow = this.newWorkflow(0, {});
			workflow.setTestStaticData(this.testRegistration!.staticData);
		} else {
			workflow = this.loadWorkflow(process);
		}
		const context = new WebhookContext(
			workflow,
			this.node,
			// A dropped connection loses whatever the node answers itself too.
			this.additionalData({ httpRequest: req as never, httpResponse: (gate === 'processThenDrop' ? lostResponse() : response) as never }),
			kind === 'test' ? 'manual' : 'webhook',
			this.webhookData(kind === 'test'),
			[],
			null,
		);
		const result = await this.nodeTypes[process].webhook!.call(context);
		await this.beforeSave(eventId);
		if (kind === 'production') this.save(workflow);
		if (result.workflowData && gate === 'failToStart') {
			// n8n could not create the execution (its database or Redis failed): it answers 500.
			this.answer(kind, response, 500, { message: 'There was a problem executing the workflow' });
			return;
		}
		if (result.workflowData) await this.runExecution(kind, process, result.workflowData[0] ?? []);
		if (gate === 'processThenDrop') {
			request.socket.destroy();
			return;
		}

		if (result.noWebhookResponse) {
			this.answers.push({ kind, status: response.statusCode, body: '(answered by the node)' });
			return;
		}
		if (result.workflowData === undefined) {
			this.answer(kind, response, 200, result.webhookResponse ?? { message: 'Webhook call received' });
			return;
		}
		this.answer(kind, response, 200, { message: 'Workflow was started' });
		if (kind === 'test') await this.stopListening();
	}

	/**
	 * The execution a delivery started: its first step is the trigger's
	 * execute() (as n8n's WorkflowExecute runs a start node that has one),
	 * with the database helpers of an execution context.
	 */
	private async runExecution(kind: Kind, process: number, items: INodeExecutionData[]): Promise<void> {
		const hints: string[] = [];
		// API calls (Answer a Burst Once) use n8n-core's real request helpers and the node's credential.
		const requests = this.hookContext(this.loadWorkflow(process), 'trigger', 'activate', false);
		const context = {
			getInputData: () => items,
			getNodeParameter: (name: string, _index: number, fallback: unknown) => this.node.parameters[name] ?? fallback,
			getMode: () => (kind === 'test' ? 'manual' : 'webhook'),
			getWorkflow: () => ({ id: this.workflowId, name: 'Omnichannel trigger test', active: true }),
			getNode: () => this.node,
			getCredentials: requests.getCredentials.bind(requests),
			logger: { warn: (message: string) => this.warnings.push(message), debug: () => undefined },
			helpers: {
				...this.processedData.helpers(this.workflowId, this.node.id),
				httpRequestWithAuthentication: requests.helpers.httpRequestWithAuthentication,
			},
			addExecutionHints: (...added: Array<{ message: string }>) => hints.push(...added.map((hint) => hint.message)),
		} as unknown as IExecuteFunctions;
		let output: INodeExecutionData[];
		try {
			[output] = (await this.nodeTypes[process].execute!.call(context)) as INodeExecutionData[][];
		} catch (error) {
			this.failedExecutions.push({ kind, process, error: (error as Error).message });
			throw error;
		}
		if (output.length === 0) this.duplicateExecutions.push({ kind, process, json: items[0]?.json ?? {}, hints });
		for (const item of output) this.executions.push({ kind, process, json: item.json });
	}

	private answer(kind: Kind, response: ServerResponse, status: number, body: unknown): void {
		const text = JSON.stringify(body);
		this.answers.push({ kind, status, body: text });
		response.writeHead(status, { 'Content-Type': 'application/json' }).end(text);
	}
}

/** A response whose connection is gone: what is written to it goes nowhere. */
function lostResponse(): Pick<ServerResponse, 'writeHead' | 'end'> {
	const lost = {
		writeHead: () => lost as unknown as ServerResponse,
		end: () => lost as unknown as ServerResponse,
	};
	return lost;
}
