/**
 * Message > Send and Wait for Response, in n8n's real engine (WorkflowExecute)
 * against the sandbox: the message and its signed links, the waiting state,
 * the checks made before anything is sent; and the node's webhook() (the
 * pages and what resumes the execution) called with a stand-in request.
 * The real-n8n E2E (test/action-node/send-and-wait.n8n.test.js) follows the links.
 */
import { Container } from '@n8n/di';
import { ExecuteContext, InstanceSettings, validateUrlSignature } from 'n8n-core';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { newExecutionId, nodeType, runNode } from '../support/host/action-node.cjs';
import type { RunResult } from '../support/host/action-node.cjs';
import { messagesOf, newConversation, resetStats, stats } from '../support/sandbox.cjs';
import type { Json } from '../support/sandbox.cjs';
import { byId, useSandbox } from '../support/suite.cjs';

const suite = useSandbox();
const NODE_ID = 'c0ffee00-0000-4000-8000-000000000001';

const sendAndWait = async (conversationId: string, extra: Json = {}, run: Partial<Parameters<typeof runNode>[0]> = {}) =>
	await runNode({
		credentials: suite.credentials,
		parameters: {
			resource: 'message',
			operation: 'sendAndWait',
			conversationId: byId(conversationId),
			message: 'Refund €40 for order 1042?',
			...extra,
		},
		...run,
	});

function linksOf(text: string): Array<{ label: string; url: URL }> {
	return text
		.split('\n')
		.map((line) => /^(.+): (http\S+)$/.exec(line))
		.filter((match): match is RegExpExecArray => match !== null)
		.map((match) => ({ label: match[1], url: new URL(match[2]) }));
}

function signatureIsValid(url: URL): boolean {
	const signature = url.searchParams.get('signature') ?? '';
	return validateUrlSignature(signature, url, Container.get(InstanceSettings).hmacSignatureSecret);
}

/** The pending item the node left as its waiting input (what webhook() reads as $json). */
function waitingInput(result: RunResult): IDataObject {
	return result.run.data.executionData!.nodeExecutionStack[0].data.main[0]![0].json;
}

describe('the node description', () => {
	test("has the operation n8n signs links for, and GET and POST waiting webhooks on the node's id", () => {
		const operations = nodeType.description.properties.filter((property) => property.name === 'operation');
		const values = operations.flatMap((property) => (property.options ?? []).map((option) => (option as { value: unknown }).value));
		expect(values).toContain(SEND_AND_WAIT_OPERATION);
		expect(nodeType.description.webhooks).toEqual(
			['GET', 'POST'].map((httpMethod) =>
				expect.objectContaining({ httpMethod, path: '={{ $nodeId }}', restartWebhook: true, isFullPath: true }),
			),
		);
		// n8n's human-review tool replaces a property named `message` and keeps `approvalOptions`.
		const names = nodeType.description.properties.map((property) => property.name);
		expect(names).toEqual(expect.arrayContaining(['message', 'responseType', 'approvalOptions']));
	});
});

