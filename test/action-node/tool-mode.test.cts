/**
 * The node as an AI tool, called through n8n-core's own tool machinery
 * (the $fromAI() schema, the tool wrapper, the "Details:" n8n appends):
 * errors name the argument the model should change and what it accepts,
 * results are simplified by default, and a model-supplied Client Request ID
 * makes a retried send arrive once.
 */
import { runAsTool, runNode } from '../support/host/action-node.cjs';
import type { ToolRunResult } from '../support/host/action-node.cjs';
import { api, clearFaults, messagesOf, newConversation, resetStats, setFaults, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { byId, useSandbox } from '../support/suite.cjs';

const suite = useSandbox();

const fromAI = (key: string, description: string, type = 'string') => `={{ $fromAI('${key}', '${description}', '${type}') }}`;

/** Send Text with its conversation, text and (optionally) Client Request ID from the model. */
const sendTextTool = (withKey = true): Json => ({
	resource: 'message',
	operation: 'sendText',
	conversationId: byId(fromAI('conversationId', 'ID of the conversation to reply in')),
	text: fromAI('text', 'The reply, 1 to 4000 characters'),
	options: withKey ? { clientRequestId: fromAI('clientRequestId', 'A new unique key per message; the same key when retrying it') } : {},
});

const tool = async (parameters: Json, calls: Json[], extra: { executionId?: string | null } = {}): Promise<ToolRunResult> =>
	await runAsTool({ credentials: suite.credentials, parameters, calls, ...extra });

/** Nothing written for the editor reaches the model. */
function expectWrittenForAModel(error: string | undefined): string {
	expect(error).toBeDefined();
	expect(error).not.toMatch(/\[item \d+\]/);
	expect(error).not.toMatch(/node's parameters|this item|Pick a record from the list/);
	return error as string;
}

let conversationId: string;
beforeAll(async () => {
	conversationId = (await newConversation(suite.sb)).id;
});

describe('errors written for the model', () => {
	test('a text of 5,000 characters names the argument and the allowed length, and sends nothing', async () => {
		await resetStats(suite.sb);
		const run = await tool(sendTextTool(), [{ conversationId, text: 'x'.repeat(5000), clientRequestId: 'too-long-1' }]);
		const error = expectWrittenForAModel(run.outcomes[0].error);
		expect(error).toMatch(/^Invalid argument 'text': it has 5000 characters; the most allowed is 4000/);
		expect(error).toContain("Call the tool again with 'text' set to text of 1 to 4000 characters.");
		expect((await stats(suite.sb)).requests).toBe(0);
	});

	test('an unknown conversation names the argument to correct', async () => {
		const run = await tool(sendTextTool(), [{ conversationId: 'conv_doesNotExist000000', text: 'Hello', clientRequestId: 'unknown-conv-1' }]);
		const error = expectWrittenForAModel(run.outcomes[0].error);
		expect(error).toContain('The Omnichannel API rejected the request: conversation not found');
		expect(error).toContain("The API refused the value of 'conversationId'. Call the tool again with a corrected 'conversationId'");
	});

	test('an unknown contact names the argument and where to get a valid ID', async () => {
		const parameters = { resource: 'contact', operation: 'get', contactId: byId(fromAI('contactId', 'ID of the contact')) };
		const run = await tool(parameters, [{ contactId: 'ct_doesNotExist0000000' }]);
		const error = expectWrittenForAModel(run.outcomes[0].error);
		expect(error).toContain('The contact "ct_doesNotExist0000000" was not found');
		expect(error).toContain("Call the tool again with 'contactId' set to an ID returned by a search");
	});

	test('an argument named in a check across fields is quoted by its argument name', async () => {
		const contact = await api(suite.sb, 'POST', '/contacts', { name: 'Merge Self' });
		const parameters = {
			resource: 'contact',
			operation: 'merge',
			primaryContactId: byId(fromAI('primaryContactId', 'The contact to keep')),
			secondaryContactId: byId(fromAI('secondaryContactId', 'The contact merged into it')),
		};
		const run = await tool(parameters, [{ primaryContactId: contact.id, secondaryContactId: contact.id }]);
		const error = expectWrittenForAModel(run.outcomes[0].error);
		expect(error).toMatch(/^Invalid argument 'secondaryContactId': it is the same contact as 'primaryContactId'/);
	});

	test('a value fixed by the workflow says that no argument can fix it', async () => {
		const parameters = { ...sendTextTool(), text: '={{ "" }}' };
		const run = await tool(parameters, [{ conversationId, clientRequestId: 'fixed-empty-1' }]);
		const error = expectWrittenForAModel(run.outcomes[0].error);
		expect(error).toMatch(/^The tool's setting 'Text' is invalid: it is empty/);
		expect(error).toContain("Tell the user that the 'Omnichannel Tool' tool needs fixing in n8n");
	});

	test('a send failing on the server tells the model to retry with the same key', async () => {
		await setFaults(suite.sb, { error_rate: 1, error_status: 503 });
		try {
			const run = await tool(sendTextTool(), [{ conversationId, text: 'Hello', clientRequestId: 'server-down-1' }]);
			const error = expectWrittenForAModel(run.outcomes[0].error);
			expect(error).toMatch(/^The Omnichannel API failed with status 503 after 7 attempts/);
			expect(error).toContain("Try again in a little while. Repeat a send with the same 'clientRequestId' as before");
		} finally {
			await clearFaults(suite.sb);
		}
	});

	test('a broken credential says that no argument can help', async () => {
		const run = await runAsTool({
			credentials: { ...suite.credentials, apiKey: 'not-a-key' },
			parameters: { resource: 'identity', operation: 'get' },
			calls: [{}],
		});
		const error = expectWrittenForAModel(run.outcomes[0].error);
		expect(error).toMatch(/^The API Key of the Omnichannel credential is malformed/);
		expect(error).toContain('Details: Other arguments will not help: tell the user.');
	});

	test('the same mistake in a workflow keeps the editor wording', async () => {
		const result = await runNode({
			credentials: suite.credentials,
			parameters: { resource: 'message', operation: 'sendText', conversationId: byId(conversationId), text: 'x'.repeat(5000) },
		});
		expect(result.error?.message).toBe("Invalid 'Text': it has 5000 characters; the most allowed is 4000 [item 0]");
		expect(result.error?.description).toBe('Enter 1 to 4000 characters.');
	});

	test('the session goes on after an error', async () => {
		const run = await tool(sendTextTool(), [
			{ conversationId, text: '', clientRequestId: 'empty-1' },
			{ conversationId, text: 'After the error', clientRequestId: `after-error-${conversationId}` },
		]);
		expect(run.outcomes[0].error).toMatch(/^Invalid argument 'text': it is empty/);
		expect(run.outcomes[1].result).toEqual([expect.objectContaining({ content: 'After the error', conversation_id: conversationId })]);
	});
});

describe('idempotent retries', () => {
	test.each([
		['in an execution (AI Agent)', undefined],
		['without an execution id (MCP Server Trigger)', null],
	])('a retried call with the same Client Request ID sends once, %s', async (_, executionId) => {
		const conversation = await newConversation(suite.sb);
		const args = { conversationId: conversation.id, text: 'Your refund is on its way', clientRequestId: `refund-${conversation.id}` };
		const run = await tool(sendTextTool(), [args, args], { executionId });
		expect(run.schemaKeys.sort()).toEqual(['clientRequestId', 'conversationId', 'text']);
		const [first, retry] = run.outcomes.map((outcome) => (outcome.result as Json[])[0]);
		expect(retry.id).toBe(first.id);
		expect(await messagesOf(suite.sb, conversation.id)).toHaveLength(1);
	});

	test('without a key from the model, each call is a new send (why the key is needed)', async () => {
		const conversation = await newConversation(suite.sb);
		const args = { conversationId: conversation.id, text: 'Your refund is on its way' };
		const run = await tool(sendTextTool(false), [args, args]);
		expect(run.outcomes.every((outcome) => outcome.result)).toBe(true);
		expect(await messagesOf(suite.sb, conversation.id)).toHaveLength(2);
	});
});

describe('lean results', () => {
	const search = { resource: 'contact', operation: 'getAll', filters: { search: fromAI('search', 'Text to find') }, limit: 5 };

	test('a tool returns the simplified records by default', async () => {
		const run = await tool(search, [{ search: 'a' }]);
		const records = run.outcomes[0].result as Json[];
		expect(records.length).toBeGreaterThan(0);
		for (const record of records) {
			expect(Object.keys(record).every((key) => ['id', 'name', 'email', 'phone', 'company', 'lead_status', 'lead_source', 'updated_at'].includes(key))).toBe(true);
		}
	});

	test('Simplify switched off returns full records, and workflows keep full records by default', async () => {
		const full = await tool({ ...search, simplify: false }, [{ search: 'a' }]);
		expect(Object.keys((full.outcomes[0].result as Json[])[0])).toEqual(expect.arrayContaining(['app_id', 'created_at', 'city']));
		const inWorkflow = await runNode({
			credentials: suite.credentials,
			parameters: { ...search, filters: { search: 'a' } },
		});
		expect(Object.keys(inWorkflow.json[0])).toEqual(expect.arrayContaining(['app_id', 'created_at', 'city']));
	});
});
