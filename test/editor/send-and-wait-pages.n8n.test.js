'use strict';
// The pages of Message > Send and Wait for Response in a real headless
// Chromium, served by a real n8n with our packed package: a person opens the
// form link from the message on a phone-sized and a desktop-sized screen,
// fills it in and sends it; the page fits the screen (no sideways scrolling,
// inputs as wide as the card), the browser accepts the page's own security
// policy, and the workflow gets the answer. The two form screenshots are the
// README's (OMNICHANNEL_DOCS_SCREENSHOTS=1 copies them into docs/).
const { omnichannelCredential, sandboxClient } = require('../../harness');
const { openContext } = require('../support/n8n/context');
const { FLOWS, allWorkflows, conversationDriver } = require('../action-node/send-and-wait-support');
const { launchBrowser, screenshot, SETUP_TIMEOUT_MS, withFailureScreenshot, VIEWPORT } = require('./browser');
const { Editor } = require('./editor');
const expected = require('./expected');

const STEP_TIMEOUT_MS = 90_000;
const PHONE = { width: 390, height: 844 };

describe('the Send and Wait pages (headless Chromium)', () => {
	let ctx;
	let sandbox;
	let n8n;
	let browser;
	let driver;
	let login;

	beforeAll(async () => {
		browser = await launchBrowser();
		ctx = await openContext();
		({ sandbox, n8n } = ctx);
		driver = conversationDriver(sandboxClient(sandbox));
		const credential = omnichannelCredential({ id: 'browserSawCred01', baseUrl: sandbox.base_url, apiKey: sandbox.key });
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows(allWorkflows(credential));
		await n8n.start();
		login = await n8n.setupOwnerAndApiKey();
		await n8n.publishWorkflow(FLOWS.form.id);
		await n8n.publishWorkflow(FLOWS.approval.id);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await browser?.close();
		await ctx?.close();
	});

	const step = (name, fn) => test(name, () => withFailureScreenshot(browser.page, name, fn), STEP_TIMEOUT_MS);

	/** What a person sees of the layout: sideways scrolling, and the narrowest input against the card. */
	const layout = () =>
		browser.page.evaluate(() => {
			const cardElement = document.querySelector('.card');
			const card = cardElement.getBoundingClientRect();
			const style = getComputedStyle(cardElement);
			const contentWidth = cardElement.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
			const inputs = [...document.querySelectorAll('input, select, textarea')].map((element) => element.getBoundingClientRect().width);
			return {
				scrollsSideways: document.documentElement.scrollWidth > window.innerWidth,
				cardWidth: card.width,
				contentWidth,
				narrowestInput: inputs.length > 0 ? Math.min(...inputs) : undefined,
			};
		});

	step('the editor offers Send and Wait for Response with its parameters', async () => {
		const editor = new Editor(browser.page, n8n.baseUrl);
		await browser.page.setViewportSize(VIEWPORT);
		await editor.logIn(login);
		await editor.openNewWorkflow();
		await editor.openNodeCreator();
		await editor.searchNodes('Omnichannel');
		await editor.clickNodeCreatorItem('Omnichannel');
		// On an empty canvas n8n shows the triggers and folds the actions.
		await browser.page.getByText(/^Actions \(\d+\)$/).click();
		await editor.clickNodeCreatorItem('Send message and wait for response');
		await editor.waitForNodeDetails();
		expect(await editor.parameterText('operation')).toBe('Send and Wait for Response');
		const labels = expected.shownParameterLabels(expected.action(), { resource: 'message', operation: 'sendAndWait' });
		expect(labels).toEqual(expect.arrayContaining(['Conversation', 'Message', 'Response Type', 'Approval Options']));
		expect(await editor.parameterLabels()).toEqual(labels);
		await screenshot(browser.page, 'send-and-wait-node');

		// Reply in Chat: whose reply counts, and Simplify for the reply; no page options.
		expect(await editor.openOptions('responseType')).toEqual(expected.optionNames(expected.action(), 'responseType'));
		await editor.closeDropdown();
		await editor.chooseOption('responseType', 'Reply in Chat');
		const chatLabels = expected.shownParameterLabels(expected.action(), { resource: 'message', operation: 'sendAndWait', responseType: 'chatReply' });
		expect(chatLabels).toEqual(expect.arrayContaining(['Reply From', 'Simplify']));
		expect(chatLabels).not.toContain('Approval Options');
		expect(await editor.parameterLabels()).toEqual(chatLabels);
		expect(await editor.parameterText('replyFrom')).toBe('Customer');
		await screenshot(browser.page, 'send-and-wait-chat-node');
		await editor.closeNodeDetails();
	});

	for (const [name, viewport] of [
		['phone', PHONE],
		['desktop', VIEWPORT],
	]) {
		step(`the form page on a ${name} screen fits it, and sending it resumes the workflow`, async () => {
			const { page } = browser;
			await page.setViewportSize(viewport);
			const conversation = await driver.newConversation('whatsapp');
			const { links } = await driver.start(
				n8n.baseUrl,
				FLOWS.form,
				conversation.id,
				'Customer Ana Silva asks for a refund for order 1043 (a dented box). How do we settle it?',
				n8n.api,
			);
			await page.goto(links[0].url);
			await page.getByRole('heading', { name: 'Your answer is requested' }).waitFor();
			const shown = await layout();
			expect(shown.scrollsSideways).toBe(false);
			expect(shown.cardWidth).toBeLessThanOrEqual(viewport.width);
			// Every input spans the card's content box.
			expect(shown.narrowestInput).toBeGreaterThanOrEqual(shown.contentWidth - 0.5);

			await page.getByLabel('Decision').selectOption('Partial refund');
			await page.getByLabel('Amount').fill('12.50');
			await page.getByLabel('Note (optional)').fill('Keep the box; refund the shipping.');
			await screenshot(page, `send-and-wait-form-${name}`);
			await page.getByRole('button', { name: 'Send' }).click();
			await page.getByRole('heading', { name: 'Thank you' }).waitFor();
			expect((await layout()).scrollsSideways).toBe(false);

			const [output] = await driver.waitForAfter(conversation.id);
			expect(output.data).toEqual({ Decision: 'Partial refund', Amount: 12.5, Note: 'Keep the box; refund the shipping.' });
		});
	}

	step('the form page shows what to fix beside a field the browser let through, and takes the corrected answer', async () => {
		const { page } = browser;
		await page.setViewportSize(VIEWPORT);
		const conversation = await driver.newConversation('whatsapp');
		const { links } = await driver.start(n8n.baseUrl, FLOWS.form, conversation.id, 'Settle order 1044?', n8n.api);
		await page.goto(links[0].url);
		await page.getByLabel('Decision').selectOption('No refund');
		await page.getByLabel('Amount').fill('0');
		// The browser checks types and required fields itself; the answer's length only the node checks.
		await page.getByLabel('Note (optional)').fill('x'.repeat(10_001));
		await page.getByRole('button', { name: 'Send' }).click();
		await page.getByText('Please check the fields marked below.').waitFor();
		expect(await page.locator('#field-2-error').textContent()).toBe('Please keep it under 10000 characters.');
		expect(await page.getByLabel('Decision').inputValue()).toBe('No refund');
		expect(await driver.afterOutputs(conversation.id)).toEqual([]);

		await page.getByLabel('Note (optional)').fill('Sent twice by mistake.');
		await page.getByRole('button', { name: 'Send' }).click();
		await page.getByRole('heading', { name: 'Thank you' }).waitFor();
		const [output] = await driver.waitForAfter(conversation.id);
		expect(output.data).toEqual({ Decision: 'No refund', Amount: 0, Note: 'Sent twice by mistake.' });
	});

	step('an approval link asks before it records, and the browser can send the answer', async () => {
		const { page } = browser;
		await page.setViewportSize(PHONE);
		const conversation = await driver.newConversation();
		const { links } = await driver.start(n8n.baseUrl, FLOWS.approval, conversation.id, 'Refund €40 for order 1042?', n8n.api);
		await page.goto(links[0].url);
		await page.getByRole('button', { name: 'Approve' }).waitFor();
		expect((await layout()).scrollsSideways).toBe(false);
		expect(await driver.afterOutputs(conversation.id)).toEqual([]);
		await page.getByRole('button', { name: 'Approve' }).click();
		await page.getByRole('heading', { name: 'Thank you' }).waitFor();
		const [output] = await driver.waitForAfter(conversation.id);
		expect(output.data).toEqual({ approved: true });
	});
});