describe('sending', () => {
	test('an approval sends the question with an Approve and a Decline link, each signed, and waits', async () => {
		const conversation = await newConversation(suite.sb);
		const result = await sendAndWait(conversation.id);
		expect(result.status).toBe('waiting');
		expect(result.run.waitTill?.toISOString()).toBe('3000-01-01T00:00:00.000Z');

		const [message] = await messagesOf(suite.sb, conversation.id);
		const links = linksOf(message.content);
		expect(message.content.split('\n').slice(0, 2)).toEqual(['Refund €40 for order 1042?', '']);
		expect(links.map((link) => link.label)).toEqual(['Approve', 'Decline']);
		expect(links.map((link) => link.url.searchParams.get('approved'))).toEqual(['true', 'false']);
		for (const { url } of links) {
			expect(url.pathname).toBe(`/webhook-waiting/${result.executionId}/${NODE_ID}`);
			expect(signatureIsValid(url)).toBe(true);
			const forged = new URL(url);
			forged.searchParams.set('approved', url.searchParams.get('approved') === 'true' ? 'false' : 'true');
			expect(signatureIsValid(forged)).toBe(false);
		}

		const pending = waitingInput(result);
		expect(pending).toMatchObject({ timedOut: true, data: {}, messageId: message.id, conversationId: conversation.id });
		expect(pending.request).toMatchObject({ responseType: 'approval', approveLabel: 'Approve', declineLabel: 'Decline' });
		expect(links[0].url.searchParams.get('w')).toBe((pending.request as IDataObject).waitId);
	});

	test('one-button approval, free text and a form each send one link with their own label', async () => {
		const conversation = await newConversation(suite.sb);
		await sendAndWait(conversation.id, { approvalOptions: { values: { approvalType: 'single', approveLabel: 'Yes, refund' } } });
		await sendAndWait(conversation.id, { responseType: 'freeText' });
		await sendAndWait(conversation.id, {
			responseType: 'customForm',
			formFields: { values: [{ fieldLabel: 'Amount', fieldType: 'number', requiredField: true }] },
		});
		const texts = (await messagesOf(suite.sb, conversation.id)).map((message) => message.content as string).reverse();
		expect(texts.map((text) => linksOf(text).map((link) => link.label))).toEqual([['Yes, refund'], ['Answer here'], ['Fill in the form']]);
	});

	test('only the first input item is sent, and a retry of the same execution sends nothing new', async () => {
		const conversation = await newConversation(suite.sb);
		const executionId = newExecutionId();
		const items = [{ json: { order: 1 } }, { json: { order: 2 } }];
		const first = await sendAndWait(conversation.id, {}, { executionId, items });
		const again = await sendAndWait(conversation.id, {}, { executionId, items });
		expect(first.json).toHaveLength(1);
		expect(again.json[0].messageId).toBe(first.json[0].messageId);
		expect(await messagesOf(suite.sb, conversation.id)).toHaveLength(1);
	});

	test('a wait limit sets when the execution resumes and when the links expire', async () => {
		const conversation = await newConversation(suite.sb);
		const before = Date.now();
		const result = await sendAndWait(conversation.id, {
			options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } },
		});
		const waitTill = result.run.waitTill!.getTime();
		expect(waitTill).toBeGreaterThanOrEqual(before + 2 * 3600_000);
		expect(waitTill).toBeLessThanOrEqual(Date.now() + 2 * 3600_000);
		expect((waitingInput(result).request as IDataObject).expiresAt).toBe(new Date(waitTill).toISOString());

		const at = new Date(Date.now() + 86400_000).toISOString();
		const dated = await sendAndWait(conversation.id, {
			options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: at } } },
		});
		expect(dated.run.waitTill!.toISOString()).toBe(at);
	});
});

