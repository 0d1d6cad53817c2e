'use strict';
// The workflows action-node.test.js runs through `n8n execute`: every
// operation of the Omnichannel node at least once, grouped so that one CLI
// run covers several operations.
const { workflows: w } = require('../../../harness');

const IDS = {
	reads: 'e2eReads00000001',
	sends: 'e2eSends00000001',
	contacts: 'e2eContacts00001',
	returnAll: 'e2eReturnAll0001',
	notFound: 'e2eNotFound00001',
};

const once = { executeOnce: true };

/** Identity, channels, conversations (limit and delta sync), messages, contact filter. */
function readsWorkflow(credential, { conversationId, updatedSince }) {
	const node = (name, parameters) => w.omnichannelNode(name, credential, parameters, once);
	return w.workflow({
		id: IDS.reads,
		name: 'E2E reads',
		nodes: [
			w.manualTrigger(),
			node('Identity', { resource: 'identity', operation: 'get' }),
			node('Channels', { resource: 'channel', operation: 'getAll', returnAll: true }),
			node('Latest conversations', { resource: 'conversation', operation: 'getAll', returnAll: false, limit: 5 }),
			node('Updated conversations', {
				resource: 'conversation',
				operation: 'getAll',
				returnAll: true,
				filters: { updatedSince },
			}),
			node('Messages', {
				resource: 'message',
				operation: 'getAll',
				returnAll: true,
				filters: { conversationId: w.byId(conversationId) },
			}),
			node('Qualified contacts', {
				resource: 'contact',
				operation: 'getAll',
				returnAll: true,
				filters: { leadStatus: 'qualified' },
			}),
		],
		connections: w.chain(
			'Start',
			'Identity',
			'Channels',
			'Latest conversations',
			'Updated conversations',
			'Messages',
			'Qualified contacts',
		),
	});
}

/** A file per media kind, made in n8n from base64 the way users bring in files. */
const MEDIA = [
	{ kind: 'image', operation: 'sendImage', fileName: 'e2e.png', mimeType: 'image/png', caption: 'E2E image' },
	{ kind: 'audio', operation: 'sendAudio', fileName: 'e2e.ogg', mimeType: 'audio/ogg' },
	{ kind: 'video', operation: 'sendVideo', fileName: 'e2e.mp4', mimeType: 'video/mp4', caption: 'E2E video' },
	{ kind: 'document', operation: 'sendDocument', fileName: 'e2e.pdf', mimeType: 'application/pdf', caption: 'E2E doc' },
];

const mediaBytes = (kind) => Buffer.from(`%E2E ${kind} bytes\n`.repeat(64 + kind.length));

const sendNodeName = (kind) => `Send ${kind}`;

/** Text, location, then the four media sends, each fed by a Convert to File node. */
function sendsWorkflow(credential, { conversationId }) {
	const conversation = w.byId(conversationId);
	const send = (name, parameters) =>
		w.omnichannelNode(name, credential, { resource: 'message', conversationId: conversation, ...parameters }, once);
	const files = w.node(
		'Files',
		'n8n-nodes-base.set',
		{
			mode: 'manual',
			assignments: {
				assignments: MEDIA.map(({ kind }) => ({
					id: kind,
					name: kind,
					value: mediaBytes(kind).toString('base64'),
					type: 'string',
				})),
			},
			options: {},
		},
		{ typeVersion: 3.4, ...once },
	);
	const mediaNodes = MEDIA.flatMap(({ kind, operation, fileName, mimeType, caption }) => [
		w.node(
			`To ${kind} file`,
			'n8n-nodes-base.convertToFile',
			{ operation: 'toBinary', sourceProperty: kind, binaryPropertyName: 'data', options: { fileName, mimeType } },
			{ typeVersion: 1.1 },
		),
		send(sendNodeName(kind), { operation, binaryPropertyName: 'data', options: caption ? { caption } : {} }),
	]);
	return w.workflow({
		id: IDS.sends,
		name: 'E2E sends',
		nodes: [
			w.manualTrigger(),
			send('Send text', { operation: 'sendText', text: 'E2E text ✓ 🚀', options: { clientRequestId: 'e2e-text-1' } }),
			send('Send location', {
				operation: 'sendLocation',
				latitude: 52.520008,
				longitude: 13.404954,
				options: { placeName: 'Alexanderplatz', address: 'Alexanderplatz, Berlin' },
			}),
			files,
			...mediaNodes,
		],
		connections: [
			...w.chain('Start', 'Send text', 'Send location', 'Files'),
			...MEDIA.flatMap(({ kind }) => w.chain('Files', `To ${kind} file`, sendNodeName(kind))),
		],
	});
}

/** Create two contacts, read and update one, merge them, then search. */
function contactsWorkflow(credential, { marker }) {
	const node = (name, parameters) =>
		w.omnichannelNode(name, credential, { resource: 'contact', ...parameters }, once);
	const primaryId = w.byId('={{ $("Create primary").first().json.id }}');
	return w.workflow({
		id: IDS.contacts,
		name: 'E2E contacts',
		nodes: [
			w.manualTrigger(),
			node('Create primary', {
				operation: 'create',
				name: `E2E Primary ${marker}`,
				additionalFields: { email: `primary-${marker}@example.com`, leadStatus: 'new' },
			}),
			node('Create secondary', {
				operation: 'create',
				name: `E2E Secondary ${marker}`,
				additionalFields: { phone: '+49 30 1234567', company: 'E2E GmbH', city: 'Berlin' },
			}),
			node('Get primary', { operation: 'get', contactId: primaryId }),
			node('Update primary', {
				operation: 'update',
				contactId: primaryId,
				updateFields: { jobTitle: 'Buyer', leadStatus: 'qualified' },
			}),
			node('Merge', {
				operation: 'merge',
				primaryContactId: primaryId,
				secondaryContactId: w.byId('={{ $("Create secondary").first().json.id }}'),
			}),
			node('Search', { operation: 'getAll', returnAll: true, filters: { search: marker } }),
		],
		connections: w.chain('Start', 'Create primary', 'Create secondary', 'Get primary', 'Update primary', 'Merge', 'Search'),
	});
}

/** Return All and a multi-page Limit against a workspace with thousands of contacts. */
function returnAllWorkflow(credential, { limit }) {
	const node = (name, parameters) =>
		w.omnichannelNode(name, credential, { resource: 'contact', operation: 'getAll', ...parameters }, once);
	return w.workflow({
		id: IDS.returnAll,
		name: 'E2E return all',
		nodes: [w.manualTrigger(), node('All contacts', { returnAll: true }), node('Some contacts', { returnAll: false, limit })],
		connections: w.chain('Start', 'All contacts', 'Some contacts'),
	});
}

function notFoundWorkflow(credential) {
	return w.workflow({
		id: IDS.notFound,
		name: 'E2E not found',
		nodes: [
			w.manualTrigger(),
			w.omnichannelNode('Get missing contact', credential, {
				resource: 'contact',
				operation: 'get',
				contactId: w.byId('ct_00000000000000000000'),
			}),
		],
		connections: w.chain('Start', 'Get missing contact'),
	});
}

module.exports = {
	IDS,
	MEDIA,
	mediaBytes,
	sendNodeName,
	readsWorkflow,
	sendsWorkflow,
	contactsWorkflow,
	returnAllWorkflow,
	notFoundWorkflow,
};
