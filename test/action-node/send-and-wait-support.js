'use strict';
// Shared by the Send and Wait E2E files (regular and queue mode): the
// workflows, the links read from the sandbox, and a person following them
// the way a browser does (GET the page, POST its form as the form says).
const crypto = require('crypto');

const { waitFor, workflows: w } = require('../../harness');
const { afterNode, afterOutputsIn } = require('../support/n8n/after-wait');

/** Each workflow: a Webhook node starts it, Send and Wait asks, and "After" records what came out in the sandbox. */
const FLOWS = {
	approval: { id: 'sawApproval00001', path: 'saw-approval', parameters: {} },
	freeText: { id: 'sawFreeText00001', path: 'saw-free-text', parameters: { responseType: 'freeText' } },
	form: {
		id: 'sawCustomForm001',
		path: 'saw-form',
		parameters: {
			responseType: 'customForm',
			formFields: {
				values: [
					{ fieldLabel: 'Decision', fieldType: 'dropdown', fieldOptions: 'Full refund, Partial refund, No refund', requiredField: true },
					{ fieldLabel: 'Amount', fieldType: 'number', requiredField: true },
					{ fieldLabel: 'Note', fieldType: 'textarea' },
				],
			},
		},
	},
	timeout: {
		id: 'sawTimeout000001',
		path: 'saw-timeout',
		parameters: { options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 3, resumeUnit: 'seconds' } } } },
	},
};

function flowWorkflow(credential, { id, path, parameters }) {
	const nodes = [
		w.node('Request', 'n8n-nodes-base.webhook', { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} }, {
			typeVersion: 2,
			webhookId: crypto.randomUUID(),
		}),
		w.omnichannelNode('Ask', credential, {
			resource: 'message',
			operation: 'sendAndWait',
			conversationId: w.byId('={{ $json.body.conversation_id }}'),
			message: '={{ $json.body.question }}',
			...parameters,
		}),
		afterNode(credential),
	];
	return w.workflow({ id, name: `Send and Wait ${path}`, nodes, connections: w.chain('Request', 'Ask', 'After') });
}

const allWorkflows = (credential) => Object.values(FLOWS).map((flow) => flowWorkflow(credential, flow));

/** "Label: URL" lines of a message, in order. */
function linksOf(text) {
	return text
		.split('\n')
		.map((line) => /^(.+): (https?:\/\/\S+)$/.exec(line))
		.filter(Boolean)
		.map(([, label, url]) => ({ label, url }));
}

/** A browser's visit (GET): the status and the page. */
async function visit(url) {
	const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) });
	return { status: response.status, headers: response.headers, html: await response.text() };
}

/**
 * The page's form as a browser reads it: where it posts (its action, or the
 * page's own address), with which method and encoding (HTML's default is
 * urlencoded). Tests post only through it, so they post what a browser would.
 */
function formOf(pageUrl, html) {
	const tag = /<form\b[^>]*>/i.exec(html);
	if (!tag) throw new Error(`the page has no form: ${html.slice(0, 300)}`);
	const attribute = (name) => new RegExp(`\\b${name}="([^"]*)"`, 'i').exec(tag[0])?.[1];
	const action = attribute('action');
	return {
		url: action ? new URL(action, pageUrl).toString() : pageUrl,
		method: (attribute('method') ?? 'get').toUpperCase(),
		enctype: (attribute('enctype') ?? 'application/x-www-form-urlencoded').toLowerCase(),
	};
}

/** The body a browser builds for the form's encoding (fetch sets multipart's boundary itself). */
function encode(enctype, fields) {
	if (enctype === 'multipart/form-data') {
		const body = new FormData();
		for (const [name, value] of Object.entries(fields)) body.append(name, value);
		return { body, headers: {} };
	}
	if (enctype === 'application/x-www-form-urlencoded') {
		return { body: new URLSearchParams(fields).toString(), headers: { 'content-type': enctype } };
	}
	throw new Error(`a browser does not send a form as ${enctype}`);
}