describe('checks before anything is sent', () => {
	const cases: Array<[string, Json, RegExp]> = [
		['a message that comes out empty', { message: '={{ $json.question ?? "" }}' }, /^Invalid 'Message': it is empty \[item 0\]$/],
		[
			'a message too long for its links',
			{ message: 'x'.repeat(3950) },
			/^Invalid 'Message': with its links the message has \d+ characters; the most allowed is 4000 \[item 0\]$/,
		],
		['a form without fields', { responseType: 'customForm' }, /^Invalid 'Form Fields': no field is defined \[item 0\]$/],
		[
			'two fields of one name',
			{
				responseType: 'customForm',
				formFields: { values: [{ fieldLabel: 'Amount' }, { fieldLabel: 'Amount', fieldType: 'number' }] },
			},
			/^Invalid 'Form Fields': two fields are labelled "Amount" \[item 0\]$/,
		],
		[
			'a dropdown without options',
			{ responseType: 'customForm', formFields: { values: [{ fieldLabel: 'Size', fieldType: 'dropdown', fieldOptions: ' , ' }] } },
			/^Invalid 'Form Fields: Options \(field 1\)': the dropdown "Size" has no options \[item 0\]$/,
		],
		[
			'a wait limit already past',
			{ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' } } } },
			/^Invalid 'Max Date and Time': 2020-01-01T00:00:00.000Z is already past \[item 0\]$/,
		],
		[
			'a wait limit of no time',
			{ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 0, resumeUnit: 'minutes' } } } },
			/^Invalid 'Amount': 0 is out of range \[item 0\]$/,
		],
		['an empty button label', { approvalOptions: { values: { approveLabel: ' ' } } }, /^Invalid 'Approve Button Label': it is empty \[item 0\]$/],
		[
			'approve and decline words that read the same',
			{ approvalOptions: { values: { answerIn: 'chat', approveWord: 'Yes', declineWord: ' YES! ' } } },
			/^Invalid 'Decline Word': it reads the same as the Approve Word \("Yes"\) \[item 0\]$/,
		],
		['an empty approve word', { approvalOptions: { values: { answerIn: 'both', approveWord: '  ' } } }, /^Invalid 'Approve Word': it is empty \[item 0\]$/],
		['a word of punctuation only', { approvalOptions: { values: { answerIn: 'both', declineWord: '?!' } } }, /^Invalid 'Decline Word': "\?!" has no letters or digits \[item 0\]$/],
		['too many reminders', { approvalOptions: { values: { answerIn: 'chat', reprompts: 11 } } }, /^Invalid 'Re-Prompts': 11 is out of range \[item 0\]$/],
		['a chat reply with no Omnichannel Trigger to deliver it', { responseType: 'chatReply' }, /^Answers in the chat need an Omnichannel Trigger at the start of this workflow/],
	];

	test.each(cases)('%s', async (_name, extra, message) => {
		const conversation = await newConversation(suite.sb);
		await resetStats(suite.sb);
		const result = await sendAndWait(conversation.id, extra);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toBeTruthy();
		expect((await stats(suite.sb)).by_route['POST /messages/text'] ?? 0).toBe(0);
	});

	test("a conversation that does not exist fails with the API's answer and does not wait", async () => {
		const result = await sendAndWait('conv_doesNotExist000000');
		expect(result.status).toBe('error');
		expect(result.error?.httpCode).toBe('400');
		expect(result.run.waitTill).toBeUndefined();
	});
});

describe('an n8n without the APIs the operation needs', () => {
	test('fails when the operation runs, with a clear message and nothing sent; the node and its other operations still work', async () => {
		const conversation = await newConversation(suite.sb);
		const prototype = ExecuteContext.prototype as unknown as Record<string, unknown>;
		// Shadows n8n-core's method for this test only, as an n8n version without it would be.
		prototype.getSignedResumeUrl = undefined;
		try {
			const result = await sendAndWait(conversation.id);
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe('This version of n8n cannot run Send and Wait for Response');
			expect(result.error?.description).toBe(
				'It lacks getSignedResumeUrl. Update n8n to use this operation; the other operations work as before.',
			);
			const sent = await runNode({
				credentials: suite.credentials,
				parameters: { resource: 'message', operation: 'sendText', conversationId: byId(conversation.id), text: 'Still works' },
			});
			expect(sent.status).toBe('success');
			expect((await messagesOf(suite.sb, conversation.id)).map((message) => message.content)).toEqual(['Still works']);
		} finally {
			delete prototype.getSignedResumeUrl;
		}
		expect(typeof (ExecuteContext.prototype as unknown as Record<string, unknown>).getSignedResumeUrl).toBe('function');
	});
});

/** A stand-in for n8n's webhook context: the request, a recorded response, and the pending item as $json. */
/** A multipart post as n8n hands it to a node: the page's fields under `data`, its files under `files`. */
const multipart = (fields: IDataObject): IDataObject => ({ data: fields, files: {} });

