'use strict';
// Every operation of the Omnichannel node, run by real n8n (`n8n execute`)
// from the packed package, with each output checked against the sandbox.
const crypto = require('crypto');

const { nodeOutput, omnichannelCredential, sandboxClient, WorkflowExecutionError } = require('../../harness');
const flows = require('../support/n8n/action-workflows');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');

const BULK_CONTACTS = 4000;
const BULK_LIMIT = 1234;

const ids = (records) => records.map((record) => record.id);
const sha256 = (buffer) => crypto.createHash('sha256').update(buffer).digest('hex');

describe('Omnichannel node in n8n', () => {
	let ctx;
	let bulk;
	const data = {};

	beforeAll(async () => {
		ctx = await openContext();
		const { client, sandbox, credential, n8n } = ctx;

		const channels = await client.listAll('/channels');
		const active = new Set(channels.filter((c) => c.is_active).map((c) => c.id));
		const conversations = await client.listAll('/conversations');
		data.conversation = conversations.find((c) => active.has(c.channel_id));
		// The 10th most recently updated conversation: delta sync from its time returns at least 10.
		data.updatedSince = conversations[9].updated_at;
		// Letters only: contact search also matches the digits of a search text against phone numbers.
		data.marker = Array.from(crypto.randomBytes(10), (byte) => String.fromCharCode(97 + (byte % 26))).join('');

		// Return All runs against its own workspace, so thousands of contacts do
		// not change what the other checks see.
		const { app_id: appId } = await client.control('POST', '/workspaces', {});
		const { key } = await client.control('POST', '/keys', { app_id: appId, mode: 'test', scopes: ['customers:read'] });
		await client.control('POST', '/bulk', { app_id: appId, contacts: BULK_CONTACTS });
		bulk = {
			client: sandboxClient(sandbox, key),
			credential: omnichannelCredential({ id: 'e2eBulkCred00001', name: 'E2E bulk', baseUrl: sandbox.base_url, apiKey: key }),
		};

		await n8n.importCredentials([credential, bulk.credential]);
		await n8n.importWorkflows([
			flows.readsWorkflow(credential, { conversationId: data.conversation.id, updatedSince: data.updatedSince }),
			flows.sendsWorkflow(credential, { conversationId: data.conversation.id }),
			flows.contactsWorkflow(credential, { marker: data.marker }),
			flows.returnAllWorkflow(bulk.credential, { limit: BULK_LIMIT }),
			flows.notFoundWorkflow(credential),
		]);
	}, SETUP_TIMEOUT_MS);

	afterAll(() => ctx?.close());

	async function execute(workflowId) {
		const run = await ctx.n8n.executeWorkflow(workflowId);
		expect(run.status).toBe('success');
		return run;
	}

	test(
		'identity, channel, conversation, message and contact reads match the sandbox',
		async () => {
			const { client, sandbox } = ctx;
			const run = await execute(flows.IDS.reads);

			expect(nodeOutput(run, 'Identity')).toEqual([expect.objectContaining({ app_id: sandbox.app_id, mode: 'test' })]);
			expect(ids(nodeOutput(run, 'Channels'))).toEqual(ids(await client.listAll('/channels')));

			const conversations = await client.listAll('/conversations');
			expect(ids(nodeOutput(run, 'Latest conversations'))).toEqual(ids(conversations.slice(0, 5)));
			const since = Date.parse(data.updatedSince);
			const updated = conversations.filter((c) => Date.parse(c.updated_at) >= Math.floor(since / 1000) * 1000);
			expect(updated.length).toBeGreaterThanOrEqual(10);
			expect(ids(nodeOutput(run, 'Updated conversations'))).toEqual(ids(updated));

			const messages = await client.listAll('/messages', { conversation_id: data.conversation.id });
			expect(messages.length).toBeGreaterThan(0);
			expect(ids(nodeOutput(run, 'Messages'))).toEqual(ids(messages));

			const qualified = await client.listAll('/contacts', { lead_status: 'qualified' });
			expect(qualified.length).toBeGreaterThan(0);
			expect(nodeOutput(run, 'Qualified contacts')).toEqual(qualified);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'text, location, image, audio, video and document sends arrive as sent',
		async () => {
			const { client } = ctx;
			const run = await execute(flows.IDS.sends);
			const stored = async (nodeName) => {
				const [message] = nodeOutput(run, nodeName);
				expect(message.conversation_id).toBe(data.conversation.id);
				return await client.control('GET', `/messages/${message.id}`);
			};

			expect(await stored('Send text')).toMatchObject({
				message_type: 'text',
				content: 'E2E text ✓ 🚀',
				// The key as set, with the prefix that marks this package's sends.
				client_request_id: 'n8n_e2e-text-1',
				from_customer: false,
			});
			expect(await stored('Send location')).toMatchObject({ message_type: 'location', content: '52.520008,13.404954' });

			for (const { kind, fileName, mimeType, caption } of flows.MEDIA) {
				const bytes = flows.mediaBytes(kind);
				expect(await stored(flows.sendNodeName(kind))).toMatchObject({
					message_type: kind,
					content: caption ?? '',
					file_name: fileName,
					content_type: mimeType,
					size: bytes.length,
					sha256: sha256(bytes),
				});
			}
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'contact create, get, update, merge and search change the sandbox as shown',
		async () => {
			const { client } = ctx;
			const run = await execute(flows.IDS.contacts);
			const [primary] = nodeOutput(run, 'Create primary');
			const [secondary] = nodeOutput(run, 'Create secondary');
			expect(primary).toMatchObject({ name: `E2E Primary ${data.marker}`, lead_status: 'new' });
			expect(secondary).toMatchObject({ company: 'E2E GmbH' });

			expect(nodeOutput(run, 'Get primary')).toEqual([expect.objectContaining({ id: primary.id, email: primary.email })]);
			expect(nodeOutput(run, 'Update primary')).toEqual([
				expect.objectContaining({ id: primary.id, job_title: 'Buyer', lead_status: 'qualified' }),
			]);
			const merged = {
				id: primary.id,
				name: primary.name,
				email: primary.email,
				job_title: 'Buyer',
				lead_status: 'qualified',
				phone: secondary.phone,
				company: 'E2E GmbH',
				city: 'Berlin',
			};
			expect(nodeOutput(run, 'Merge')).toEqual([expect.objectContaining(merged)]);
			expect(await client.api('GET', `/contacts/${primary.id}`)).toMatchObject(merged);
			await expect(client.api('GET', `/contacts/${secondary.id}`)).rejects.toThrow(/404/);
			expect(ids(nodeOutput(run, 'Search'))).toEqual([primary.id]);
		},
		TEST_TIMEOUT_MS,
	);

	test(
		`Return All fetches all ${BULK_CONTACTS} contacts once each; Limit ${BULK_LIMIT} spans pages`,
		async () => {
			const run = await execute(flows.IDS.returnAll);
			const expected = ids(await bulk.client.listAll('/contacts'));
			expect(expected).toHaveLength(BULK_CONTACTS);

			const all = ids(nodeOutput(run, 'All contacts'));
			expect(new Set(all).size).toBe(all.length);
			expect(all).toEqual(expected);
			expect(ids(nodeOutput(run, 'Some contacts'))).toEqual(expected.slice(0, BULK_LIMIT));
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'an unknown contact fails the execution with a clear error on its node',
		async () => {
			const failure = await ctx.n8n.executeWorkflow(flows.IDS.notFound).catch((error) => error);
			expect(failure).toBeInstanceOf(WorkflowExecutionError);
			const { error } = failure.run.data.resultData;
			expect(error.node.name).toBe('Get missing contact');
			expect(`${error.message} ${error.description ?? ''}`).toMatch(/not found|404/i);
		},
		TEST_TIMEOUT_MS,
	);
});
