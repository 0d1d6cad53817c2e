'use strict';
// Answers sent at the same moment to one waiting Send and Wait, in a running
// n8n (regular mode): n8n continues the execution with one of them, and only
// the person whose answer it used may be told that it was recorded; everyone
// else must learn that it was not. Prints what each person saw.
const { sleep } = require('../../harness');
const { openContext, SETUP_TIMEOUT_MS, TEST_TIMEOUT_MS } = require('../support/n8n/context');
const { FLOWS, allWorkflows, conversationDriver, executionOf, openForm, submit, visit } = require('./send-and-wait-support');

/** Time for anything that should not happen (a second resumption) to show up. */
const QUIET_PERIOD_MS = 3000;

/** What a person's browser shows after sending the answer. */
function seen({ status, html }) {
	if (html.includes('It has been sent.')) return 'recorded';
	if (status === 409 && html.includes('Your answer was not recorded')) return 'not recorded (our page)';
	if (html.includes('<title>No action required</title>')) return "n8n's no action required page";
	if (status === 409 && html.includes('is running already')) return "n8n's 409 running already";
	// n8n's own errors before the node is reached (seen: a TypeError where n8n prepares the resumption).
	if (status === 500 && html.startsWith('{"code":0,')) return "n8n's 500 JSON";
	return `other: ${status} ${html.slice(0, 120)}`;
}

/** What people whose answer was not used may see: never that it was recorded. */
const NOT_RECORDED = ['not recorded (our page)', "n8n's 409 running already", "n8n's no action required page", "n8n's 500 JSON"];

function counts(outcomes) {
	const counted = {};
	for (const outcome of outcomes) counted[outcome] = (counted[outcome] ?? 0) + 1;
	return counted;
}

/** What Send and Wait put out in the execution, read from n8n's saved run data. */
async function askOutputs(api, executionId) {
	const execution = await api.getExecution(executionId);
	return (execution.data.resultData.runData.Ask ?? []).flatMap((run) => (run.data?.main?.[0] ?? []).map((item) => item.json));
}

describe('Send and Wait: answers sent at the same moment (regular mode)', () => {
	let ctx;
	let driver;

	beforeAll(async () => {
		ctx = await openContext();
		const { n8n, credential, client } = ctx;
		driver = conversationDriver(client);
		await n8n.importCredentials([credential]);
		await n8n.importWorkflows(allWorkflows(credential));
		await n8n.start();
		await n8n.setupOwnerAndApiKey();
		for (const flow of [FLOWS.approval, FLOWS.freeText]) await n8n.publishWorkflow(flow.id);
	}, SETUP_TIMEOUT_MS);

	afterAll(() => ctx?.close());

	/** Sends the answers at once; checks that one was used, and that only its sender was told it was recorded. */
	async function race(conversationId, executionId, answers) {
		// Every person has the page open first, then they all press its button at once.
		const forms = await Promise.all(answers.map(({ url }) => openForm(url)));
		const responses = await Promise.all(answers.map(({ fields }, index) => submit(forms[index], fields)));
		const outcomes = responses.map(seen);
		const errors = responses.filter((response) => seen(response) === "n8n's 500 JSON").map((response) => JSON.parse(response.html).message);
		if (errors.length > 0) console.log(`send and wait race: n8n's 500 answers: ${JSON.stringify(counts(errors))}`);
		const [output] = await driver.waitForAfter(conversationId);
		await sleep(QUIET_PERIOD_MS);

		// One resumption: the node after Send and Wait ran once, and Send and Wait put out one item.
		expect(await driver.afterOutputs(conversationId)).toHaveLength(1);
		const outputs = await askOutputs(ctx.n8n.api, executionId);
		expect(outputs).toHaveLength(1);
		expect(outputs[0].data).toEqual(output.data);
		// The node leaves the recorded page's Content-Type to n8n (Express labels a string text/html).
		const thanked = responses.find((response) => seen(response) === 'recorded');
		if (thanked) {
			expect(thanked.headers.get('content-type')).toBe('text/html; charset=utf-8');
			expect(thanked.headers.get('cache-control')).toBe('no-store');
			console.log(`send and wait race: the recorded page's Content-Security-Policy: ${thanked.headers.get('content-security-policy')}`);
		}
		return { outcomes, used: outputs[0].data };
	}

	test(
		'approval: of 10 people pressing Approve (5) and Decline (5) at once, only the one whose answer was used is told it was recorded',
		async () => {
			const conversation = await driver.newConversation();
			const { links } = await driver.start(ctx.n8n.baseUrl, FLOWS.approval, conversation.id, 'Ten managers click at once?', ctx.n8n.api);
			const [approve, decline] = links;
			const executionId = executionOf(approve);
			const answers = Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? { url: approve.url, approved: true } : { url: decline.url, approved: false }));

			const { outcomes, used } = await race(conversation.id, executionId, answers);
			console.log(
				`send and wait race, approval: ${JSON.stringify(counts(outcomes))}; used approved=${used.approved}; ` +
					`recorded page went to ${outcomes.flatMap((outcome, index) => (outcome === 'recorded' ? [answers[index].approved ? 'Approve' : 'Decline'] : [])).join(', ')}`,
			);
			const recorded = outcomes.flatMap((outcome, index) => (outcome === 'recorded' ? [index] : []));
			expect(recorded).toHaveLength(1);
			expect(answers[recorded[0]].approved).toBe(used.approved);
			for (const outcome of outcomes.filter((o) => o !== 'recorded')) {
				expect(NOT_RECORDED).toContain(outcome);
			}
			expect((await ctx.n8n.api.getExecution(executionId, { includeData: false })).status).toBe('success');
			// Opening a link afterwards: n8n answers a finished execution with its own page.
			for (const link of links) expect(seen(await visit(link.url))).toBe("n8n's no action required page");
		},
		TEST_TIMEOUT_MS,
	);

	test(
		'free text: of 3 answers submitted at once, only the one that was used is told it was recorded',
		async () => {
			const conversation = await driver.newConversation('telegram');
			const { links } = await driver.start(ctx.n8n.baseUrl, FLOWS.freeText, conversation.id, 'Three agents answer at once?', ctx.n8n.api);
			const executionId = executionOf(links[0]);
			const answers = ['First answer', 'Second answer', 'Third answer'].map((text) => ({ url: links[0].url, fields: { text } }));

			const { outcomes, used } = await race(conversation.id, executionId, answers);
			console.log(`send and wait race, free text: ${JSON.stringify(counts(outcomes))}; used "${used.text}"`);
			const recorded = outcomes.flatMap((outcome, index) => (outcome === 'recorded' ? [index] : []));
			expect(recorded).toHaveLength(1);
			expect(answers[recorded[0]].fields.text).toBe(used.text);
			for (const outcome of outcomes.filter((o) => o !== 'recorded')) {
				expect(NOT_RECORDED).toContain(outcome);
			}
		},
		TEST_TIMEOUT_MS,
	);
});
