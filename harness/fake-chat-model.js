'use strict';
// A stand-in chat model for n8n's AI nodes, used by the tests and the
// benchmarks: n8n's OpenAI Chat Model node with a credential whose base URL
// points here.
const http = require('http');

/**
 * A stand-in for an OpenAI-compatible chat model on 127.0.0.1, so that n8n's
 * AI Agent can run without a real model: `respond(body)` gets each
 * /chat/completions request and returns the assistant message (content and/or
 * tool_calls). Every request body is kept in `requests`.
 */
async function startFakeChatModel(respond) {
	const requests = [];
	const server = http.createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk) => (raw += chunk));
		req.on('end', () => {
			const send = (status, body) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(body));
			};
			if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) return send(404, { error: { message: 'not found' } });
			const body = JSON.parse(raw);
			requests.push(body);
			const message = { role: 'assistant', content: null, ...respond(body, requests.length) };
			send(200, {
				id: `chatcmpl-${requests.length}`,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model: body.model,
				choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
				usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
			});
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}/v1`,
		requests,
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

module.exports = { startFakeChatModel };
