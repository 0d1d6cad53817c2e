'use strict';
// The workflows of every scenario, ours and the peer a user would pick
// instead, built with the harness's builders so that a parameter our nodes do
// not know fails loudly instead of being dropped by n8n.
const crypto = require('crypto');
const path = require('path');

const { workflows, omnichannelCredential } = require('../../harness');

const { node, omnichannelNode, omnichannelTrigger, manualTrigger, byId, chain, workflow } = workflows;

/** Every measured node has this name, so results are read the same way for both peers. */
const MEASURED = 'Measured';
const INPUT = 'Input';
/** Default versions of n8n's nodes in 2.40: what a user adding them today gets. */
const HTTP_REQUEST_VERSION = 4.5;
const WEBHOOK_VERSION = 2.1;

/**
 * The version a user adding our node today gets: the built description's
 * defaultVersion, else its highest version.
 */
function defaultVersionOf(folder) {
	const file = path.join(__dirname, '..', '..', 'dist', 'nodes', folder, `${folder}.node.js`);
	const { description } = new (require(file)[folder])();
	return description.defaultVersion ?? Math.max(...[].concat(description.version));
}

const omnichannelAction = (name, credential, parameters) =>
	omnichannelNode(name, credential, parameters, { typeVersion: defaultVersionOf('Omnichannel') });

/** n8n workflow and credential ids are 16 characters; ours are readable and unique per run. */
function benchId(...parts) {
	const id = `bench${parts.join('')}`.replace(/[^A-Za-z0-9]/g, '');
	if (id.length > 16) throw new Error(`id too long: ${id}`);
	return id.padEnd(16, '0');
}

/** Our credential and, for the HTTP Request peer, a Header Auth credential with the same key. */
function credentialsFor(tag, { baseUrl, apiKey }) {
	return {
		ours: omnichannelCredential({ id: benchId(tag, 'Omni'), name: `Bench ${tag} (Omnichannel)`, baseUrl, apiKey }),
		header: {
			id: benchId(tag, 'Hdr'),
			name: `Bench ${tag} (Header Auth)`,
			type: 'httpHeaderAuth',
			data: { name: 'Authorization', value: `Bearer ${apiKey}` },
		},
	};
}

function httpRequest(name, headerCredential, parameters) {
	return node(
		name,
		'n8n-nodes-base.httpRequest',
		{ authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', ...parameters },
		{ typeVersion: HTTP_REQUEST_VERSION, credentials: { httpHeaderAuth: { id: headerCredential.id, name: headerCredential.name } } },
	);
}

const manualThen = (id, name, measuredNodes) =>
	workflow({ id, name, nodes: [manualTrigger(), ...measuredNodes], connections: chain('Start', ...measuredNodes.map((n) => n.name)) });

/** n8n alone (Manual Trigger -> No Operation): the memory baseline of an `n8n execute` process. */
const idleBaseline = (id) => manualThen(id, `Bench baseline ${id}`, [node(MEASURED, 'n8n-nodes-base.noOp')]);

/** Scenario 1, ours: Return All contacts. */
const readsOurs = (id, credentials) =>
	manualThen(id, `Bench reads ${id} (Omnichannel)`, [
		omnichannelAction(MEASURED, credentials.ours, { resource: 'contact', operation: 'getAll', returnAll: true }),
	]);

/** Scenario 1, peer: HTTP Request with its built-in pagination, page/per_page 500 until has_next is false. */
const readsHttp = (id, credentials, baseUrl) =>
	manualThen(id, `Bench reads ${id} (HTTP Request)`, [
		httpRequest(MEASURED, credentials.header, {
			method: 'GET',
			url: `${baseUrl}/contacts`,
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'per_page', value: '500' }] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] },
						paginationCompleteWhen: 'other',
						completeExpression: '={{ $response.body.has_next === false }}',
					},
				},
			},
		}),
	]);

/**
 * Scenario 2's input: `count` items, each with its own text and idempotency
 * key, made by a Code node outside the measured node.
 */
function sendInput(conversationId, count) {
	const jsCode = [
		`const conversationId = ${JSON.stringify(conversationId)};`,
		`return Array.from({ length: ${count} }, (_, i) => ({ json: {`,
		'  conversation_id: conversationId,',
		'  text: `bench message ${i + 1} of ' + count + '`,',
		'  client_request_id: `bench-${conversationId}-${i + 1}`,',
		'} }));',
	].join('\n');
	return node(INPUT, 'n8n-nodes-base.code', { jsCode }, { typeVersion: 2 });
}

/** Scenario 2, ours: Send Text for every item, default options (rate limit 60/s). */
const sendsOurs = (id, credentials, conversationId, count) =>
	manualThen(id, `Bench sends ${id} (Omnichannel)`, [
		sendInput(conversationId, count),
		omnichannelAction(MEASURED, credentials.ours, {
			resource: 'message',
			operation: 'sendText',
			conversationId: byId('={{ $json.conversation_id }}'),
			text: '={{ $json.text }}',
		}),
	]);

/** Scenario 2, peer: HTTP Request with default settings (no batching, no retry), one call per item. */
const sendsHttp = (id, credentials, conversationId, count, baseUrl) =>
	manualThen(id, `Bench sends ${id} (HTTP Request)`, [
		sendInput(conversationId, count),
		httpRequest(MEASURED, credentials.header, {
			method: 'POST',
			url: `${baseUrl}/messages/text`,
			sendBody: true,
			bodyParameters: {
				parameters: ['conversation_id', 'text', 'client_request_id'].map((name) => ({ name, value: `={{ $json.${name} }}` })),
			},
			options: {},
		}),
	]);

/** Scenario 3, ours: the trigger registers its own webhook when published. */
const intakeOurs = (id, credentials) =>
	workflow({
		id,
		name: `Bench intake ${id} (Omnichannel Trigger)`,
		nodes: [
			omnichannelTrigger(MEASURED, credentials.ours, { events: ['message.created'] }, { typeVersion: defaultVersionOf('OmnichannelTrigger') }),
		],
		connections: [],
	});

/**
 * Scenario 3, peer: n8n's Webhook node without any verification. Returns the
 * workflow and the production path the bench registers at the sandbox.
 */
function intakePlain(id) {
	const path = crypto.randomUUID();
	const parameters = { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} };
	const trigger = node(MEASURED, 'n8n-nodes-base.webhook', parameters, { typeVersion: WEBHOOK_VERSION, webhookId: path });
	return { workflow: workflow({ id, name: `Bench intake ${id} (Webhook)`, nodes: [trigger], connections: [] }), path };
}

module.exports = { MEASURED, benchId, credentialsFor, idleBaseline, readsOurs, readsHttp, sendsOurs, sendsHttp, intakeOurs, intakePlain };