function callWebhook(pending: IDataObject | undefined, request: { method: string; query: IDataObject; body?: IDataObject }) {
	const response = { status: 0, headers: {} as Record<string, string>, body: '' as unknown };
	const res = {
		headersSent: false,
		get statusCode() {
			return response.status;
		},
		status(code: number) {
			response.status = code;
			return res;
		},
		setHeader(name: string, value: string) {
			response.headers[name.toLowerCase()] = value;
		},
		end(body: string) {
			response.body = body;
			res.headersSent = true;
		},
		/** As Express: n8n's error answers go out this way. */
		json(body: unknown) {
			response.headers['content-type'] ??= 'application/json; charset=utf-8';
			response.body = body;
			res.headersSent = true;
			return res;
		},
	};
	const context = {
		evaluateExpression: (expression: string) => {
			if (expression !== '{{ $json }}') throw new Error(`unexpected expression ${expression}`);
			return pending;
		},
		getQueryData: () => request.query,
		getBodyData: () => request.body ?? {},
		getRequestObject: () => ({ method: request.method }),
		getResponseObject: () => res,
	} as unknown as IWebhookFunctions;
	return {
		res,
		response,
		result: nodeType.webhook!.call(context) as Promise<IWebhookResponseData>,
	};
}

function pendingOf(request: IDataObject): IDataObject {
	return {
		timedOut: true,
		data: {},
		messageId: 'msg_1',
		conversationId: 'conv_1',
		request: { waitId: 'w1', question: 'Refund €40?\n\nOrder <1042>', title: 'Please answer', buttonLabel: 'Send', approveLabel: 'Approve', ...request },
	};
}

