/** The trigger's pure parts: the ids in process memory and in n8n's database, event names, filters. */
import { IDS_PER_TRIGGER, RETENTION_MS, admitDelivery, markStarted } from '../../nodes/OmnichannelTrigger/common/eventsInProcess';
import { LEDGER_ENTRIES } from '../../nodes/OmnichannelTrigger/common/eventsInDatabase';
import type { LedgerHelpers } from '../../nodes/OmnichannelTrigger/common/eventsInDatabase';
import { normaliseEvents, sameEvents } from '../../nodes/OmnichannelTrigger/common/events';
import { passesFilters } from '../../nodes/OmnichannelTrigger/options';
import { messageDirection } from '../../nodes/shared/messageAuthors';
import { checkSignature, keyBytesOfSecret, hmacKeyOfSecret } from '../../nodes/OmnichannelTrigger/common/signature';
import { createHmac } from 'crypto';
import { ProcessedDataTable } from '../support/host/processed-data.cjs';
import { simulate, useSimulatedTime } from '../support/simulated-time.cjs';

const T0 = Date.UTC(2026, 0, 1);

// Each simulated process loads the ledger anew but shares n8n-workflow: it holds no state of the ledger's, and loading it per process took most of the file's time.
const workflow: unknown = jest.requireActual('n8n-workflow');
jest.doMock('n8n-workflow', () => workflow);

type Ledger = typeof import('../../nodes/OmnichannelTrigger/common/eventsInDatabase');

/** The ledger module as one more n8n process (a worker, say) has it: its own memory and chains. */
function processLedger(): Ledger {
	let fresh: Ledger | undefined;
	jest.isolateModules(() => {
		fresh = require('../../nodes/OmnichannelTrigger/common/eventsInDatabase') as Ledger;
	});
	return fresh as Ledger;
}

const quietLog = { warn: () => undefined };

/** A delivery whose execution's first step ran in this process: the process's answer to a copy. */
function deliverOnce(trigger: string, eventId: string, at: number): boolean {
	const admitted = admitDelivery(trigger, eventId, at) === 'start';
	if (admitted) markStarted(trigger, eventId, at);
	return admitted;
}

describe('the ids a process started (eventsInProcess)', () => {
	test('holds the whole retry schedule at 5 events/s: 40,000 ids per trigger, oldest forgotten first', () => {
		// The sender retries 5 s + 30 s + 2 min + 10 min + 30 min + 1 h after the first attempt.
		const schedule = (5 + 30 + 120 + 600 + 1800 + 3600) * 1000;
		expect(IDS_PER_TRIGGER).toBeGreaterThanOrEqual((schedule / 1000) * 5);
		expect(RETENTION_MS).toBeGreaterThan(schedule);
		const total = IDS_PER_TRIGGER + 100;
		// 5 events per second: the first event's last retry comes while the window is full.
		let accepted = 0;
		for (let index = 0; index < total; index++) if (deliverOnce('bound', `evt_${index}`, T0 + index * 200)) accepted++;
		expect(accepted).toBe(total);
		const end = T0 + total * 200;
		// The event whose last retry is due now, 1 h 43 min after it was first seen.
		expect(deliverOnce('bound', `evt_${total - (schedule / 1000) * 5}`, end)).toBe(false);
		expect(deliverOnce('bound', 'evt_99', end)).toBe(true);
	});

	test('an id is a copy for the retention time, then new again', () => {
		expect(deliverOnce('retention', 'evt_old', T0)).toBe(true);
		expect(deliverOnce('retention', 'evt_old', T0 + RETENTION_MS - 1_000)).toBe(false);
		expect(deliverOnce('retention', 'evt_old', T0 + RETENTION_MS + 1_000)).toBe(true);
		expect(deliverOnce('retention', 'evt_old', T0 + RETENTION_MS + 2_000)).toBe(false);
	});

	test('each trigger (workflow, node, test or production) has its own ids; the number of triggers is bounded', () => {
		expect(deliverOnce('trigger-a', 'evt_same', T0)).toBe(true);
		expect(deliverOnce('trigger-b', 'evt_same', T0)).toBe(true);
		for (let index = 0; index < 64; index++) deliverOnce(`many-${index}`, 'evt_x', T0);
		expect(deliverOnce('trigger-a', 'evt_same', T0)).toBe(true);
		expect(deliverOnce('many-63', 'evt_x', T0)).toBe(false);
	});
});

