'use strict';
// A transparent relay between the sandbox's webhook sender and n8n. n8n is
// told (WEBHOOK_URL) that its public address is the relay's, so our trigger
// registers the relay's URL at the sandbox, and the bench registers the plain
// Webhook node's URL the same way. The relay forwards every delivery byte for
// byte (the signature covers the body, which is untouched) and notes when
// n8n acknowledged it. That gives the bench:
// - exact acknowledgement times, instead of polling the sandbox's log;
// - a closed feed loop: the sandbox sends each event the moment it exists and
//   has no concurrency bound, and a burst of hundreds of deliveries at once
//   times out in n8n for every peer alike (benchmarks page), so the feeder
//   waits for an event's acknowledgement before creating the next (see
//   feedWindowed).
const http = require('http');

/** The message an event is about: deliveries of message.created carry it in data.id. */
function messageIdOf(body) {
	try {
		return JSON.parse(body.toString('utf8'))?.data?.id;
	} catch {
		return undefined;
	}
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);
const forwardable = (headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

/**
 * @param {number | number[] | (() => number)} targetPorts n8n's port on
 *   127.0.0.1; several (queue mode's webhook processes), which then take the
 *   requests in turn as behind a round-robin load balancer; or a function that
 *   gives it (the webhook process's port is chosen after the relay's).
 *   `retarget` sets them later.
 */
async function startRelay(targetPorts) {
	const agent = new http.Agent({ keepAlive: true });
	let targets = typeof targetPorts === 'function' ? targetPorts : [].concat(targetPorts ?? []);
	let turn = 0;
	const nextPort = () => (typeof targets === 'function' ? targets() : targets[turn++ % targets.length]);
	/** messageId -> resolvers waiting for its first 2xx */
	const waiters = new Map();
	const acknowledgedMessages = new Set();
	let responses = [];
	/** Requests forwarded to n8n and not answered yet. */
	let pending = 0;

	const settle = (body, status, path, arrivedAt) => {
		const at = Date.now();
		pending--;
		const messageId = messageIdOf(body);
		responses.push({ at, status, path, arrivedAt, messageId });
		if (status < 200 || status >= 300 || messageId === undefined || acknowledgedMessages.has(messageId)) return;
		acknowledgedMessages.add(messageId);
		for (const resolve of waiters.get(messageId) ?? []) resolve();
		waiters.delete(messageId);
	};

	const server = http.createServer((request, response) => {
		const arrivedAt = Date.now();
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('error', () => response.destroy());
		request.on('end', () => {
			const body = Buffer.concat(chunks);
			pending++;
			const options = { host: '127.0.0.1', port: nextPort(), method: request.method, path: request.url, headers: forwardable(request.headers), agent };
			forward(options, body, response, () => settle(body, 502, request.url, arrivedAt), (status) => settle(body, status, request.url, arrivedAt));
		});
	});

	// A kept-alive connection n8n closed just as the relay reused it is sent once more, as Node's docs advise any
	// keep-alive client to do; any other failure to reach n8n is answered 502.
	const forward = (options, body, response, failed, answered, again = true) => {
		const upstream = http.request(options, (answer) => {
			const parts = [];
			answer.on('data', (part) => parts.push(part));
			answer.on('end', () => {
				response.writeHead(answer.statusCode, forwardable(answer.headers));
				response.end(Buffer.concat(parts));
				answered(answer.statusCode);
			});
		});
		upstream.on('error', (error) => {
			if (again && upstream.reusedSocket && error.code === 'ECONNRESET') return forward(options, body, response, failed, answered, false);
			response.writeHead(502);
			response.end();
			failed();
		});
		upstream.end(body);
	};
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

	return {
		url: `http://127.0.0.1:${server.address().port}`,
		/** Resolves when a delivery about `messageId` has been acknowledged (at once if it was). */
		acknowledged(messageId) {
			if (acknowledgedMessages.has(messageId)) return Promise.resolve();
			return new Promise((resolve) => waiters.set(messageId, [...(waiters.get(messageId) ?? []), resolve]));
		},
		/** The n8n ports requests go to from now on. */
		retarget(ports) {
			targets = [].concat(ports);
		},
		/** Requests on their way through n8n: arrived, not answered yet. */
		pending: () => pending,
		/** Every response n8n gave since the last reset: { at, status, path, arrivedAt (the request's arrival), messageId }. */
		responses: () => responses,
		reset() {
			responses = [];
		},
		async close() {
			agent.destroy();
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

module.exports = { startRelay };