/** Sends a form (from formOf) with the given fields, as pressing its button does. */
async function submit(form, fields = {}) {
	if (form.method !== 'POST') throw new Error(`the form sends ${form.method}, not POST`);
	const { body, headers } = encode(form.enctype, fields);
	const response = await fetch(form.url, { method: 'POST', redirect: 'manual', headers, body, signal: AbortSignal.timeout(30_000) });
	return { status: response.status, headers: response.headers, html: await response.text() };
}

/** Opens a link and reads its page's form; the person can send it now or later. */
async function openForm(url) {
	const page = await visit(url);
	if (page.status !== 200) throw new Error(`${url} answered ${page.status}: ${page.html.slice(0, 300)}`);
	return formOf(url, page.html);
}

/** Opens a link and sends its page's form with the given fields. */
async function answer(url, fields = {}) {
	return await submit(await openForm(url), fields);
}

/** The execution a link resumes: /webhook-waiting/{executionId}/{nodeId}. */
const executionOf = (link) => new URL(link.url).pathname.split('/')[2];

/**
 * Waits until the execution is saved as waiting. The message can arrive in
 * the sandbox a moment before n8n has saved that (n8n answers a link 409
 * until then); a person is never that fast, a test is.
 */
async function untilWaiting(api, link) {
	const executionId = executionOf(link);
	await waitFor(async () => (await api.getExecution(executionId, { includeData: false })).status === 'waiting', {
		what: `execution ${executionId} to be saved as waiting`,
		timeoutMs: 30_000,
		intervalMs: 100,
	});
}

/**
 * Drives one run of a flow in a conversation: starts it through its Webhook
 * node, reads the asking message from the sandbox and waits until n8n has
 * saved the execution as waiting (`api`: n8n's public API).
 */
function conversationDriver(client) {
	const messages = async (conversationId) => await client.listAll('/messages', { conversation_id: conversationId });
	const newConversation = async (channelType = 'livechat') => {
		const channels = await client.listAll('/channels');
		const channel = channels.find((c) => c.type === channelType && c.is_active);
		return await client.control('POST', '/conversations', { channel_id: channel.id });
	};
	return {
		messages,
		newConversation,
		async start(webhookBaseUrl, flow, conversationId, question, api) {
			// n8n answers a publish before the Webhook node is registered: a 404 until then.
			await waitFor(
				async () => {
					const response = await fetch(`${webhookBaseUrl}/webhook/${flow.path}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ conversation_id: conversationId, question }),
					});
					const text = await response.text();
					if (response.status === 404) return undefined;
					if (response.status !== 200) throw new Error(`/webhook/${flow.path} answered ${response.status}: ${text}`);
					return true;
				},
				{ what: `the published ${flow.path} workflow`, timeoutMs: 60_000, intervalMs: 500 },
			);
			const asked = await waitFor(
				async () => {
					const found = (await messages(conversationId)).find((m) => m.content.startsWith(question));
					return found ? { message: found, links: linksOf(found.content) } : undefined;
				},
				{ what: `the question in ${conversationId}`, timeoutMs: 60_000 },
			);
			await untilWaiting(api, asked.links[0]);
			return asked;
		},
		/** The outputs of Send and Wait that reached the next node, parsed. */
		async afterOutputs(conversationId) {
			return afterOutputsIn(await messages(conversationId));
		},
		async waitForAfter(conversationId, timeoutMs = 60_000) {
			return await waitFor(
				async () => {
					const outputs = await this.afterOutputs(conversationId);
					return outputs.length > 0 ? outputs : undefined;
				},
				{ what: `the node after Send and Wait in ${conversationId}`, timeoutMs },
			);
		},
	};
}

module.exports = { FLOWS, allWorkflows, linksOf, visit, formOf, submit, openForm, answer, conversationDriver, executionOf, untilWaiting };
