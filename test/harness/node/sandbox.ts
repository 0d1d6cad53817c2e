/** The sandbox (test/sandbox, sandbox.md) with typed helpers for the node tests. */
import { sandboxRequest } from '../sandboxHttp';

const sandboxModule = require('../../../sandbox') as {
	startSandbox: (options: SandboxOptions) => Promise<Sandbox>;
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

export type Json = Record<string, any>;

export const startSandbox = sandboxModule.startSandbox;

/** A control endpoint (no auth); throws unless it answers 2xx. */
export async function control(sb: Sandbox, method: string, path: string, body?: unknown): Promise<any> {
	const answer = await sandboxRequest(`${sb.control_url}${path}`, method, body);
	if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
	return answer.body;
}

/** A public API call with the sandbox's key; throws unless it answers 2xx. */
export async function api(sb: Sandbox, method: string, path: string, body?: unknown, key = sb.key): Promise<any> {
	const answer = await sandboxRequest(`${sb.base_url}${path}`, method, body, key);
	if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
	return answer.body;
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
