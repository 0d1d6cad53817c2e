'use strict';
// The daily support report example in n8n's editor, in a real headless
// Chromium: a user opens the workflow the demo imports, runs it, and opens
// Show the report, whose output n8n renders as HTML (its HTML preview: a
// sandboxed iframe of the sanitized HTML). The report is there, every
// channel and the bars with it, the bot's share and the People table. Its
// screenshots are the README's and the Reports section's
// (OMNICHANNEL_DOCS_SCREENSHOTS=1 copies them into docs/).
const { omnichannelCredential, sandboxClient, waitFor } = require('../../harness');
const { DEMO_CREDENTIAL, EXAMPLE_IDS, loadExamples, seedRecentActivity } = require('../../harness/demo');
const { openContext } = require('../support/n8n/context');
const { launchBrowser, screenshot, SETUP_TIMEOUT_MS, withFailureScreenshot } = require('./browser');
const { Editor } = require('./editor');

const STEP_TIMEOUT_MS = 120_000;
const SHOW_NODE = 'Show the report';

describe('the daily support report in n8n’s editor (headless Chromium)', () => {
	let ctx;
	let browser;
	let editor;
	let login;
	let channels;

	beforeAll(async () => {
		browser = await launchBrowser();
		ctx = await openContext();
		const { sandbox, n8n } = ctx;
		// The demo's world: its seed, its recent activity, its credential and the example as shipped.
		await seedRecentActivity(sandbox);
		channels = await sandboxClient(sandbox).listAll('/channels');
		await n8n.importCredentials([omnichannelCredential({ ...DEMO_CREDENTIAL, baseUrl: sandbox.base_url, apiKey: sandbox.key })]);
		await n8n.importWorkflows(loadExamples().filter((workflow) => workflow.id === EXAMPLE_IDS.dailyReport));
		await n8n.start();
		login = await n8n.setupOwnerAndApiKey();
		editor = new Editor(browser.page, n8n.baseUrl);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await browser?.close();
		await ctx?.close();
	});

	const step = (name, fn) => test(name, () => withFailureScreenshot(editor.page, name, fn), STEP_TIMEOUT_MS);

	step('opens the example and runs it', async () => {
		await editor.logIn(login);
		await editor.openWorkflow(EXAMPLE_IDS.dailyReport);
		await editor.runWorkflow();
		await waitFor(async () => ((await editor.nodeSucceeded(SHOW_NODE)) ? true : undefined), { what: `${SHOW_NODE} to finish`, timeoutMs: 60_000 });
	});

	step('Show the report renders the report in the output panel: the totals, every channel, the bars', async () => {
		// A larger screen than the editor test's, for a picture of the whole report.
		await editor.page.setViewportSize({ width: 1600, height: 1000 });
		await editor.openNode(SHOW_NODE);
		const report = editor.htmlOutput();
		await report.locator('h2', { hasText: 'Support report' }).waitFor();
		for (const channel of channels) await report.locator('h3', { hasText: channel.name }).first().waitFor();
		expect(await report.locator('text=median first response').count()).toBe(1);
		expect(await report.locator('text=inactive').count()).toBeGreaterThan(0);
		// The bot's own share in the headline, and the People table of Group By Person.
		expect(await report.locator('text=answered by the bot alone').count()).toBe(1);
		await report.locator('h3', { hasText: 'People' }).waitFor();
		// The output panel wider, as a user would drag it: the bars get room.
		await editor.widenOutput(560);
		// Bars keep their width through n8n's sanitizing of the HTML (the style attribute survives).
		const barWidths = await report.locator('td[style*="height:10px"]').evaluateAll((cells) => cells.map((cell) => cell.getBoundingClientRect().width));
		expect(barWidths.length).toBeGreaterThan(channels.length);
		expect(new Set(barWidths.map((width) => Math.round(width))).size).toBeGreaterThan(3);
		await editor.page.locator('.el-notification').first().waitFor({ state: 'hidden', timeout: 15_000 }).catch(() => undefined);
		await screenshot(editor.page, 'daily-report');
	});

	step('the People table, scrolled into view: a row per person who wrote, with their figures', async () => {
		const report = editor.htmlOutput();
		const people = report.locator('h3', { hasText: 'People' });
		await people.scrollIntoViewIfNeeded();
		const rows = await report.locator('h3:has-text("People") + table tr').count();
		// The heading row and one row per person of the demo's yesterday.
		expect(rows).toBeGreaterThan(1);
		await screenshot(editor.page, 'daily-report-people');
	});
});
