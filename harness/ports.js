'use strict';
const net = require('net');

/** Asks the kernel for a free port on 127.0.0.1 (free now; taken by whoever binds first). */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

module.exports = { freePort };
