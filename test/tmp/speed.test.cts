import { runNode } from '../support/host/action-node.cjs';
const { startSandboxProcess } = require('../../sandbox/process') as any;
const { sandboxClient } = require('../../sandbox/client') as any;
jest.setTimeout(600_000);
test('speed', async () => {
	const sb = await startSandboxProcess(['--seed', 'empty']);
	const client = sandboxClient(sb);
	try {
		await client.control('POST', '/channels', { type: 'livechat', name: 'Chat' });
		await client.control('POST', '/channels', { type: 'whatsapp', name: 'WA' });
		await client.control('POST', '/users', { name: 'Agent' });
		const DAY = 86_400_000;
		const first = Math.floor(Date.now() / DAY) * DAY - 10 * DAY;
		let t = Date.now();
		for (let d = 0; d < 10; d++) await client.control('POST', '/bulk-history', { from: new Date(first + d * DAY).toISOString(), to: new Date(first + (d + 1) * DAY).toISOString(), conversations: 5000, messages: 50000, seed: d + 1 });
		console.log('seeded', Date.now() - t);
		await client.control('PUT', '/faults', { latency_ms: 100, rate_limit_per_second: 60 });
		for (const [after, before] of [[first + 9 * DAY, first + 10 * DAY], [first + 9 * DAY, first + 10 * DAY], [first + 9 * DAY, first + 10 * DAY]]) {
			await client.control('DELETE', '/stats');
			t = Date.now();
			const r = await runNode({ credentials: { baseUrl: sb.base_url, apiKey: sb.key }, timezone: 'UTC', parameters: { resource: 'report', operation: 'get', period: 'custom', after: new Date(after).toISOString(), before: new Date(before).toISOString() } });
			const ms = Date.now() - t;
			const stats = await client.control('GET', '/stats');
			console.log(JSON.stringify({ ms, status: r.status, err: r.error?.message, stats }));
		}
	} finally {
		await sb.close();
	}
});
