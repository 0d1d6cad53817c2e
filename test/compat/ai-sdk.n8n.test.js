'use strict';
// The package on the n8n under test as far as n8n's AI node SDK goes: the
// memory node loads the SDK only when an agent asks for the memory, so on an
// n8n without it (1.x) the package still loads and its other nodes run, and
// the memory fails its run saying why; on an n8n with it, the memory serves
// the agent. `npm run test:compat` runs it on every version.
const fs = require('fs');
const path = require('path');

const { ensureN8nInstall, workflows: w } = require('../../harness');
const { NODE_TYPES } = require('../../harness/node-types');
const { startFakeChatModel } = require('../../harness/fake-chat-model');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');

const MODEL_CREDENTIAL = { id: 'compatFakeModel1', name: 'Stand-in chat model' };
const IDS = { identity: 'compatSdkIdent01', memory: 'compatSdkMemory1' };

/** Whether the n8n under test ships the SDK (n8n resolves it for community packages from its own modules). */
function hasSdk() {
	const install = ensureN8nInstall();
	return fs.existsSync(path.join(install.cacheDir, `n8n-${install.version}`, 'node_modules', '@n8n', 'ai-node-sdk', 'package.json'));
}

describe('the AI node SDK on the n8n under test', () => {
	let ctx;
	let model;
	let sdk;

	beforeAll(async () => {
		sdk = hasSdk();
		model = await startFakeChatModel(() => ({ content: 'Hello from the stand-in model' }));
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		const [conversation] = await client.listAll('/conversations');
		await n8n.importCredentials([credential, { ...MODEL_CREDENTIAL, type: 'openAiApi', data: { apiKey: 'sk-compat-stand-in', url: model.url, header: false } }]);
		const identity = w.workflow({
			id: IDS.identity,
			name: 'Compat: another node of the package',
			nodes: [w.manualTrigger(), w.omnichannelNode('Identity', credential, { resource: 'identity', operation: 'get' })],
			connections: w.chain('Start', 'Identity'),
		});
		const memory = w.workflow({
			id: IDS.memory,
			name: 'Compat: the chat memory under an AI Agent',
			nodes: [
				w.manualTrigger(),
				// AI Agent 2: the newest version 1.123.x and 2.40.x share.
				w.node('AI Agent', '@n8n/n8n-nodes-langchain.agent', { promptType: 'define', text: 'Hello', options: {} }, { typeVersion: 2 }),
				w.node('Chat model', '@n8n/n8n-nodes-langchain.lmChatOpenAi', { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} }, {
					typeVersion: 1.2,
					credentials: { openAiApi: MODEL_CREDENTIAL },
				}),
				w.node('Memory', NODE_TYPES.memory, { sessionIdType: 'customKey', conversationId: w.byId(conversation.id) }, {
					credentials: { omnichannelApi: { id: credential.id, name: credential.name } },
				}),
			],
			connections: w.chain('Start', 'AI Agent'),
		});
		memory.connections['Chat model'] = { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] };
		memory.connections.Memory = { ai_memory: [[{ node: 'AI Agent', type: 'ai_memory', index: 0 }]] };
		await n8n.importWorkflows([identity, memory]);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await ctx?.close();
		await model?.close();
	});

	test(
		'the package loads and its other nodes run; the memory serves the agent, or without the SDK says it needs n8n 2.40',
		async () => {
			const { n8n } = ctx;
			const identity = await n8n.executeWorkflow(IDS.identity);
			expect(identity.status).toBe('success');

			let run;
			try {
				run = await n8n.executeWorkflow(IDS.memory);
			} catch (error) {
				if (!error.run) throw error;
				run = error.run;
			}
			const memoryRuns = run.data.resultData.runData.Memory ?? [];
			const memoryError = memoryRuns.map((task) => task.error?.message).find(Boolean) ?? run.data.resultData.error?.message ?? '';
			console.log(JSON.stringify({ suite: 'ai-sdk', n8n: ensureN8nInstall().version, sdk, identity: identity.status, memoryRun: run.status, memoryError }));
			if (sdk) {
				expect(run.status).toBe('success');
				expect(model.requests).toHaveLength(1);
			} else {
				expect(run.status).not.toBe('success');
				expect(JSON.stringify(run.data.resultData)).toContain('Omnichannel Chat Memory needs n8n 2.40 or newer (its AI node SDK)');
				expect(model.requests).toHaveLength(0);
			}
		},
		TEST_TIMEOUT_MS,
	);
});
