'use strict';
// MCP helpers for the E2E files: n8n's MCP Server Trigger with our node's
// AI-tool variant, and the official MCP TypeScript SDK as the client.
const crypto = require('crypto');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { SSEClientTransport } = require('@modelcontextprotocol/sdk/client/sse.js');

const { NODE_TYPES } = require('../../../harness/node-types');
const { startFakeChatModel } = require('../../../harness/fake-chat-model');
const { checkWorkflowParameters, node } = require('../../../harness/workflows');

/** n8n's MCP Server Trigger (n8n 2.40: versions 1 to 2.1; from 2 the SSE and HTTP URL are the same path). */
const MCP_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';
/** The type n8n gives our node's tool variant (`usableAsTool`: the node's name + "Tool"). */
const OMNICHANNEL_TOOL_TYPE = `${NODE_TYPES.action}Tool`;

/** The production URL n8n serves an MCP Server Trigger at (`N8N_ENDPOINT_MCP` defaults to "mcp"). */
const mcpUrl = (n8nBaseUrl, path) => `${n8nBaseUrl}/mcp/${path}`;

/** `={{ $fromAI('key', 'description', 'type') }}`: the model fills the parameter. */
const fromAI = (key, description, type = 'string') => `={{ $fromAI('${key}', \`${description}\`, '${type}') }}`;

function mcpTrigger(name, path) {
	return node(name, MCP_TRIGGER_TYPE, { path }, { typeVersion: 2, webhookId: crypto.randomUUID() });
}

/** Our node as an AI tool, bound to an import:credentials entry. */
function omnichannelTool(name, credential, parameters) {
	// The tool variant has the action node's parameters: check them the same way.
	checkWorkflowParameters({ nodes: [{ name, type: NODE_TYPES.action, parameters }] });
	return node(name, OMNICHANNEL_TOOL_TYPE, parameters, {
		credentials: { omnichannelApi: { id: credential.id, name: credential.name } },
	});
}

/** Connects every tool node to the MCP trigger's (or an agent's) ai_tool input. */
function toolConnections(toolNames, target) {
	return Object.fromEntries(toolNames.map((name) => [name, { ai_tool: [[{ node: target, type: 'ai_tool', index: 0 }]] }]));
}

/**
 * An SDK client connected to `url`. `transport`: 'http' (streamable HTTP, the
 * current MCP transport) or 'sse' (the older one; n8n serves both). `token`:
 * sent as `Authorization: Bearer <token>` (a trigger with Bearer Auth).
 */
async function connectMcp(url, { transport = 'http', token } = {}) {
	const client = new Client({ name: 'omnichannel-e2e', version: '1.0.0' });
	const options = token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {};
	const link =
		transport === 'sse' ? new SSEClientTransport(new URL(url), options) : new StreamableHTTPClientTransport(new URL(url), options);
	await client.connect(link);
	return client;
}

/**
 * The HTTP status n8n answers a bare MCP request with, sent with `headers`:
 * what a client without (or with a wrong) token gets. POST: an `initialize`
 * (Streamable HTTP, and SSE's messages); GET: opening the SSE stream.
 */
async function mcpRequestStatus(url, { method = 'POST', headers = {} } = {}) {
	const initialize = {
		jsonrpc: '2.0',
		id: 1,
		method: 'initialize',
		params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'omnichannel-e2e', version: '1.0.0' } },
	};
	const response = await fetch(url, {
		method,
		headers: { accept: 'application/json, text/event-stream', ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...headers },
		body: method === 'POST' ? JSON.stringify(initialize) : undefined,
		signal: AbortSignal.timeout(30_000),
	});
	// An accepted SSE stream stays open: the status is all this needs.
	await response.body?.cancel();
	return response.status;
}

/** The text of a tool result (n8n puts one text part in it). */
const resultText = (result) => result.content.map((part) => part.text ?? '').join('\n');

module.exports = {
	MCP_TRIGGER_TYPE,
	OMNICHANNEL_TOOL_TYPE,
	mcpUrl,
	fromAI,
	mcpTrigger,
	omnichannelTool,
	toolConnections,
	connectMcp,
	mcpRequestStatus,
	resultText,
};

/** An assistant tool call in OpenAI's format. */
const toolCall = (id, name, args) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });

module.exports.startFakeChatModel = startFakeChatModel;
module.exports.toolCall = toolCall;
