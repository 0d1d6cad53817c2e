'use strict';
// A session on the inspector of an n8n server started with --inspect on
// 127.0.0.1: the bench's CPU profiles and heap readings go through it.
const WebSocket = require('ws');

/** Opens the inspector of the process listening on `port`; `send(method, params)` resolves to the result. */
async function openInspector(port) {
	const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
	const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
	await new Promise((resolve, reject) => {
		socket.once('open', resolve);
		socket.once('error', reject);
	});
	let nextId = 0;
	const pending = new Map();
	socket.on('message', (raw) => {
		const message = JSON.parse(raw.toString());
		const waiter = pending.get(message.id);
		if (!waiter) return;
		pending.delete(message.id);
		if (message.error) waiter.reject(new Error(`inspector: ${message.error.message}`));
		else waiter.resolve(message.result);
	});
	const send = (method, params = {}) =>
		new Promise((resolve, reject) => {
			const id = ++nextId;
			pending.set(id, { resolve, reject });
			socket.send(JSON.stringify({ id, method, params }));
		});
	return { send, close: () => socket.close() };
}

module.exports = { openInspector };
