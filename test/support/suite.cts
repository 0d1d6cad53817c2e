/** Per-file setup of the node tests: one sandbox, and the leak check at the end. */
import { assertNoSecretLeaked } from './host/action-node.cjs';
import type { Credentials } from './host/action-node.cjs';
import { startSandbox, startSandboxProcess } from './sandbox.cjs';
import type { Sandbox, SandboxOptions } from './sandbox.cjs';

export interface Suite {
	sb: Sandbox;
	credentials: Credentials;
}

/**
 * Starts a sandbox before the file's tests and closes it after them. Every
 * output and error the node produced in the file is then searched for the API
 * keys it was given: finding one fails the file. `ownProcess`: the sandbox
 * runs in a process of its own (seed only), for tests that count when
 * requests reach it.
 */
export function useSandbox(options: SandboxOptions & { ownProcess?: boolean } = { seed: 'demo' }): Suite {
	const suite = {} as Suite;
	beforeAll(async () => {
		const { ownProcess, ...inProcess } = options;
		suite.sb = ownProcess ? await startSandboxProcess(options.seed) : await startSandbox({ port: 0, ...inProcess });
		suite.credentials = { baseUrl: suite.sb.base_url, apiKey: suite.sb.key };
	});
	afterAll(async () => {
		await suite.sb?.close();
		assertNoSecretLeaked();
	});
	return suite;
}

/** A resource locator value, as the editor stores it. */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
export const fromList = (value: string) => ({ __rl: true, mode: 'list', value });
