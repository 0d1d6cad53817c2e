'use strict';
// Message > Send and Wait for Response in a running n8n (regular mode), with
// the packed package: published workflows start from a Webhook node, the
// question with its links arrives in the sandbox, a person follows a link as
// a browser does (GET the page, POST its form), and the node after Send and
// Wait records in the sandbox what came out. Also: opening a page answers
// nothing, forged links are refused by n8n, a second answer changes nothing,
// and a wait limit ends the wait with a timedOut item.
const { sleep } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { FLOWS, allWorkflows, answer, conversationDriver, executionOf, formOf, openForm, submit, visit } = require('./send-and-wait-support');

/** n8n's wait tracker looks for ended waits every 60 s: a limit resumes up to a minute late. */
const TEST_TIMEOUT_MS = 4 * 60 * 1000;
/** Time for anything that should not happen (a second resumption) to show up. */
const QUIET_PERIOD_MS = 3000;

describe('Send and Wait for Response in n8n (regular mode)', () => {
	let ctx;
	let driver;

	const status = async (executionId) => (await ctx.n8n.api.getExecution(executionId, { includeData: false })).status;

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		driver = conversationDriver(client);
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows(allWorkflows(credential));
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		for (const flow of Object.values(FLOWS)) await n8n.publishWorkflow(flow.id);
	}, SETUP_TIMEOUT_MS);

	afterAll(() => ctx?.close());

	test(
		'approval: the links arrive, the page answers nothing, forged links are refused, Decline resumes once',
		async () => {
			const conversation = await driver.newConversation();
			const question = 'Refund €40 for order 1042?';
			const { message, links } = await driver.start(ctx.n8n.baseUrl, FLOWS.approval, conversation.id, question, ctx.n8n.api);
			expect(message.content.split('\n').slice(0, 2)).toEqual([question, '']);
			expect(links.map((link) => link.label)).toEqual(['Approve', 'Decline']);
			const [approve, decline] = links;
			const executionId = executionOf(approve);
			expect(await status(executionId)).toBe('waiting');

			// Opening a link (as a link preview does) shows the page and records nothing.
			const page = await visit(decline.url);
			expect(page.status).toBe(200);
			expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
			expect(page.html).toContain('<p>Refund €40 for order 1042?</p>');
			expect(page.html).toMatch(/<form method="post"/);
			const declineForm = formOf(decline.url, page.html);
			const approveForm = await openForm(approve.url);
			await sleep(QUIET_PERIOD_MS);
			expect(await status(executionId)).toBe('waiting');

			// A link whose answer was changed, or with a made-up signature: n8n refuses it.
			const flipped = new URL(approve.url);
			flipped.searchParams.set('approved', 'false');
			const madeUp = new URL(approve.url);
			madeUp.searchParams.set('signature', 'f'.repeat(64));
			for (const forged of [flipped, madeUp]) {
				expect((await submit({ ...approveForm, url: forged.toString() })).status).toBe(401);
			}
			expect(await status(executionId)).toBe('waiting');

			const submitted = await submit(declineForm);
			expect(submitted.status).toBe(200);
			expect(submitted.html).toContain('Your answer: <strong>Decline</strong>');
			const [output] = await driver.waitForAfter(conversation.id);
			expect(output).toEqual({
				timedOut: false,
				respondedAt: expect.any(String),
				waitedMs: expect.any(Number),
				data: { approved: false },
				messageId: message.id,
				conversationId: conversation.id,
			});

			// A second answer, from the other link's page or the same page again, changes nothing.
			const again = await submit(approveForm);
			const reload = await submit(declineForm);
			for (const late of [again, reload]) expect(late.html).not.toContain('Your answer:');
			await sleep(QUIET_PERIOD_MS);
			expect(await driver.afterOutputs(conversation.id)).toHaveLength(1);
			expect(await status(executionId)).toBe('success');
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'two answers sent at the same moment resume the execution once',
		async () => {
			const conversation = await driver.newConversation();
			const { links } = await driver.start(ctx.n8n.baseUrl, FLOWS.approval, conversation.id, 'Both managers click at once?', ctx.n8n.api);
			const forms = await Promise.all(links.map((link) => openForm(link.url)));
			await Promise.all(forms.map((form) => submit(form)));
			await driver.waitForAfter(conversation.id);
			await sleep(QUIET_PERIOD_MS);
			const outputs = await driver.afterOutputs(conversation.id);
			expect(outputs).toHaveLength(1);
			expect(typeof outputs[0].data.approved).toBe('boolean');
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'free text: an empty answer shows the page again and keeps waiting; the answer resumes',
		async () => {
			const conversation = await driver.newConversation('telegram');
			const { links } = await driver.start(ctx.n8n.baseUrl, FLOWS.freeText, conversation.id, 'What should we tell the customer?', ctx.n8n.api);
			expect(links.map((link) => link.label)).toEqual(['Answer here']);
			const empty = await answer(links[0].url, { text: '  ' });
			expect(empty.status).toBe(400);
			expect(empty.html).toContain('Please write an answer.');
			expect(await status(executionOf(links[0]))).toBe('waiting');

			const done = await answer(links[0].url, { text: 'Offer a voucher ✓' });
			expect(done.status).toBe(200);
			const [output] = await driver.waitForAfter(conversation.id);
			expect(output.data).toEqual({ text: 'Offer a voucher ✓' });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'custom form: invalid fields are shown with what to fix; valid ones come out under their labels',
		async () => {
			const conversation = await driver.newConversation('whatsapp');
			const { links } = await driver.start(ctx.n8n.baseUrl, FLOWS.form, conversation.id, 'How do we settle order 1043?', ctx.n8n.api);
			const wrong = await answer(links[0].url, { 'field-0': 'Half refund', 'field-1': 'forty' });
			expect(wrong.status).toBe(400);
			expect(wrong.html).toContain('Please choose one of the options.');
			expect(wrong.html).toContain('Please enter a number.');

			await answer(links[0].url, { 'field-0': 'Partial refund', 'field-1': '12.5', 'field-2': 'Box was dented' });
			const [output] = await driver.waitForAfter(conversation.id);
			expect(output.data).toEqual({ Decision: 'Partial refund', Amount: 12.5, Note: 'Box was dented' });
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'a wait limit of 3 seconds ends the wait with a timedOut item; an answer after the limit records nothing',
		async () => {
			const conversation = await driver.newConversation();
			const { message, links } = await driver.start(ctx.n8n.baseUrl, FLOWS.timeout, conversation.id, 'Quick: approve?', ctx.n8n.api);
			const executionId = executionOf(links[0]);
			const approveForm = await openForm(links[0].url);
			const execution = await ctx.n8n.api.getExecution(executionId);
			const expiresAt = Date.parse(execution.waitTill);
			await sleep(Math.max(0, expiresAt - Date.now()) + 500);

			// Past the limit: our "expired" page while n8n has not resumed it yet, n8n's own page after.
			const late = await submit(approveForm);
			if (late.status === 410) expect(late.html).toContain('This link has expired');
			else expect(late.html).not.toContain('Your answer:');

			const [output] = await driver.waitForAfter(conversation.id, 100_000);
			expect(output).toEqual({
				timedOut: true,
				data: {},
				messageId: message.id,
				conversationId: conversation.id,
				sentAt: expect.any(String),
				request: expect.objectContaining({ responseType: 'approval', question: 'Quick: approve?', expiresAt: new Date(expiresAt).toISOString() }),
			});
			await sleep(QUIET_PERIOD_MS);
			expect(await driver.afterOutputs(conversation.id)).toHaveLength(1);
		},
		TEST_TIMEOUT_MS,
	);
});
