/**
 * A small stand-in for the parts of n8n 2.40 that drive a polling trigger,
 * built on n8n-core's real PollContext. What it copies from n8n
 * (n8n-core execution-engine: active-workflow-triggers, poll-trigger-executor;
 * cli: active-workflow-manager, trigger-execution-context.factory):
 * - an activation (publish, n8n start) loads the workflow and its static data
 *   from the "database", runs one poll at once, and saves the static data
 *   when it changed;
 * - a scheduled poll runs on the activation's workflow object (two polls of
 *   one activation share its static data: n8n does not stop a poll that
 *   overlaps the next), and a poll that returns items saves the static data
 *   before the execution runs; one that returns null saves nothing;
 * - Fetch Test Event runs the poll in "manual" mode and never saves;
 * - n8n's poll executor takes the workflow's expression isolate before every
 *   scheduled poll and releases it after, without counting, while overlapping
 *   polls share it (n8n-core poll-trigger-executor, @n8n/expression-runtime):
 *   `isolate` copies that, and the credential's header (an expression in n8n)
 *   cannot be resolved while it is released.
 * A "restart" gives the node fresh module state (new process); the database stays.
 */
import './environment.cjs';

import { randomUUID } from 'crypto';

import { PollContext } from 'n8n-core';
import type { Workflow } from 'n8n-workflow';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
} from 'n8n-workflow';

import { OmnichannelApi } from '../../../credentials/OmnichannelApi.credentials';
import { API_KEY } from '../fake-polling-api.cjs';
import { CredentialsHelper } from './credentials.cjs';
import { freshNodeType, publishedWorkflow } from './workflow.cjs';

const NODE_NAME = 'Omnichannel Polling Trigger';
const NODE_TYPE = 'n8n-nodes-omnichannel.omnichannelPollingTrigger';
const credentialType = new OmnichannelApi();

export function loadPollingType(): INodeType {
	return freshNodeType(() => {
		const { OmnichannelPollingTrigger } = require('../../../nodes/OmnichannelPollingTrigger/OmnichannelPollingTrigger.node');
		return new OmnichannelPollingTrigger() as INodeType;
	});
}

/** The workflow's expression isolate as n8n 2.40's poll executor handles it: taken and released per poll, not counted. */
export interface Isolate {
	held: boolean;
}

export type PollOutcome = IDataObject[] | null;

export class PollHost {
	readonly node: INode;

	/** The workflow row's static data, as JSON, as n8n keeps it in its database. */
	savedStaticData = '{}';

	/** The items of every execution a production poll started, in order. */
	readonly executions: IDataObject[][] = [];

	/** Held during activation polls and scheduled polls, as n8n does; Fetch Test Event holds its own. */
	readonly isolate: Isolate = { held: false };

	private nodeType: INodeType;

	private workflow?: Workflow;

	constructor(
		private readonly baseUrl: string,
		parameters: INodeParameters,
	) {
		this.node = {
			id: randomUUID(),
			name: NODE_NAME,
			type: NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters,
			credentials: { omnichannelApi: { id: 'cred1', name: 'Omnichannel' } },
		};
		this.nodeType = loadPollingType();
	}

	setParameters(parameters: INodeParameters): void {
		this.node.parameters = parameters;
	}

	/** Publishing the workflow (or n8n starting with it published): load, poll at once, save. */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<PollOutcome> {
		this.workflow = this.newWorkflow(JSON.parse(this.savedStaticData) as IDataObject);
		const items = await this.run(this.workflow, 'trigger', activation);
		this.save(this.workflow);
		return this.emitted(items);
	}

	/** A scheduled poll of the current activation. */
	async poll(): Promise<PollOutcome> {
		if (!this.workflow) throw new Error('activate first');
		const workflow = this.workflow;
		const items = await this.run(workflow, 'trigger', 'activate');
		if (items !== null) this.save(workflow);
		return this.emitted(items);
	}

	/**
	 * A poll as n8n's durable poll cursors run it (N8N_POLLER_DURABLE_CURSORS_ENABLED,
	 * n8n 2.40 and later: trigger-execution-context.factory's __runPoll): a new
	 * workflow object with its own copy of the saved static data and its own
	 * isolate; whatever the copy changed is saved, with the execution when the
	 * poll emitted, alone when it returned null.
	 */
	async pollOnCopy(): Promise<PollOutcome> {
		const { outcome, save } = await this.pollOnCopyUnsaved();
		save();
		return outcome;
	}

	/** pollOnCopy, with the save left to the caller: n8n saves an emitting poll's state with its execution, after the poll returned. */
	async pollOnCopyUnsaved(): Promise<{ outcome: PollOutcome; save: () => void }> {
		const workflow = this.newWorkflow(JSON.parse(this.savedStaticData) as IDataObject);
		const items = await this.run(workflow, 'trigger', 'activate', { held: false });
		return { outcome: this.emitted(items), save: () => this.save(workflow) };
	}

	/** n8n stops and starts again: fresh module state, the database stays, activation mode "init". */
	async restart(): Promise<PollOutcome> {
		this.nodeType = loadPollingType();
		return await this.activate('init');
	}

	/** Fetch Test Event: a manual run on a copy of the workflow, never saved. */
	async fetchTestEvent(): Promise<IDataObject[]> {
		const workflow = this.newWorkflow(JSON.parse(this.savedStaticData) as IDataObject);
		const items = await this.run(workflow, 'manual', 'manual');
		return (items?.[0] ?? []).map((item) => item.json);
	}

	/** The node's slot of the static data as last saved. */
	nodeStaticData(): IDataObject | undefined {
		return (JSON.parse(this.savedStaticData) as IDataObject)[`node:${NODE_NAME}`] as IDataObject | undefined;
	}

	/** Every record id emitted so far, in emission order. */
	emittedIds(): string[] {
		return this.executions.flat().map((json) => String(json.id));
	}

	private emitted(items: INodeExecutionData[][] | null): PollOutcome {
		if (items === null) return null;
		const json = (items[0] ?? []).map((item) => item.json);
		this.executions.push(json);
		return json;
	}

	private async run(workflow: Workflow, mode: 'trigger' | 'manual', activation: WorkflowActivateMode, ownIsolate?: Isolate) {
		const isolate = mode === 'manual' ? { held: true } : (ownIsolate ?? this.isolate);
		const context = new PollContext(workflow, this.node, this.additionalData(isolate), mode, activation);
		isolate.held = true;
		try {
			return await this.nodeType.poll!.call(context);
		} finally {
			if (mode !== 'manual') isolate.held = false;
		}
	}

	private newWorkflow(staticData: IDataObject): Workflow {
		return publishedWorkflow('wf1', 'Omnichannel polling test', this.node, this.nodeType, staticData);
	}

	/** WorkflowStaticDataService.saveStaticData: the whole object, only when changed. */
	private save(workflow: Workflow): void {
		if (workflow.staticData.__dataChanged === true) {
			this.savedStaticData = JSON.stringify(workflow.staticData);
			workflow.staticData.__dataChanged = false;
		}
	}

	private additionalData(isolate: Isolate): IWorkflowExecuteAdditionalData {
		return {
			credentialsHelper: new CredentialsHelper(credentialType, { baseUrl: this.baseUrl, apiKey: API_KEY }, () => {
				if (!isolate.held) throw new Error('No bridge acquired for this context. Call acquire() first.');
			}),
		} as unknown as IWorkflowExecuteAdditionalData;
	}
}
