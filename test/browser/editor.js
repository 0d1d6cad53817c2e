'use strict';
// The parts of n8n 2.40.7's editor the browser test uses, found by the
// data-test-id attributes n8n's own end-to-end tests rely on (read from
// n8n-editor-ui/dist). Element Plus dropdown options without such an id are
// found by their ARIA role. Every wait has Playwright's deadline.
const byTestId = (id) => `[data-test-id="${id}"]`;
const exactly = (text) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

class Editor {
	/** @param {import('playwright-core').Page} page */
	constructor(page, baseUrl) {
		this.page = page;
		this.baseUrl = baseUrl;
	}

	testId(id) {
		return this.page.locator(byTestId(id));
	}

	async logIn({ email, password }) {
		await this.page.goto(`${this.baseUrl}/signin`);
		await this.page.locator(`${byTestId('emailOrLdapLoginId')} input`).fill(email);
		await this.page.locator(`${byTestId('password')} input`).fill(password);
		await this.testId('form-submit-button').click();
		await this.page.waitForURL((url) => !url.pathname.startsWith('/signin'));
	}

	async openNewWorkflow() {
		await this.page.goto(`${this.baseUrl}/workflow/new`);
		await this.testId('canvas-add-button').waitFor();
	}

	// --- node creator (the panel that adds nodes) ---

	/** Opens the node creator from the empty canvas, or after the last node when there is one. */
	async openNodeCreator({ afterLastNode = false } = {}) {
		await (afterLastNode ? this.testId('canvas-handle-plus').last() : this.testId('canvas-add-button')).click();
		await this.testId('node-creator').waitFor();
	}

	async searchNodes(text) {
		await this.testId('node-creator-search-bar').fill(text);
	}

	nodeCreatorItem(name) {
		return this.testId('node-creator-item-name').filter({ hasText: exactly(name) });
	}

	async clickNodeCreatorItem(name) {
		await this.nodeCreatorItem(name).click();
	}

	async nodeCreatorItemNames() {
		return (await this.testId('node-creator-item-name').allInnerTexts()).map((text) => text.trim());
	}

	// --- node details view (the parameter panel) ---

	async waitForNodeDetails() {
		await this.testId('ndv').waitFor();
		await this.testId('node-parameters').waitFor();
	}

	async closeNodeDetails() {
		await this.testId('ndv-close-button').click();
		await this.testId('ndv').waitFor({ state: 'hidden' });
	}

	/** The labels of the parameters shown, top to bottom (the credential slot excluded). */
	async parameterLabels() {
		const labels = this.page.locator(`${byTestId('node-parameters')} ${byTestId('input-label')} label`);
		return (await labels.allInnerTexts()).map((text) => text.trim()).filter(Boolean);
	}

	/** What a parameter shows: a dropdown's chosen option(s), a text field's value. */
	async parameterText(name) {
		const input = this.testId(`parameter-input-${name}`);
		const text = (await input.innerText()).trim();
		return text || (await input.locator('input').first().inputValue());
	}

	async credentialName() {
		return (await this.testId('node-credentials-select').innerText()).trim();
	}

	/** Opens a dropdown parameter and returns its options' names. */
	async openOptions(name) {
		await this.testId(`parameter-input-${name}`).click();
		const headlines = this.page.getByRole('option').locator('.option-headline');
		await headlines.first().waitFor();
		return (await headlines.allInnerTexts()).map((text) => text.trim());
	}

	async chooseOption(name, option) {
		await this.openOptions(name);
		await this.page.getByRole('option').filter({ has: this.page.locator('.option-headline', { hasText: exactly(option) }) }).click();
		await this.page.getByRole('listbox').waitFor({ state: 'hidden' });
	}

	async closeDropdown() {
		await this.page.keyboard.press('Escape');
		await this.page.getByRole('listbox').waitFor({ state: 'hidden' });
	}

	// --- resource locator ("From list" picker) ---

	async resourceLocatorMode(name) {
		return (await this.testId(`resource-locator-${name}`).locator(byTestId('rlc-mode-selector')).innerText()).trim();
	}

	async openResourceList(name) {
		await this.testId(`resource-locator-${name}`).locator(byTestId('rlc-input')).click();
		await this.testId('rlc-search').waitFor();
	}

	async searchResourceList(text) {
		await this.testId('rlc-search').fill(text);
	}

	async resourceListItems() {
		return (await this.testId('rlc-item').allInnerTexts()).map((text) => text.trim());
	}
}

module.exports = { Editor };
