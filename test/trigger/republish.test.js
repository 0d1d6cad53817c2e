'use strict';
// Publishing an edited workflow again, as n8n 2.40 does it: delete (mode
// "internal", activation "update"), then checkExists and create. Run through
// n8n-core's HookContext against the sandbox's webhook API. The real-n8n
// proof under a steady stream of events is republish.n8n.test.js.
const { api, control } = require('../support/sandbox.cjs');
const { useTriggerHosts } = require('../support/suite.cjs');

/** Longer than a republish (delete, then checkExists and create) takes on a loaded machine: with 400 ms one failed at load 10. */
const GRACE_MS = 2000;
const sleep = async (ms) => await new Promise((resolve) => setTimeout(resolve, ms));

const suite = useTriggerHosts({ seed: 'empty' });

/** A host whose trigger module has a short retirement grace. */
async function newHost(parameters, apiKey = suite.sb.key) {
	return await suite.listeningHost(apiKey, parameters, {
		loadNodeType: () => {
			let nodeType;
			// One n8n process: the node and its lifecycle module from one module registry.
			jest.isolateModules(() => {
				require('../../nodes/OmnichannelTrigger/registration/lifecycle').setRetireGrace(GRACE_MS);
				nodeType = new (require('../../nodes/OmnichannelTrigger/OmnichannelTrigger.node').OmnichannelTrigger)();
			});
			return nodeType;
		},
	});
}

const webhooksAt = async (url) =>
	(await api(suite.sb, 'GET', '/webhooks?per_page=500')).data.filter((webhook) => webhook.url === url);

const keyWith = async (scopes) => (await control(suite.sb, 'POST', '/keys', { mode: 'test', scopes })).key;

/** n8n's republish of a trigger whose parameters changed: teardown, then activation. */
async function republish(host, parameters) {
	await host.deactivate();
	if (parameters) host.setParameters(parameters);
	await host.activate();
}

test('republishing with the same URL and events keeps the same webhook at the service, also after the grace', async () => {
	const host = await newHost({ events: ['message.created'] });
	await host.activate();
	const [first] = await webhooksAt(host.url('production'));
	await republish(host, { events: ['message.created'], options: { outputDataOnly: true } });
	await republish(host, { events: ['message.created'], options: {} });
	await sleep(GRACE_MS * 2);
	expect((await webhooksAt(host.url('production'))).map((webhook) => webhook.id)).toEqual([first.id]);
});

test('unpublishing removes the webhook at the service once the grace has passed', async () => {
	const host = await newHost({ events: ['message.created'] });
	await host.activate();
	await host.deactivate();
	await sleep(GRACE_MS * 2);
	expect(await webhooksAt(host.url('production'))).toEqual([]);
	// Published again later: a new webhook, as the old one is gone.
	await host.activate();
	expect(await webhooksAt(host.url('production'))).toHaveLength(1);
});

test('republishing with other events creates the new webhook before the old one goes', async () => {
	const host = await newHost({ events: ['message.created'] });
	await host.activate();
	const [old] = await webhooksAt(host.url('production'));
	await host.deactivate();
	// Between teardown and activation the old webhook still delivers.
	expect((await webhooksAt(host.url('production'))).map((webhook) => webhook.id)).toEqual([old.id]);
	host.setParameters({ events: ['message.created', 'contact.created'] });
	await host.activate();
	const now = await webhooksAt(host.url('production'));
	expect(now).toHaveLength(1);
	expect(now[0].id).not.toBe(old.id);
	expect([...now[0].events].sort()).toEqual(['contact.created', 'message.created']);
	await sleep(GRACE_MS * 2);
	expect((await webhooksAt(host.url('production'))).map((webhook) => webhook.id)).toEqual([now[0].id]);
});

test('a key with webhooks:write but not webhooks:read keeps its webhook across activations (n8n starts included)', async () => {
	const key = await keyWith(['conversations:read', 'messages:read', 'customers:read', 'channels:read', 'webhooks:write']);
	const host = await newHost({ events: ['*'] }, key);
	await host.activate();
	const [first] = await webhooksAt(host.url('production'));
	await host.activate();
	await republish(host);
	await sleep(GRACE_MS * 2);
	expect((await webhooksAt(host.url('production'))).map((webhook) => webhook.id)).toEqual([first.id]);
});
