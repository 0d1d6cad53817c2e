// A webhook call (a trigger delivery) reuses the credential this process
// checked within 30 s instead of asking n8n again, which in a webhook call
// resolves it in a new expression isolate; other calls always ask n8n, and a
// 401 from the service forgets the reused one at once.
import { credentialChatWaitKey } from '../../nodes/shared/chatWait';
import { contextCredentials, forgetReusedCredentials } from '../../nodes/shared/transport/credentials';
import type { OmnichannelContext } from '../../nodes/shared/transport/types';

const DATA = { baseUrl: 'http://127.0.0.1:9/api/public/v1', apiKey: 'svc_test_abcdefgh.0123456789abcdef0123' };

function counter() {
	const reads = { count: 0 };
	const getCredentials = async () => {
		reads.count++;
		return { ...DATA };
	};
	return { reads, getCredentials };
}

function webhookCall(credentialId: string, getCredentials: () => Promise<unknown>): OmnichannelContext {
	return {
		getRequestObject: () => ({}),
		getNode: () => ({ name: 'Omnichannel Trigger', credentials: { omnichannelApi: { id: credentialId, name: 'Sandbox' } } }),
		getCredentials,
	} as unknown as OmnichannelContext;
}

function executeCall(credentialId: string, getCredentials: () => Promise<unknown>): OmnichannelContext {
	return {
		getNode: () => ({ name: 'Omnichannel', credentials: { omnichannelApi: { id: credentialId, name: 'Sandbox' } } }),
		getCredentials,
	} as unknown as OmnichannelContext;
}

afterEach(() => jest.restoreAllMocks());

test('webhook calls within 30 s read the credential once; a later one reads it again', async () => {
	const { reads, getCredentials } = counter();
	const first = await contextCredentials(webhookCall('reuse-1', getCredentials));
	const second = await contextCredentials(webhookCall('reuse-1', getCredentials));
	expect(await credentialChatWaitKey(webhookCall('reuse-1', getCredentials))).toBeInstanceOf(Buffer);
	expect(reads.count).toBe(1);
	expect(second.baseUrl).toBe(first.baseUrl);
	const now = Date.now();
	jest.spyOn(Date, 'now').mockReturnValue(now + 30_001);
	await contextCredentials(webhookCall('reuse-1', getCredentials));
	expect(reads.count).toBe(2);
});

test('each credential id is read on its own', async () => {
	const { reads, getCredentials } = counter();
	await contextCredentials(webhookCall('reuse-2a', getCredentials));
	await contextCredentials(webhookCall('reuse-2b', getCredentials));
	expect(reads.count).toBe(2);
});

test('a 401 forgets the reused credential: the next webhook call reads it again', async () => {
	const { reads, getCredentials } = counter();
	const call = webhookCall('reuse-3', getCredentials);
	await contextCredentials(call);
	forgetReusedCredentials(call);
	await contextCredentials(webhookCall('reuse-3', getCredentials));
	expect(reads.count).toBe(2);
});

test('node runs ask n8n for every run, as before', async () => {
	const { reads, getCredentials } = counter();
	await contextCredentials(executeCall('reuse-4', getCredentials));
	await contextCredentials(executeCall('reuse-4', getCredentials));
	expect(reads.count).toBe(2);
});
