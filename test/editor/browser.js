'use strict';
// Starts Debian's Chromium headless through playwright-core, with a fresh
// profile each time, and keeps the screenshots the browser test takes.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const { SETUP_TIMEOUT_MS: N8N_SETUP_TIMEOUT_MS } = require('../support/n8n/context');
const { ensureChromium, INSTALL_TIMEOUT_MS } = require('./chromium');

const REPO_ROOT = path.join(__dirname, '..', '..');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results', 'browser');
const DOCS_DIR = path.join(REPO_ROOT, 'docs');
/** Set to 1 to refresh the README's screenshots in docs/ from this run. */
const UPDATE_DOCS = process.env.OMNICHANNEL_DOCS_SCREENSHOTS === '1';

/** A browser suite's set-up on a bare machine: Chromium from apt, then the n8n its context installs. */
const SETUP_TIMEOUT_MS = INSTALL_TIMEOUT_MS + N8N_SETUP_TIMEOUT_MS;

const VIEWPORT = { width: 1280, height: 800 };
const ACTION_TIMEOUT_MS = 30_000;
/** The editor's first load is about 35 MB of JavaScript: slow on a busy 2-core machine. */
const NAVIGATION_TIMEOUT_MS = 60_000;

// This machine refuses outside connections: without the background-networking,
// component-update and sync switches Chromium's own connections fail and stall it.
const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

/** A headless Chromium with one page; `close()` also removes its profile. */
async function launchBrowser() {
	const executablePath = ensureChromium();
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-chromium-'));
	let context;
	try {
		context = await chromium.launchPersistentContext(profile, {
			executablePath,
			headless: true,
			args: CHROMIUM_ARGS,
			viewport: VIEWPORT,
			timeout: 60_000,
		});
	} catch (error) {
		fs.rmSync(profile, { recursive: true, force: true });
		throw error;
	}
	const page = context.pages()[0] ?? (await context.newPage());
	page.setDefaultTimeout(ACTION_TIMEOUT_MS);
	page.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
	return {
		page,
		async close() {
			await context.close();
			fs.rmSync(profile, { recursive: true, force: true });
		},
	};
}

/** Saves a screenshot to test-results/browser/ (and to docs/ when asked to). */
async function screenshot(page, name) {
	fs.mkdirSync(RESULTS_DIR, { recursive: true });
	const file = path.join(RESULTS_DIR, `${name}.png`);
	// The pointer stays where the last click was, and what it hovers shows extra
	// controls; the bottom edge (n8n's logs bar, or the dialog's backdrop) shows none.
	await page.mouse.move(VIEWPORT.width / 2, VIEWPORT.height - 1);
	// Panels slide and dropdowns fade: finish those transitions rather than catch them halfway.
	await page.screenshot({ path: file, animations: 'disabled' });
	if (UPDATE_DOCS && !name.startsWith('failure-')) fs.copyFileSync(file, path.join(DOCS_DIR, `${name}.png`));
	return file;
}

/** Runs `fn`; when it fails, keeps a screenshot of the page as it was, then rethrows. */
async function withFailureScreenshot(page, name, fn) {
	try {
		return await fn();
	} catch (error) {
		const slug = name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
		const file = await screenshot(page, `failure-${slug}`).catch(() => undefined);
		if (file) error.message += `\n(screenshot: ${path.relative(REPO_ROOT, file)})`;
		throw error;
	}
}

module.exports = { launchBrowser, screenshot, withFailureScreenshot, SETUP_TIMEOUT_MS, VIEWPORT };