describe('the ledger in n8n\'s database (eventsInDatabase)', () => {
	useSimulatedTime(T0);
	const NODE_1 = { workflowId: 'wf', nodeId: 'node-1' };

	/** Copies of each event checked at the same moment by `processes` n8n processes. */
	async function sameMomentCopies(table: ProcessedDataTable, processes: number, events: number, check: (ledger: Ledger, helpers: LedgerHelpers, id: string) => Promise<string>) {
		const ledgers = Array.from({ length: processes }, () => processLedger());
		const helpers = table.helpers('wf', 'node-1');
		let firsts = 0;
		for (let event = 0; event < events; event++) {
			const verdicts = await Promise.all(ledgers.map(async (ledger) => await check(ledger, helpers, `evt_${event}`)));
			firsts += verdicts.filter((verdict) => verdict === 'first').length;
		}
		for (const ledger of ledgers) await ledger.whenIdle();
		return firsts;
	}

	test('copies checked at the same moment by different processes pass once', async () => await simulate(async () => {
		const table = new ProcessedDataTable();
		const firsts = await sameMomentCopies(table, 3, 100, async (ledger, helpers, id) => await ledger.recordEvent(helpers, NODE_1, id, quietLog));
		expect(firsts).toBe(100);
		// The lock is released after every check.
		expect([...table.rows.keys()]).toEqual(['wf|n:node-1']);
	}));

	test('two trigger nodes of one workflow: the same event at the same moment runs in both, each in its own window', async () => await simulate(async () => {
		const table = new ProcessedDataTable();
		const ledger = processLedger();
		const nodes = ['node-1', 'node-2'].map((nodeId) => ({ owner: { workflowId: 'wf', nodeId }, helpers: table.helpers('wf', nodeId) }));
		const verdicts = await Promise.all(
			['evt_a', 'evt_b'].flatMap((id) => nodes.map(async ({ owner, helpers }) => await ledger.recordEvent(helpers, owner, id, quietLog))),
		);
		expect(verdicts).toEqual(['first', 'first', 'first', 'first']);
		for (const { owner, helpers } of nodes) expect(await ledger.recordEvent(helpers, owner, 'evt_a', quietLog)).toBe('duplicate');
	}));

	test('control: n8n\'s helper alone lets same-moment copies pass twice', async () => await simulate(async () => {
		const firsts = await sameMomentCopies(new ProcessedDataTable(), 3, 100, async (_ledger, helpers, id) => {
			try {
				const { new: fresh } = await helpers.checkProcessedAndRecord([id], 'node', { mode: 'entries' });
				return fresh.length > 0 ? 'first' : 'duplicate';
			} catch {
				return 'failed';
			}
		});
		expect(firsts).toBeGreaterThan(100);
	}));

	test('distinct events checked at once by several processes are all kept (no lost updates)', async () => await simulate(async () => {
		const table = new ProcessedDataTable();
		const ledgers = Array.from({ length: 4 }, () => processLedger());
		const helpers = table.helpers('wf', 'node-1');
		const ids = Array.from({ length: 40 }, (_, index) => `evt_${index}`);
		const verdicts = await Promise.all(ids.map(async (id, index) => await ledgers[index % 4].recordEvent(helpers, NODE_1, id, quietLog)));
		expect(verdicts.every((verdict) => verdict === 'first')).toBe(true);
		const again = await Promise.all(ids.map(async (id, index) => await ledgers[(index + 1) % 4].recordEvent(helpers, NODE_1, id, quietLog)));
		expect(again.every((verdict) => verdict === 'duplicate')).toBe(true);
	}));

	test('executions waiting in one process share one check (group commit); a copy in the same batch is a duplicate', async () => await simulate(async () => {
		const table = new ProcessedDataTable();
		const helpers = table.helpers('wf', 'node-1');
		const ledger = processLedger();
		const ids = ['evt_a', 'evt_b', 'evt_a', 'evt_c', 'evt_b', 'evt_d', 'evt_e', 'evt_f'];
		const verdicts = await Promise.all(ids.map(async (id) => await ledger.recordEvent(helpers, NODE_1, id, quietLog)));
		expect(verdicts).toEqual(['first', 'first', 'duplicate', 'first', 'duplicate', 'first', 'first', 'first']);
		await ledger.whenIdle();
		// The first check alone, then everything that waited meanwhile, under one lock: take it,
		// stamp it, the window twice, then release (is it still ours, delete).
		expect(table.calls).toBe(6);
	}));

	test('executions checked one after another share one lock: the lock\'s calls are paid once, not per check', async () => await simulate(async () => {
		const table = new ProcessedDataTable();
		const helpers = table.helpers('wf', 'node-1');
		const ledger = processLedger();
		const verdicts: string[] = [];
		// Each execution's first step starts as soon as the one before has its verdict.
		for (let index = 0; index < 8; index++) verdicts.push(await ledger.recordEvent(helpers, NODE_1, `evt_${index}`, quietLog));
		await ledger.whenIdle();
		expect(verdicts.every((verdict) => verdict === 'first')).toBe(true);
		// 8 window checks, and the lock once: take it, stamp it, release (is it still ours, delete).
		expect(table.calls).toBe(8 + 4);
		expect(table.rows.has('wf|')).toBe(false);
	}));

	test('the window keeps the newest 40,000 ids', async () => await simulate(async () => {
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		const ledger = processLedger();
		const batch = Array.from({ length: LEDGER_ENTRIES }, (_, index) => `evt_${index}`);
		await helpers.checkProcessedAndRecord(batch, 'node', { mode: 'entries', maxEntries: LEDGER_ENTRIES });
		expect(await ledger.recordEvent(helpers, NODE_1, 'evt_new', quietLog)).toBe('first');
		expect(await ledger.recordEvent(helpers, NODE_1, `evt_${LEDGER_ENTRIES - 1}`, quietLog)).toBe('duplicate');
		expect(await ledger.recordEvent(helpers, NODE_1, 'evt_1', quietLog)).toBe('duplicate');
		// The oldest id made room for evt_new.
		expect(await ledger.recordEvent(helpers, NODE_1, 'evt_0', quietLog)).toBe('first');
	}));

	test('a lock left by a process that died is taken over once it is stale', async () => await simulate(async () => {
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		// The dead holder's stamp (1) is long stale: the lock is taken over once that is confirmed.
		await helpers.checkProcessedAndRecord([1], 'workflow', { mode: 'latestIncrementalKey' });
		const ledger = processLedger();
		expect(await ledger.recordEvent(helpers, NODE_1, 'evt_after_crash', quietLog)).toBe('first');
		await ledger.whenIdle();
		expect(table.rows.has('wf|')).toBe(false);
	}));

	test('a workflow-scope row of another node (Remove Duplicates, scope Workflow) degrades to an unlocked check and says so', async () => await simulate(async () => {
		const table = new ProcessedDataTable(0);
		const helpers = table.helpers('wf', 'node-1');
		await helpers.checkProcessedAndRecord(['their value'], 'workflow', { mode: 'entries' });
		const warnings: string[] = [];
		const ledger = processLedger();
		expect(await ledger.recordEvent(helpers, NODE_1, 'evt_a', { warn: (message) => warnings.push(message) })).toBe('first');
		expect(await ledger.recordEvent(helpers, NODE_1, 'evt_a', quietLog)).toBe('duplicate');
		expect(warnings.join('\n')).toMatch(/Remove Duplicates node with scope "Workflow"/);
		// Their row is left as it was.
		expect(table.rows.get('wf|')?.mode).toBe('entries');
	}));
});

