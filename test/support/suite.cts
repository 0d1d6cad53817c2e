/** Per-file setup of the node tests: one sandbox, and the leak check at the end (action node) or the trigger hosts' closing (trigger). */
import type { INodeParameters } from 'n8n-workflow';

import { assertNoSecretLeaked } from './host/action-node.cjs';
import type { Credentials } from './host/action-node.cjs';
import { TriggerHost, loadTriggerType } from './host/trigger.cjs';
import type { HostOptions } from './host/trigger.cjs';
import { control, startSandbox, startSandboxProcess } from './sandbox.cjs';
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

/** What a trigger test may choose of its host: how many "processes", and the node type's loader. */
type HostChoices = Partial<Pick<HostOptions, 'loadNodeType' | 'processes'>>;

export interface TriggerSuite {
	sb: Sandbox;
	/** A trigger host with this API key against the sandbox, closed after the file's tests. */
	newHost(apiKey: string, parameters: INodeParameters, options?: HostChoices): TriggerHost;
	/** newHost, listening for requests. */
	listeningHost(apiKey: string, parameters: INodeParameters, options?: HostChoices): Promise<TriggerHost>;
	/** listeningHost, activated (its webhook registered). */
	activeHost(apiKey: string, parameters: INodeParameters, options?: HostChoices): Promise<TriggerHost>;
}

/**
 * The trigger's in-process tests: a sandbox before the file's tests, hosts
 * made through it and closed after them, then the sandbox. `clearFaults`:
 * the sandbox's injected faults are cleared after each test.
 */
export function useTriggerHosts(options: SandboxOptions & { clearFaults?: boolean } = { seed: 'empty' }): TriggerSuite {
	const hosts: TriggerHost[] = [];
	const { clearFaults, ...sandboxOptions } = options;
	const suite: TriggerSuite = {
		sb: undefined as unknown as Sandbox,
		newHost: (apiKey, parameters, hostOptions = {}) => {
			const host = new TriggerHost({ credentials: { baseUrl: suite.sb.base_url, apiKey }, parameters, ...hostOptions, loadNodeType: hostOptions.loadNodeType ?? loadTriggerType });
			hosts.push(host);
			return host;
		},
		listeningHost: async (apiKey, parameters, hostOptions) => {
			const host = suite.newHost(apiKey, parameters, hostOptions);
			await host.listen();
			return host;
		},
		activeHost: async (apiKey, parameters, hostOptions) => {
			const host = await suite.listeningHost(apiKey, parameters, hostOptions);
			await host.activate();
			return host;
		},
	};
	beforeAll(async () => {
		suite.sb = await startSandbox({ port: 0, ...sandboxOptions });
	});
	if (clearFaults) {
		afterEach(async () => {
			await control(suite.sb, 'DELETE', '/faults');
		});
	}
	afterAll(async () => {
		await Promise.all(hosts.map(async (host) => await host.close()));
		await suite.sb?.close();
	});
	return suite;
}

/** A resource locator value, as the editor stores it. */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
export const fromList = (value: string) => ({ __rl: true, mode: 'list', value });
