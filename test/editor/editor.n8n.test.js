'use strict';
// The nodes in n8n's editor, in a real headless Chromium, against the real
// n8n of the E2E harness with our packed package installed: a user logs in,
// adds the Omnichannel Trigger and sees its events, adds Contact -> Get Many
// and sees its parameters, and picks a contact from a list the API searched.
// The screenshots it takes are the README's (OMNICHANNEL_DOCS_SCREENSHOTS=1
// copies them into docs/).
const { omnichannelCredential, sandboxClient, waitFor } = require('../../harness');
const { openContext } = require('../support/n8n/context');
const { launchBrowser, screenshot, SETUP_TIMEOUT_MS, withFailureScreenshot } = require('./browser');
const { Editor } = require('./editor');
const expected = require('./expected');

const STEP_TIMEOUT_MS = 90_000;
/** A seeded company: the API's search matches it, names and e-mails do not. */
const COMPANY_SEARCH = 'Northwind';

describe('the nodes in n8n’s editor (headless Chromium)', () => {
	let ctx;
	let sandbox;
	let n8n;
	let browser;
	let editor;
	let login;

	beforeAll(async () => {
		// First: on a bare machine this installs Chromium, and fails early if it cannot.
		browser = await launchBrowser();
		ctx = await openContext();
		({ sandbox, n8n } = ctx);
		await n8n.importCredentials([
			omnichannelCredential({ id: 'browserSandbox01', baseUrl: sandbox.base_url, apiKey: sandbox.key }),
		]);
		await n8n.start();
		login = await n8n.setupOwnerAndApiKey();
		editor = new Editor(browser.page, n8n.baseUrl);
	}, SETUP_TIMEOUT_MS);

	afterAll(async () => {
		await browser?.close();
		await ctx?.close();
	});

	/** One step of the story; a failure leaves test-results/browser/failure-<name>.png. */
	const step = (name, fn) => test(name, () => withFailureScreenshot(editor.page, name, fn), STEP_TIMEOUT_MS);

	step('logs in and opens a new workflow', async () => {
		await editor.logIn(login);
		await editor.openNewWorkflow();
	});

	step('adds the Omnichannel Trigger and shows its events', async () => {
		await editor.openNodeCreator();
		await editor.searchNodes('Omnichannel');
		await editor.clickNodeCreatorItem('Omnichannel');
		await editor.clickNodeCreatorItem('On message created');
		await editor.waitForNodeDetails();

		expect(await editor.credentialName()).toBe('Omnichannel account');
		expect(await editor.parameterText('events')).toBe('Message Created');
		expect(await editor.parameterText('registration')).toBe('Automatic');
		const labels = expected.shownParameterLabels(expected.trigger(), { events: ['message.created'] });
		expect(await editor.parameterLabels()).toEqual(labels);
		expect(await editor.openOptions('events')).toEqual(expected.optionNames(expected.trigger(), 'events'));
		await screenshot(editor.page, 'trigger-events');
		await editor.clickOption('All Events');
		await editor.closeDropdown();
		await editor.closeNodeDetails();
		// The node's subtitle on the canvas names the events, and "*" as "All Events".
		await waitFor(async () => (await editor.canvasNodeLines('Omnichannel Trigger')).includes('All Events'), {
			what: 'the subtitle "All Events" under the trigger',
			timeoutMs: 10_000,
		});
	});

	step('lists an action for every operation', async () => {
		await editor.openNodeCreator({ afterLastNode: true });
		await editor.searchNodes('Omnichannel');
		await editor.clickNodeCreatorItem('Omnichannel');
		await editor.nodeCreatorItem('Get many contacts').waitFor();
		const actions = expected.actionNames(expected.action());
		expect(actions.filter((action) => !action)).toEqual([]);
		expect(await editor.nodeCreatorItemNames()).toEqual(expect.arrayContaining(actions));
		await screenshot(editor.page, 'node-creator');
	});

	step('Contact → Get Many shows its parameters', async () => {
		await editor.clickNodeCreatorItem('Get many contacts');
		await editor.waitForNodeDetails();

		expect(await editor.parameterText('resource')).toBe('Contact');
		expect(await editor.parameterText('operation')).toBe('Get Many');
		const labels = expected.shownParameterLabels(expected.action(), { resource: 'contact', operation: 'getAll' });
		expect(labels).toEqual(expect.arrayContaining(['Return All', 'Limit', 'Filters']));
		expect(await editor.parameterLabels()).toEqual(labels);
		// n8n itself appends "Custom API Call" (the HTTP Request node with our credential).
		const operations = await editor.openOptions('operation');
		expect(operations.filter((name) => name !== 'Custom API Call')).toEqual(
			expected.optionNames(expected.action(), 'operation', { resource: 'contact' }),
		);
		await editor.closeDropdown();
		await screenshot(editor.page, 'contact-get-many');
	});

	step('the contact picker lists sandbox contacts, searched by the API', async () => {
		const client = sandboxClient(sandbox);
		const names = (contacts) => contacts.map((contact) => contact.name);
		await editor.chooseOption('operation', 'Get');
		expect(await editor.resourceLocatorMode('contactId')).toBe('From list');

		await editor.openResourceList('contactId');
		const firstPage = names((await client.api('GET', '/contacts?per_page=100')).data);
		const shownNames = async () => (await editor.resourceListItems()).map((item) => item.split(' · ')[0]);
		await waitFor(async () => (await shownNames()).length === firstPage.length, {
			what: `${firstPage.length} contacts in the picker`,
			timeoutMs: 20_000,
		});
		expect(await shownNames()).toEqual(firstPage);

		// The search must reach the API (which also matches companies and phones),
		// not just filter the loaded page: the sandbox counts the requests.
		const requestsBefore = (await client.control('GET', '/stats')).by_route['GET /contacts'] ?? 0;
		const matches = names((await client.api('GET', `/contacts?per_page=100&search=${COMPANY_SEARCH}`)).data);
		expect(matches.length).toBeGreaterThan(0);
		await editor.searchResourceList(COMPANY_SEARCH);
		await waitFor(async () => JSON.stringify(await shownNames()) === JSON.stringify(matches), {
			what: `the contacts of ${COMPANY_SEARCH} in the picker`,
			timeoutMs: 20_000,
		});
		const requestsAfter = (await client.control('GET', '/stats')).by_route['GET /contacts'];
		expect(requestsAfter).toBeGreaterThan(requestsBefore + 1);
		await screenshot(editor.page, 'contact-picker');
	});

	step('Contact → Create or Update shows Match By, the fields and their hints', async () => {
		await editor.chooseOption('operation', 'Create or Update');
		const labels = expected.shownParameterLabels(expected.action(), { resource: 'contact', operation: 'createOrUpdate' });
		expect(labels).toEqual(expect.arrayContaining(['Match By', 'Email', 'Phone', 'Name', 'Additional Fields', 'Options']));
		expect(await editor.parameterLabels()).toEqual(labels);
		expect(await editor.parameterText('matchBy')).toBe('Email');
		expect(await editor.openOptions('matchBy')).toEqual(expected.optionNames(expected.action(), 'matchBy', { resource: 'contact', operation: 'createOrUpdate' }));
		await editor.closeDropdown();
		await screenshot(editor.page, 'contact-create-or-update');
	});
});
