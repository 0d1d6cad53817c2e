/**
 * The sandbox for the in-process tests: its `Sandbox` type (declared here
 * only), and helpers for its public API and its control surface (no auth).
 */

import { createServer } from 'http';
import type { AddressInfo } from 'net';

const sandboxModule = require('../../sandbox') as {
	startSandbox: (options: SandboxOptions) => Promise<Sandbox>;
};
const processModule = require('../../sandbox/process') as {
	startSandboxProcess: (seedArgs: string[]) => Promise<Omit<Sandbox, 'port'>>;
};

export interface SandboxOptions {
	port?: number;
	seed?: 'demo' | 'empty';
	contacts?: number;
	conversations?: number;
	messagesPerConversation?: number;
}

export interface Sandbox {
	base_url: string;
	control_url: string;
	app_id: string;
	key: string;
	live_key: string;
	port: number;
	close(): Promise<void>;
}

export interface Stats {
	requests: number;
	by_status: Record<string, number>;
	by_route: Record<string, number>;
	max_per_second: number;
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

export type Json = Record<string, any>;

export const startSandbox = sandboxModule.startSandbox;

/** The sandbox in a process of its own (sandbox/process.js): its clock and event loop are not the test's. */
export async function startSandboxProcess(seed: 'demo' | 'empty' = 'demo'): Promise<Sandbox> {
	const sb = await processModule.startSandboxProcess(['--seed', seed]);
	return { ...sb, port: Number(new URL(sb.base_url).port) };
}

/** One JSON request; throws unless it answers 2xx. */
async function call(url: string, method: string, body?: unknown, key?: string): Promise<any> {
	const response = await fetch(url, {
		method,
		headers: {
			...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
			...(key ? { Authorization: `Bearer ${key}` } : {}),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (response.status < 200 || response.status > 299) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
	return text ? JSON.parse(text) : undefined;
}

/** A control endpoint (no auth); throws unless it answers 2xx. */
export async function control(sb: Sandbox, method: string, path: string, body?: unknown): Promise<any> {
	return await call(`${sb.control_url}${path}`, method, body);
}

/** A public API call with the sandbox's key; throws unless it answers 2xx. */
export async function api(sb: Sandbox, method: string, path: string, body?: unknown, key = sb.key): Promise<any> {
	return await call(`${sb.base_url}${path}`, method, body, key);
}

export const stats = async (sb: Sandbox): Promise<Stats> => await control(sb, 'GET', '/stats');
export const resetStats = async (sb: Sandbox): Promise<void> => {
	await control(sb, 'DELETE', '/stats');
};
export const setFaults = async (sb: Sandbox, faults: Json): Promise<Json> => await control(sb, 'PUT', '/faults', faults);
export const clearFaults = async (sb: Sandbox): Promise<void> => {
	await control(sb, 'DELETE', '/faults');
};

/** The stored view of a message, with attribution and media details. */
export const storedMessage = async (sb: Sandbox, id: string): Promise<Json> =>
	await control(sb, 'GET', `/messages/${encodeURIComponent(id)}`);

/** A new conversation on an active channel of the seeded workspace. */
export async function newConversation(sb: Sandbox, channelType = 'livechat'): Promise<Json> {
	const channels = await api(sb, 'GET', '/channels?per_page=100');
	const channel = channels.data.find((ch: Json) => ch.type === channelType && ch.is_active);
	return await control(sb, 'POST', '/conversations', { channel_id: channel.id });
}

/** Every message of a conversation, through the public API. */
export async function messagesOf(sb: Sandbox, conversationId: string): Promise<Json[]> {
	const all: Json[] = [];
	for (let page = 1; ; page++) {
		const body = await api(sb, 'GET', `/messages?conversation_id=${conversationId}&per_page=500&page=${page}`);
		all.push(...body.data);
		if (!body.has_next) return all;
	}
}

/** An empty workspace with a key of its own, so that its statistics are the caller's alone. */
export async function newWorkspace(sb: Sandbox): Promise<{ app_id: string; baseUrl: string; apiKey: string }> {
	const { app_id } = (await control(sb, 'POST', '/workspaces', {})) as { app_id: string };
	const { key } = (await control(sb, 'POST', '/keys', { app_id, mode: 'test' })) as { key: string };
	return { app_id, baseUrl: sb.base_url, apiKey: key };
}

/** Every contact of the workspace a key belongs to, through the public API. */
export async function allContacts(sb: Sandbox, key = sb.key): Promise<Json[]> {
	const all: Json[] = [];
	for (let page = 1; ; page++) {
		const body = await api(sb, 'GET', `/contacts?per_page=500&page=${page}`, undefined, key);
		all.push(...body.data);
		if (!body.has_next) return all;
	}
}

/** The webhook deliveries the sandbox attempted so far. */
export async function deliveries(sb: Sandbox): Promise<DeliveryAttempt[]> {
	return (await control(sb, 'GET', '/deliveries')) as DeliveryAttempt[];
}

/** Polls until `check` returns a value (bounded: fails after `timeoutMs`). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await pause(25);
	}
}

/** Resolves after `ms`; for letting late retries or duplicates arrive. */
export function pause(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A proxy in front of the sandbox, to act between two requests of a node:
 * `after(method, url)` runs once the sandbox answered a request, before the
 * node gets the answer.
 */
export async function startProxy(sb: Sandbox, after: (method: string, url: URL) => Promise<void>): Promise<{ baseUrl: string; close: () => Promise<void> }> {
	const target = new URL(sb.base_url);
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			void (async () => {
				const url = new URL(req.url ?? '/', target.origin);
				const headers: Record<string, string> = {};
				for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
				const answer = await fetch(url, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
				const body = Buffer.from(await answer.arrayBuffer());
				await after(req.method ?? 'GET', url);
				res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
				res.end(body);
			})();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