describe('the pages (webhook)', () => {
	const approval = pendingOf({ responseType: 'approval', declineLabel: 'Decline' });

	test('opening an approval link shows the question and a button, and leaves the execution waiting', async () => {
		const { response, result } = callWebhook(approval, { method: 'GET', query: { w: 'w1', approved: 'false' } });
		expect(await result).toEqual({ noWebhookResponse: true });
		expect(response.status).toBe(200);
		expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
		expect(response.headers['cache-control']).toBe('no-store');
		expect(response.body).toContain('<p>Refund €40?</p>');
		expect(response.body).toContain('Order &lt;1042&gt;');
		expect(response.body).toMatch(/<form method="post" enctype="multipart\/form-data"[^>]*>[\s\S]*<button type="submit" class="secondary">Decline<\/button>/);
		expect(response.body).not.toMatch(/<script/i);
	});

	test('submitting it resumes with the answer; the recorded page is left to n8n, which sends it only if the answer was used', async () => {
		const { response, result } = callWebhook(approval, { method: 'POST', query: { w: 'w1', approved: 'true' } });
		const resumed = await result;
		expect(resumed.workflowData).toEqual([
			[{ json: { timedOut: false, respondedAt: expect.any(String), data: { approved: true }, messageId: 'msg_1', conversationId: 'conv_1' } }],
		]);
		expect(resumed.noWebhookResponse).toBeUndefined();
		expect(resumed.webhookResponse).toContain('Your answer: <strong>Approve</strong>');
		expect(response.body).toBe('');
		// A Content-Type set here would also label n8n's JSON answer if this answer lost.
		expect(response.headers['content-type']).toBeUndefined();
		expect(response.headers['cache-control']).toBe('no-store');
	});

	test("an answer n8n could not use gets the 'not recorded' page instead of n8n's JSON error", async () => {
		const { res, response, result } = callWebhook(approval, { method: 'POST', query: { w: 'w1', approved: 'false' } });
		await result;
		// What n8n does when another answer continued the execution a moment earlier.
		res.status(500).json({ code: 0, message: 'There was a problem executing the workflow' });
		expect(response.status).toBe(409);
		expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
		expect(response.body).toContain('Your answer was not recorded');
		expect(response.body).not.toContain('Thank you');
	});

	test('a JSON body with a success status goes out as it is', async () => {
		const { res, response, result } = callWebhook(approval, { method: 'POST', query: { w: 'w1', approved: 'true' } });
		await result;
		res.status(200).json({ ok: true });
		expect(response.body).toEqual({ ok: true });
	});

	test("a link of another wait, or a decline link where there is none, answers 'already answered' and resumes nothing", async () => {
		for (const [pending, query] of [
			[approval, { w: 'an-earlier-wait', approved: 'true' }],
			[pendingOf({ responseType: 'approval' }), { w: 'w1', approved: 'false' }],
			[{ some: 'input that is not a pending item' }, { w: 'w1', approved: 'true' }],
		] as Array<[IDataObject, IDataObject]>) {
			const { response, result } = callWebhook(pending, { method: 'POST', query });
			expect(await result).toEqual({ noWebhookResponse: true });
			expect(response.status).toBe(409);
			expect(response.body).toContain('Already answered');
		}
	});

	test('after the limit, a link shows that it expired and resumes nothing', async () => {
		const expired = pendingOf({ responseType: 'freeText', expiresAt: new Date(Date.now() - 1000).toISOString() });
		const { response, result } = callWebhook(expired, { method: 'POST', query: { w: 'w1' }, body: { text: 'late' } });
		expect(await result).toEqual({ noWebhookResponse: true });
		expect(response.status).toBe(410);
		expect(response.body).toContain('This link has expired');
	});

	test('free text: an empty answer shows the page again with what to fix; a real one resumes', async () => {
		const pending = pendingOf({ responseType: 'freeText' });
		const empty = callWebhook(pending, { method: 'POST', query: { w: 'w1' }, body: multipart({ text: '   ' }) });
		expect(await empty.result).toEqual({ noWebhookResponse: true });
		expect(empty.response.status).toBe(400);
		expect(empty.response.body).toContain('Please write an answer.');

		const answered = callWebhook(pending, { method: 'POST', query: { w: 'w1' }, body: multipart({ text: ' Yes, go ahead ' }) });
		expect((await answered.result).workflowData?.[0][0].json.data).toEqual({ text: 'Yes, go ahead' });
		// A client that posts urlencoded (n8n before 2.41 takes it for every page) is read the same.
		const urlencoded = callWebhook(pending, { method: 'POST', query: { w: 'w1' }, body: { text: 'Plain post' } });
		expect((await urlencoded.result).workflowData?.[0][0].json.data).toEqual({ text: 'Plain post' });
	});

	test('custom form: values are checked by type and come out under their labels', async () => {
		const pending = pendingOf({
			responseType: 'customForm',
			fields: [
				{ label: 'Amount', type: 'number', required: true },
				{ label: 'E-mail', type: 'email', required: false },
				{ label: 'Decision', type: 'dropdown', required: true, options: ['Full refund', 'No refund'] },
				{ label: 'Note', type: 'textarea', required: false },
			],
		});
		const page = callWebhook(pending, { method: 'GET', query: { w: 'w1' } });
		await page.result;
		expect(page.response.body).toContain('<option>Full refund</option>');
		// n8n 2.41 takes nothing but multipart for a custom form, so the browser must send that.
		expect(page.response.body).toMatch(/<form method="post" enctype="multipart\/form-data"/);
		expect(page.response.body).toMatch(/<label for="field-1">E-mail <span class="optional">\(optional\)<\/span><\/label>/);

		const wrong = callWebhook(pending, {
			method: 'POST',
			query: { w: 'w1' },
			body: multipart({ 'field-0': 'forty', 'field-1': 'not-an-address', 'field-2': 'Half refund' }),
		});
		expect(await wrong.result).toEqual({ noWebhookResponse: true });
		expect(wrong.response.status).toBe(400);
		for (const fix of ['Please enter a number.', 'Please enter an e-mail address', 'Please choose one of the options.']) {
			expect(wrong.response.body).toContain(fix);
		}
		expect(wrong.response.body).toContain('value="forty"');

		const right = callWebhook(pending, {
			method: 'POST',
			query: { w: 'w1' },
			body: multipart({ 'field-0': '40.5', 'field-1': '', 'field-2': 'Full refund', 'field-3': 'ok' }),
		});
		expect((await right.result).workflowData?.[0][0].json.data).toEqual({ Amount: 40.5, 'E-mail': '', Decision: 'Full refund', Note: 'ok' });
	});
});
