'use strict';
// The peer of `npm run bench:sandbox`: a bare node:http server on 127.0.0.1
// that answers every request for a known path with a body prepared ahead of
// time. It does no routing, auth, rate limiting or paging, so its time per
// request is the floor of "serve these bytes over loopback" on this machine.
//   node staticPageServer.js <bodies.json>   ({ "<path?query>": "<body>" })
// Prints one JSON line {"url": "http://127.0.0.1:<port>"} and serves until killed.
const fs = require('fs');
const http = require('http');

const bodies = new Map(Object.entries(JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))));

const server = http.createServer((req, res) => {
	const body = bodies.get(req.url);
	if (body === undefined) {
		res.writeHead(404).end();
		return;
	}
	res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
	res.end(body);
});

server.listen(0, '127.0.0.1', () => {
	process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` }) + '\n');
});
