/** The sandbox's public API and control surface (sandbox.md), for trigger tests. */
import type { INodeType } from 'n8n-workflow';

import { sandboxRequest } from '../sandboxHttp';

const { startSandbox } = require('../../../sandbox') as {
	startSandbox: (options: { port?: number; seed?: 'demo' | 'empty' }) => Promise<Sandbox>;
};

export interface Sandbox {
	base_url: string;
	control_url: string;
	app_id: string;
	key: string;
	port: number;
	close(): Promise<void>;
}

export interface DeliveryAttempt {
	event_id: string;
	type: string;
	webhook_id: string;
	url: string;
	attempt: number;
	status: number | null;
	duplicate: boolean;
	/** An injected duplicate: sent alongside the original, or after its answer. */
	copy: 'concurrent' | 'late' | null;
}

export { startSandbox };

async function call(url: string, method: string, body?: unknown, key?: string): Promise<any> {
	const answer = await sandboxRequest(url, method, body, key);
	if (answer.status < 200 || answer.status > 299) throw new Error(`${method} ${url} answered ${answer.status}: ${answer.text}`);
	return answer.body;
}

export function api(sandbox: Sandbox, method: string, path: string, body?: unknown, key = sandbox.key) {
	return call(`${sandbox.base_url}${path}`, method, body, key);
}

export function control(sandbox: Sandbox, method: string, path: string, body?: unknown) {
	return call(`${sandbox.control_url}${path}`, method, body);
}

export async function deliveries(sandbox: Sandbox): Promise<DeliveryAttempt[]> {
	return (await control(sandbox, 'GET', '/deliveries')) as DeliveryAttempt[];
}

/** Polls until `check` returns a value (bounded: fails after `timeoutMs`). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

/** Resolves after `ms`; for letting late retries or duplicates arrive. */
export function pause(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The node type from a fresh module registry: a new n8n "process" (or a restart). */
export function loadTriggerType(): INodeType {
	let nodeType: INodeType | undefined;
	jest.isolateModules(() => {
		const { OmnichannelTrigger } = require('../../../nodes/OmnichannelTrigger/OmnichannelTrigger.node');
		nodeType = new OmnichannelTrigger() as INodeType;
	});
	return nodeType!;
}
