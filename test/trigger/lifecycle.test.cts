/**
 * The trigger's webhook lifecycle (checkExists / create / delete) run through
 * n8n-core's HookContext against the sandbox's webhook management API.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { TriggerHost } from '../support/host/trigger.cjs';
import { api, control } from '../support/sandbox.cjs';
import { useTriggerHosts } from '../support/suite.cjs';

interface ServiceWebhook {
	id: string;
	url: string;
	events: string[];
	is_active: boolean;
}

const suite = useTriggerHosts({ seed: 'empty' });

const newHost = async (parameters: INodeParameters, apiKey = suite.sb.key): Promise<TriggerHost> => await suite.listeningHost(apiKey, parameters);

async function serviceWebhooks(): Promise<ServiceWebhook[]> {
	return ((await api(suite.sb, 'GET', '/webhooks?per_page=500')) as { data: ServiceWebhook[] }).data;
}

async function webhooksAt(url: string): Promise<ServiceWebhook[]> {
	return (await serviceWebhooks()).filter((webhook) => webhook.url === url);
}

function stored(host: TriggerHost, kind: 'production' | 'test' = 'production'): IDataObject | undefined {
	return ((host.nodeStaticData() ?? {})[kind] as IDataObject | undefined)?.webhook as IDataObject | undefined;
}

async function keyWith(scopes: string[]): Promise<string> {
	return ((await control(suite.sb, 'POST', '/keys', { mode: 'test', scopes })) as { key: string }).key;
}

const READ_SCOPES = ['conversations:read', 'messages:read', 'customers:read', 'channels:read'];

describe('automatic registration', () => {
	test('create registers our URL and events and stores id and secret; exists then holds', async () => {
		const host = await newHost({ events: ['message.created', 'contact.created'] });
		await host.activate();

		const webhook = stored(host);
		expect(webhook).toMatchObject({
			url: host.url('production'),
			events: ['contact.created', 'message.created'],
		});
		expect(webhook?.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
		const atService = await webhooksAt(host.url('production'));
		expect(atService).toHaveLength(1);
		expect(atService[0]).toMatchObject({ id: webhook?.id, is_active: true });
		expect([...atService[0].events].sort()).toEqual(['contact.created', 'message.created']);

		// Activating again (n8n restart): checkExists confirms it, nothing new is created.
		const before = host.savedStaticData;
		await host.activate();
		expect(host.savedStaticData).toBe(before);
		expect((await webhooksAt(host.url('production'))).map((w) => w.id)).toEqual([webhook?.id]);
	});

	test('a webhook deleted at the service is forgotten and created again', async () => {
		const host = await newHost({ events: ['*'] });
		await host.activate();
		const first = stored(host)?.id as string;
		await api(suite.sb, 'DELETE', `/webhooks/${first}`);

		await host.activate();
		const second = stored(host)?.id as string;
		expect(second).not.toBe(first);
		expect((await webhooksAt(host.url('production'))).map((w) => w.id)).toEqual([second]);
	});

	test("a changed n8n URL replaces the webhook and removes the old one", async () => {
		const host = await newHost({ events: ['*'] });
		await host.activate();
		const oldUrl = host.url('production');
		const oldId = stored(host)?.id;

		// n8n comes back on another address (e.g. WEBHOOK_URL changed).
		await host.close();
		await host.listen();
		expect(host.url('production')).not.toBe(oldUrl);
		await host.activate();

		expect(stored(host)?.url).toBe(host.url('production'));
		expect(stored(host)?.id).not.toBe(oldId);
		expect(await webhooksAt(oldUrl)).toEqual([]);
		expect(await webhooksAt(host.url('production'))).toHaveLength(1);
	});

	test('changed events replace the webhook', async () => {
		const host = await newHost({ events: ['message.created'] });
		await host.activate();
		const oldId = stored(host)?.id;

		host.setParameters({ events: ['contact.updated'], otherEvents: 'contact.created' });
		await host.activate();

		const atService = await webhooksAt(host.url('production'));
		expect(atService).toHaveLength(1);
		expect(atService[0].id).not.toBe(oldId);
		expect([...atService[0].events].sort()).toEqual(['contact.created', 'contact.updated']);
	});

	test('delete retires the webhook, keeping it for a republish (its removal: republish.test.js); a second delete, and one after a remote removal, succeed', async () => {
		const host = await newHost({ events: ['*'] });
		await host.activate();
		const id = stored(host)?.id as string;

		await expect(host.deactivate()).resolves.toBe(true);
		expect(stored(host)?.id).toBe(id);
		expect((await serviceWebhooks()).some((w) => w.id === id)).toBe(true);
		await expect(host.deactivate()).resolves.toBe(true);

		await api(suite.sb, 'DELETE', `/webhooks/${id}`);
		await expect(host.deactivate()).resolves.toBe(true);
		// Published again: the webhook is gone at the service, so a new one is made.
		await host.activate();
		expect(stored(host)?.id).not.toBe(id);
		expect((await webhooksAt(host.url('production'))).map((w) => w.id)).toEqual([stored(host)?.id]);
	});

	test('a webhook at our URL whose secret we do not hold is removed before creating ours', async () => {
		const host = await newHost({ events: ['*'] });
		// A create whose answer was lost: the service has it, n8n does not.
		const orphan = (await api(suite.sb, 'POST', '/webhooks', { url: host.url('production'), events: ['*'] })) as ServiceWebhook;

		await host.activate();
		const atService = await webhooksAt(host.url('production'));
		expect(atService.map((w) => w.id)).toEqual([stored(host)?.id]);
		expect(atService[0].id).not.toBe(orphan.id);
	});

	test('after an older copy of static data was saved over a re-registration, activation ends with one webhook', async () => {
		const host = await newHost({ events: ['message.created'] });
		await host.activate();
		const olderCopy = host.savedStaticData;
		host.setParameters({ events: ['contact.created'] });
		await host.activate();
		// A delivery run that loaded the static data before saves it last, and n8n restarts.
		host.savedStaticData = olderCopy;
		host.restart();

		await host.activate();
		const atService = await webhooksAt(host.url('production'));
		expect(atService.map((w) => w.id)).toEqual([stored(host)?.id]);
		expect(atService[0].events).toEqual(['contact.created']);
	});

	test('a key without webhooks:write fails activation with the scope named, and leaves nothing behind', async () => {
		const host = await newHost({ events: ['*'] }, await keyWith([...READ_SCOPES, 'webhooks:read']));
		await expect(host.activate()).rejects.toThrow('lacks the scope "webhooks:write"');
		expect(host.nodeStaticData()).toBeUndefined();
		expect(await webhooksAt(host.url('production'))).toEqual([]);
	});

	test('a key with webhooks:write but not webhooks:read keeps its webhook on each activation', async () => {
		const host = await newHost({ events: ['*'] }, await keyWith([...READ_SCOPES, 'webhooks:write']));
		await host.activate();
		const first = stored(host)?.id;
		await host.activate();
		expect(stored(host)?.id).toBe(first);
		expect((await webhooksAt(host.url('production'))).map((w) => w.id)).toEqual([first]);
	});

	test('an API that does not answer the check of the webhook keeps the registration: publishing succeeds, nothing is created', async () => {
		const host = await newHost({ events: ['message.created'] });
		await host.activate();
		const [first] = await webhooksAt(host.url('production'));
		await control(suite.sb, 'PUT', '/faults', { error_rate: 1, error_status: 503 });
		try {
			await host.activate();
		} finally {
			await control(suite.sb, 'DELETE', '/faults');
		}
		expect((await webhooksAt(host.url('production'))).map((w) => w.id)).toEqual([first.id]);
		expect(stored(host)?.id).toBe(first.id);
	});

	test('no event chosen fails activation', async () => {
		const host = await newHost({ events: [], otherEvents: ' , ' });
		await expect(host.activate()).rejects.toThrow('Choose at least one event');
		expect(await webhooksAt(host.url('production'))).toEqual([]);
	});

	test('the test URL gets its own webhook; listening and stopping never touch production', async () => {
		const host = await newHost({ events: ['*'] });
		await host.activate();
		const production = host.savedStaticData;
		const productionId = stored(host)?.id;

		await host.listenForTestEvent();
		const testHooks = await webhooksAt(host.url('test'));
		expect(testHooks).toHaveLength(1);
		expect(testHooks[0].id).not.toBe(productionId);
		expect(host.savedStaticData).toBe(production);

		await expect(host.stopListening()).resolves.toBe(true);
		expect(await webhooksAt(host.url('test'))).toEqual([]);
		expect((await webhooksAt(host.url('production'))).map((w) => w.id)).toEqual([productionId]);
		expect(host.savedStaticData).toBe(production);
	});
});

describe('manual registration', () => {
	test('creates nothing at the service and removes a webhook the node made before', async () => {
		const host = await newHost({ events: ['*'] });
		await host.activate();
		const own = stored(host)?.id;
		const dashboard = (await api(suite.sb, 'POST', '/webhooks', { url: host.url('production'), events: ['*'] })) as {
			id: string;
			secret: string;
		};

		host.setParameters({ events: ['*'], registration: 'manual' });
		host.useSigningSecret(dashboard.secret);
		await host.activate();
		expect(stored(host)).toBeUndefined();
		// The node still has its API credential from automatic registration: it deletes
		// its own earlier webhook (without one, the log names it for deletion).
		expect((await webhooksAt(host.url('production'))).map((w) => w.id)).toEqual([dashboard.id]);
		expect((await serviceWebhooks()).some((w) => w.id === own)).toBe(false);

		// Deactivating leaves the user's own webhook alone.
		await expect(host.deactivate()).resolves.toBe(true);
		expect((await webhooksAt(host.url('production'))).map((w) => w.id)).toEqual([dashboard.id]);
	});

	test('works with a key that has no webhook scopes at all', async () => {
		const host = await newHost({ events: ['*'], registration: 'manual' }, await keyWith(READ_SCOPES));
		host.useSigningSecret(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
		await expect(host.activate()).resolves.toBeUndefined();
	});

	test('a malformed signing secret fails activation without quoting it', async () => {
		const host = await newHost({ events: ['*'], registration: 'manual' });
		host.useSigningSecret('not-a-secret-1234');
		const failure = host.activate();
		await expect(failure).rejects.toThrow('The signing secret is not valid');
		await expect(failure).rejects.not.toThrow('not-a-secret-1234');
	});
});
