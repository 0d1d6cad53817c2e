'use strict';
// The parts of n8n 2.40.7's editor the browser test uses, found by the
// data-test-id attributes n8n's own end-to-end tests rely on (read from
// n8n-editor-ui/dist). Element Plus dropdown options without such an id are
// found by their ARIA role. Every wait has Playwright's deadline.
const byTestId = (id) => `[data-test-id="${id}"]`;
const exactly = (text) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/** A field's visible text: selects render it as text, inputs hold it as their value. */
async function shownText(field) {
	const text = (await field.innerText()).trim();
	if (text) return text;
	const input = field.locator('input').first();
	return (await input.count()) > 0 ? await input.inputValue() : '';
}

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

	/** Opens a saved workflow on the canvas. */
	async openWorkflow(id) {
		await this.page.goto(`${this.baseUrl}/workflow/${id}`);
		await this.testId('canvas-node').first().waitFor();
	}

	/** Runs the open workflow from the canvas' Execute Workflow button (its first trigger when it has several). */
	async runWorkflow() {
		await this.testId('execute-workflow-button').first().click();
	}

	/** Whether a node on the canvas shows that it ran successfully. */
	async nodeSucceeded(name) {
		const node = this.testId('canvas-node').filter({ hasText: name });
		return (await node.locator(byTestId('canvas-node-status-success')).count()) > 0;
	}

	/** Opens a node's details (its parameters and output) from the canvas. */
	async openNode(name) {
		await this.testId('canvas-node').filter({ hasText: name }).dblclick();
		await this.testId('ndv').waitFor();
	}

	/** The output panel's HTML preview (n8n renders an HTML node's output in a sandboxed iframe). */
	htmlOutput() {
		return this.page.frameLocator('iframe.__html-display');
	}

	/** Drags the node details' middle panel (by its handle) to the left, so the output panel gets wider. */
	async widenOutput(pixels) {
		const box = await this.testId('panel-drag-button').boundingBox();
		const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
		await this.page.mouse.move(x, y);
		await this.page.mouse.down();
		await this.page.mouse.move(x - pixels / 2, y, { steps: 5 });
		await this.page.mouse.move(x - pixels, y, { steps: 5 });
		await this.page.mouse.up();
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

	// --- canvas ---

	/** The lines of text of a node on the canvas: its name, its subtitle, buttons next to it. */
	async canvasNodeLines(name) {
		const node = this.testId('canvas-node').filter({ hasText: name });
		return (await node.innerText()).split('\n').map((line) => line.trim());
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

	/** The labels of the parameters shown, top to bottom (the Settings tab's are hidden). */
	async parameterLabels() {
		// A label also holds its Fixed/Expression switch: its first text is the name.
		const labels = this.page.locator(`${byTestId('node-parameters')} ${byTestId('input-label')}:visible label`);
		return await labels.evaluateAll((elements) =>
			elements.map((label) => label.querySelector('span')?.textContent.trim() ?? ''),
		);
	}

	/** What a parameter shows: a dropdown's chosen option(s), a text field's value. */
	async parameterText(name) {
		return await shownText(this.testId(`parameter-input-${name}`));
	}

	async credentialName() {
		return await shownText(this.testId('node-credentials-select'));
	}

	/** Opens a dropdown parameter and returns its options' names. */
	async openOptions(name) {
		await this.testId(`parameter-input-${name}`).click();
		const headlines = this.page.getByRole('option').locator('.option-headline');
		await headlines.first().waitFor();
		return (await headlines.allInnerTexts()).map((text) => text.trim());
	}

	/** Clicks an option of the open dropdown (a multi-select stays open). */
	async clickOption(option) {
		const headline = this.page.locator('.option-headline', { hasText: exactly(option) });
		await this.page.getByRole('option').filter({ has: headline }).click();
	}

	async chooseOption(name, option) {
		await this.openOptions(name);
		await this.clickOption(option);
		await this.page.getByRole('listbox').waitFor({ state: 'hidden' });
	}

	async closeDropdown() {
		await this.page.keyboard.press('Escape');
		await this.page.getByRole('listbox').waitFor({ state: 'hidden' });
	}

	// --- resource locator ("From list" picker) ---

	async resourceLocatorMode(name) {
		return await shownText(this.testId(`resource-locator-${name}`).locator(byTestId('rlc-mode-selector')));
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
