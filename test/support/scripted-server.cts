/**
 * A local HTTP server that answers from a script, for transport behaviour the
 * sandbox cannot produce on demand (a 429 that never ends, Retry-After as an
 * HTTP-date). Listens on 127.0.0.1 only.
 */
import { createServer } from 'http';
import type { IncomingHttpHeaders, Server } from 'http';
import type { AddressInfo } from 'net';

export interface ScriptedAnswer {
	status: number;
	headers?: Record<string, string>;
	body?: unknown;
}

export interface ReceivedRequest {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	at: number;
}

export interface ScriptedServer {
	baseUrl: string;
	requests: ReceivedRequest[];
	close(): Promise<void>;
}

type Script = Array<ScriptedAnswer | (() => ScriptedAnswer)> | ((request: ReceivedRequest) => ScriptedAnswer);

/**
 * Answers the n-th request with script[n] (and the last entry after that), or
 * with what the script function returns for the request.
 */
export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
	const requests: ReceivedRequest[] = [];
	const server: Server = createServer((req, res) => {
		const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, at: Date.now() };
		requests.push(request);
		req.resume();
		req.on('end', () => {
			let answer: ScriptedAnswer;
			if (typeof script === 'function') answer = script(request);
			else {
				const entry = script[Math.min(requests.length - 1, script.length - 1)];
				answer = typeof entry === 'function' ? entry() : entry;
			}
			res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
			res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/api/public/v1`,
		requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
