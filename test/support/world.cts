/**
 * A workspace of its own in the sandbox, for in-process trigger tests: its
 * key, one live-chat conversation, and the ways a message enters it (a
 * customer, a person of the workspace, this package's own send).
 */
import { randomBytes } from 'crypto';

import type { IDataObject } from 'n8n-workflow';

import { SEND_KEY_PREFIX } from '../../nodes/shared/sendKeys';
import { api, control } from './sandbox.cjs';
import type { Sandbox } from './sandbox.cjs';

export interface World {
	app_id: string;
	key: string;
	conversation: string;
}

/** A workspace of its own per test, so no other test's webhook receives its events. */
export async function newWorld(sandbox: Sandbox): Promise<World> {
	const { app_id } = (await control(sandbox, 'POST', '/workspaces', {})) as { app_id: string };
	const { key } = (await control(sandbox, 'POST', '/keys', { app_id, mode: 'test' })) as { key: string };
	const channel = (await control(sandbox, 'POST', '/channels', { app_id, type: 'livechat', name: 'chat' })) as { id: string };
	const conversation = (await control(sandbox, 'POST', '/conversations', { app_id, channel_id: channel.id })) as { id: string };
	return { app_id, key, conversation: conversation.id };
}

/** A customer writes in (the sandbox then delivers the event). */
export const inbound = async (sandbox: Sandbox, world: World, text: string): Promise<IDataObject> =>
	(await control(sandbox, 'POST', '/inbound', { conversation_id: world.conversation, text })) as IDataObject;

/** A send through the API with a key of the caller's own: attributed to the key's creator, a person of the workspace. */
export const reply = async (sandbox: Sandbox, world: World, text: string, fields: IDataObject = {}): Promise<IDataObject> =>
	((await api(
		sandbox,
		'POST',
		'/messages/text',
		{ conversation_id: world.conversation, text, client_request_id: randomBytes(8).toString('hex'), ...fields },
		world.key,
	)) as { message: IDataObject }).message;

/** A send of this package (its default key's prefix), attributed to the key's creator as the node's sends are. */
export const ownSend = async (sandbox: Sandbox, world: World, text: string): Promise<IDataObject> =>
	await reply(sandbox, world, text, { client_request_id: `${SEND_KEY_PREFIX}${randomBytes(8).toString('hex')}` });

/** A user of the workspace (an agent), who can write in the inbox. */
export const newPerson = async (sandbox: Sandbox, world: World, name = 'Agent Dana'): Promise<string> =>
	((await control(sandbox, 'POST', '/users', { app_id: world.app_id, name })) as { id: string }).id;