describe('event names', () => {
	test('chosen and typed names are trimmed, de-duplicated and sorted; "*" wins', () => {
		expect(normaliseEvents(['message.created'], ' contact.created ,message.created ,, ')).toEqual([
			'contact.created',
			'message.created',
		]);
		expect(normaliseEvents(['contact.created', '*'], 'conversation.updated')).toEqual(['*']);
		expect(normaliseEvents([], '')).toEqual([]);
		expect(sameEvents(['message.created', 'contact.created'], ['contact.created', 'message.created'])).toBe(true);
		expect(sameEvents(['message.created'], ['contact.created', 'message.created'])).toBe(false);
		expect(sameEvents(undefined, ['*'])).toBe(false);
	});
});

describe('filters', () => {
	const message = (fields: object) => ({ channel: 'telegram', from_customer: false, from_user_id: null, ...fields });

	test('direction follows from_customer and from_user_id (docs/api-assumptions.md, "Messages")', () => {
		expect(messageDirection(message({ from_customer: true }))).toBe('customer');
		expect(messageDirection(message({ from_user_id: 'usr_1' }))).toBe('agent');
		expect(messageDirection(message({}))).toBe('system');
	});

	test('only messages are filtered; contacts and unknown kinds pass', () => {
		const filters = { directions: ['customer' as const], channelTypes: ['whatsapp'] };
		expect(passesFilters('message.created', message({ from_customer: true }), filters)).toBe(false);
		expect(passesFilters('message.created', message({ from_customer: true, channel: 'whatsapp' }), filters)).toBe(true);
		expect(passesFilters('contact.created', { name: 'Ada' }, filters)).toBe(true);
		expect(passesFilters('conversation.closed', null, filters)).toBe(true);
		expect(passesFilters('message.created', message({}), { directions: [], channelTypes: [] })).toBe(true);
	});
});

describe('signing secrets', () => {
	test('only whsec_ followed by base64 is a key', () => {
		expect(keyBytesOfSecret(`whsec_${Buffer.alloc(32, 1).toString('base64')}`)).toHaveLength(32);
		expect(keyBytesOfSecret('whsec_')).toBeUndefined();
		expect(keyBytesOfSecret('whsec_not base64!')).toBeUndefined();
		expect(keyBytesOfSecret(Buffer.alloc(32).toString('base64'))).toBeUndefined();
	});

	test('the verification key is made once per secret and verifies what the raw key signed', () => {
		const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
		const other = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
		const key = hmacKeyOfSecret(secret);
		expect(key).toBeDefined();
		expect(hmacKeyOfSecret(secret)).toBe(key);
		expect(hmacKeyOfSecret(other)).not.toBe(key);
		expect(hmacKeyOfSecret('whsec_not base64!')).toBeUndefined();
		const rawBody = Buffer.from('{"id":"evt_1"}');
		const timestamp = '1700000000';
		const mac = createHmac('sha256', keyBytesOfSecret(secret)!).update(`evt_1.${timestamp}.${rawBody.toString()}`).digest('base64');
		const delivery = { id: 'evt_1', timestamp, signature: `v1,${mac}`, rawBody };
		expect(checkSignature(delivery, key!, 1700000000)).toBeUndefined();
		expect(checkSignature(delivery, hmacKeyOfSecret(other)!, 1700000000)).toBe('no matching signature');
	});
});
