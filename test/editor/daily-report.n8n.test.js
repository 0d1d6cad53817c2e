'use strict';
// The daily support report example in n8n's editor, in a real headless
// Chromium: a user opens the workflow the demo imports, runs it, and opens
// Show the report, whose output n8n renders as HTML (its HTML preview: a
// sandboxed iframe of the sanitized HTML). The report is there, every
// channel and the bars with it, the bot's share and the People table. Its
// screenshots are the README's and the Reports section's
// (OMNICHANNEL_DOCS_SCREENSHOTS=1 copies them into docs/). Then the same
// world's report in node version 1.1 with Business Hours and the previous
// period, its e-mail HTML opened at a desktop's and a phone's width: it
// fits each without scrolling sideways (docs/report-compared-*.png).
const { nodeOutput, omnichannelCredential, sandboxClient, waitFor, workflows: w } = require('../../harness');
const { DEMO_CREDENTIAL, EXAMPLE_IDS, loadExamples, seedRecentActivity } = require('../../harness/demo');
const { openContext } = require('../support/n8n/context');
const { launchBrowser, screenshot, SETUP_TIMEOUT_MS, VIEWPORT, withFailureScreenshot } = require('./browser');
const { Editor } = require('./editor');

const STEP_TIMEOUT_MS = 120_000;
const SHOW_NODE = 'Show the report';
const PHONE = { width: 390, height: 844 };
/** The last 24 hours beside the 24 before (the demo's recent activity spans 50 hours), every day open for part of it. */
const COMPARED = { id: 'edReportCompar01', node: 'Report', businessHours: 'Mon-Fri 08:00-12:30, 13:30-20:00; Sat-Sun 10:00-16:00' };

function comparedReportWorkflow(credential) {
	const built = w.workflow({
		id: COMPARED.id,
		name: 'Report with business hours and the previous period',
		nodes: [
			w.manualTrigger(),
			w.omnichannelNode(
				COMPARED.node,
				credential,
				{ resource: 'report', operation: 'get', period: 'lastHours', hours: 24, includeHtml: true, options: { businessHours: COMPARED.businessHours, compareWith: 'previousPeriod' } },
				{ typeVersion: 1.1 },
			),
		],
		connections: w.chain('Start', COMPARED.node),
	});
	return { ...built, settings: { ...built.settings, timezone: 'Europe/Berlin' } };
}

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
		const credential = omnichannelCredential({ ...DEMO_CREDENTIAL, baseUrl: sandbox.base_url, apiKey: sandbox.key });
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows([...loadExamples().filter((workflow) => workflow.id === EXAMPLE_IDS.dailyReport), comparedReportWorkflow(credential)]);
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

	step('version 1.1 with Business Hours and the previous period: the e-mail HTML fits a desktop and a phone, with the changes', async () => {
		const run = await ctx.n8n.executeWorkflow(COMPARED.id);
		const total = nodeOutput(run, COMPARED.node).find((item) => item.scope === 'total');
		expect(total).toMatchObject({ clock: 'businessHours', comparedWith: 'previousPeriod' });
		const page = await editor.page.context().newPage();
		try {
			for (const [name, viewport] of [
				['desktop', { width: VIEWPORT.width, height: 1400 }],
				['phone', { ...PHONE, height: 1600 }],
			]) {
				await page.setViewportSize(viewport);
				await page.setContent(`<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head><body style="margin:12px">${total.html}</body></html>`);
				await page.locator('h2', { hasText: 'Support report' }).waitFor();
				expect(await page.locator('text=times in business hours').count()).toBe(1);
				expect(await page.locator('text=/compared with/').count()).toBe(1);
				expect(await page.locator('text=/[▲▼=] .*\\(before: /').count()).toBeGreaterThan(0);
				const scrollsSideways = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
				expect([name, scrollsSideways]).toEqual([name, false]);
				await screenshot(page, `report-compared-${name}`);
			}
		} finally {
			await page.close();
		}
	});
});
