/**
 * The polling trigger run by n8n-core's PollContext (see
 * support/host/polling-trigger.cts) against a list API whose pages can change
 * between two requests (support/fake-polling-api.cts).
 */
import type { INodeParameters } from 'n8n-workflow';

import { FakeApi } from '../support/fake-polling-api.cjs';
import type { ListRequest } from '../support/fake-polling-api.cjs';
import { PollHost } from '../support/host/polling-trigger.cjs';

const T = Date.UTC(2026, 10, 22, 12, 0, 0);
let api: FakeApi;

beforeEach(async () => {
	api = new FakeApi();
	await api.start();
});

afterEach(async () => {
	await api.close();
});

const messages = (parameters: INodeParameters = {}) => new PollHost(api.baseUrl, { event: 'newMessage', ...parameters });

/** `count` messages, one millisecond apart from `start` (or all in that millisecond). */
function addMessages(count: number, start: number, { sameMillisecond = false, fields = {} } = {}) {
	return Array.from({ length: count }, (_, index) => api.add('messages', start + (sameMillisecond ? 0 : index), { from_customer: true, channel: 'telegram', ...fields }));
}

function expectEachOnceInOrder(host: PollHost, ids: string[]) {
	expect(host.emittedIds()).toEqual(ids);
	expect(new Set(host.emittedIds()).size).toBe(ids.length);
}

describe('cursor and first poll', () => {
	test('the first production poll emits nothing; later messages come oldest first, once; an idle poll costs one request', async () => {
		addMessages(30, T - 100_000);
		const host = messages();
		expect(await host.activate()).toBeNull();
		expect(host.nodeStaticData()?.pollState).toMatchObject({ scope: 'newMessage|' });

		const fresh = addMessages(3, T);
		expect((await host.poll())?.map((json) => json.id)).toEqual(fresh.map((m) => m.id));
		api.requests.length = 0;
		expect(await host.poll()).toBeNull();
		expect(api.requests).toHaveLength(1);
		expect(api.requests[0].query).toMatchObject({ page: '1', per_page: '500' });
	});

	test('records sharing one timestamp, across polls of Max Items 3 and one more arriving in that millisecond later', async () => {
		const host = messages({ maxItems: 3 });
		addMessages(2, T - 10);
		await host.activate();
		const burst = addMessages(7, T, { sameMillisecond: true });
		expect(await host.poll()).toHaveLength(3);
		const late = addMessages(1, T, { sameMillisecond: true });
		while ((await host.poll()) !== null);
		const expected = [...burst, ...late].map((m) => m.id).sort();
		expectEachOnceInOrder(host, expected);
	});

	test('a backlog of 1,200 with Max Items 500: 500, 500 and 200, oldest first, in ceil((N + 1) / 500) requests per poll', async () => {
		const host = messages({ maxItems: 500 });
		await host.activate();
		const backlog = addMessages(1200, T);
		const requestsPerPoll: number[] = [];
		const sizes: number[] = [];
		for (;;) {
			api.requests.length = 0;
			const emitted = await host.poll();
			requestsPerPoll.push(api.requests.length);
			if (emitted === null) break;
			sizes.push(emitted.length);
		}
		expect(sizes).toEqual([500, 500, 200]);
		// Each poll reads from the newest record down to its cursor: 1,200, then 700, then 200 new ones; then idle.
		expect(requestsPerPoll).toEqual([3, 2, 1, 1]);
		expectEachOnceInOrder(host, backlog.map((m) => m.id));
	});
});

describe('records moving between pages while the node reads them', () => {
	test('messages created between two page requests are neither lost nor emitted twice', async () => {
		const host = messages({ maxItems: 5000 });
		await host.activate();
		const backlog = addMessages(1100, T);
		let arrivals: string[] = [];
		api.beforePage = ({ page }: ListRequest) => {
			// While the node is on page 2, 7 messages arrive: everything slides down 7 places.
			if (page === 2 && arrivals.length === 0) arrivals = addMessages(7, T + 5_000).map((m) => m.id);
		};
		await host.poll();
		expect(arrivals).toHaveLength(7);
		api.beforePage = () => undefined;
		await host.poll();
		expectEachOnceInOrder(host, [...backlog.map((m) => m.id), ...arrivals]);
	});

	test('a conversation that moves to the top while the node reads a later page is still emitted (new only, and new and updated)', async () => {
		for (const changes of ['newOnly', 'newAndUpdated']) {
			api.lists.conversations = [];
			const host = new PollHost(api.baseUrl, { event: 'conversation', conversationChanges: changes, maxItems: 5000 });
			api.add('conversations', T - 60_000);
			await host.activate();
			const started = Array.from({ length: 1100 }, (_, index) => api.add('conversations', T + index * 10));
			// Conversation 50 is on page 3 (newest first); it gets a message while the node reads page 2.
			const mover = started[50];
			let moved = false;
			api.beforePage = ({ page }) => {
				if (page === 2 && !moved) {
					moved = true;
					api.touch('conversations', mover.id, T + 100_000);
				}
			};
			await host.poll();
			expect(moved).toBe(true);
			api.beforePage = () => undefined;
			while ((await host.poll()) !== null);
			const ids = host.emittedIds();
			expect(ids.filter((id) => id === mover.id)).toHaveLength(1);
			expect(new Set(ids)).toEqual(new Set(started.map((c) => c.id)));
			expect(ids).toHaveLength(started.length);
		}
	});

	test('a contact removed from a page already read (merged away) does not hide the one that slides up onto it', async () => {
		const host = new PollHost(api.baseUrl, { event: 'newContact', maxItems: 5000 });
		await host.activate();
		const created = Array.from({ length: 1100 }, (_, index) => api.add('contacts', T + index));
		// Newest first: the newest 500 are page 1. While page 2 is asked for, one of page 1 is merged away,
		// so the newest contact of page 2 moves onto page 1, which the node has already read.
		const merged = created[1099];
		const slidUp = created[599];
		let removed = false;
		api.beforePage = ({ page }) => {
			if (page === 2 && !removed) {
				removed = true;
				api.remove('contacts', merged.id);
			}
		};
		await host.poll();
		expect(removed).toBe(true);
		api.beforePage = () => undefined;
		while ((await host.poll()) !== null);
		const ids = host.emittedIds();
		expect(ids).toContain(slidUp.id);
		expect(new Set(ids)).toEqual(new Set(created.map((c) => c.id)));
		expect(ids).toHaveLength(created.length);
	});
});

describe('two polls on the same state', () => {
	test('a poll started while the previous one still runs does no work and ends after it; every record comes once', async () => {
		const host = messages({ maxItems: 5000 });
		await host.activate();
		// Two pages: the first poll still has a request to make after the second poll has begun.
		const batch = addMessages(600, T);
		let release!: () => void;
		const held = new Promise<void>((resolve) => (release = resolve));
		let requestsSeen = 0;
		api.beforePage = async () => {
			requestsSeen++;
			if (requestsSeen === 1) await held;
		};
		const order: string[] = [];
		const slow = host.poll().then((result) => (order.push('first'), result));
		while (requestsSeen === 0) await new Promise((resolve) => setImmediate(resolve));
		// n8n's next scheduled poll, on the same static data, while the first waits for the API.
		const overlapping = host.poll().then((result) => (order.push('second'), result));
		await new Promise((resolve) => setImmediate(resolve));
		expect(requestsSeen).toBe(1);
		release();
		const [first, second] = await Promise.all([slow, overlapping]);
		expect(second).toBeNull();
		// Ending first would release n8n's shared expression isolate under the running poll.
		expect(order).toEqual(['first', 'second']);
		expect(first?.map((json) => json.id)).toEqual(batch.map((m) => m.id));
		expect(requestsSeen).toBe(2);
		expect(await host.poll()).toBeNull();
		expectEachOnceInOrder(host, batch.map((m) => m.id));
	});
});

describe('two polls on copies of the same state (n8n durable poll cursors)', () => {
	test('a poll started while the previous one still runs, each on its own copy of the static data, does no work; every record comes once', async () => {
		const host = messages({ maxItems: 5000 });
		await host.activate();
		const batch = addMessages(600, T);
		let release!: () => void;
		const held = new Promise<void>((resolve) => (release = resolve));
		let requestsSeen = 0;
		api.beforePage = async () => {
			requestsSeen++;
			if (requestsSeen === 1) await held;
		};
		const slow = host.pollOnCopy();
		while (requestsSeen === 0) await new Promise((resolve) => setImmediate(resolve));
		// After a restart n8n runs the activation poll and the polls that fell due meanwhile together, each on a fresh copy.
		const overlapping = host.pollOnCopy();
		await new Promise((resolve) => setImmediate(resolve));
		expect(requestsSeen).toBe(1);
		release();
		const [first, second] = await Promise.all([slow, overlapping]);
		expect(second).toBeNull();
		expect(first?.map((json) => json.id)).toEqual(batch.map((m) => m.id));
		expect(await host.pollOnCopy()).toBeNull();
		expectEachOnceInOrder(host, batch.map((m) => m.id));
	});
});

describe('a poll that starts before n8n saved the previous poll\'s state (n8n durable poll cursors)', () => {
	afterEach(() => jest.restoreAllMocks());

	test('it reads the state the previous poll emitted from: it does no work, and every record comes once', async () => {
		const host = messages({ maxItems: 5000 });
		await host.activate();
		const batch = addMessages(30, T);
		const first = await host.pollOnCopyUnsaved();
		expect(first.outcome?.map((json) => json.id)).toEqual(batch.map((m) => m.id));
		// The next poll, scheduled before n8n committed the first one's cursor with its execution.
		expect(await host.pollOnCopy()).toBeNull();
		first.save();
		const later = addMessages(5, T + 1_000);
		expect((await host.pollOnCopy())?.map((json) => json.id)).toEqual(later.map((m) => m.id));
		expectEachOnceInOrder(host, [...batch, ...later].map((m) => m.id));
	});

	test('when n8n never saves it (its lease on the poll was lost, no execution ran), the records come again a minute later', async () => {
		const host = messages({ maxItems: 5000 });
		await host.activate();
		const batch = addMessages(10, T);
		const start = Date.now();
		await host.pollOnCopyUnsaved();
		expect(await host.pollOnCopy()).toBeNull();
		jest.spyOn(Date, 'now').mockReturnValue(start + 61_000);
		expect((await host.pollOnCopy())?.map((json) => json.id)).toEqual(batch.map((m) => m.id));
	});
});

describe('restarts, republishing and failures', () => {
	test('after a restart or a republish the node resumes from the state saved with the last emitted items', async () => {
		const host = messages({ maxItems: 10 });
		await host.activate();
		const first = addMessages(25, T);
		await host.poll();
		// n8n restarts: the activation poll continues where the saved state says.
		await host.restart();
		const second = addMessages(5, T + 1_000);
		while ((await host.poll()) !== null);
		// Unpublish and publish again.
		const third = addMessages(3, T + 2_000);
		await host.activate('activate');
		expect(await host.poll()).toBeNull();
		expectEachOnceInOrder(host, [...first, ...second, ...third].map((m) => m.id));
	});

	test('a poll during an outage fails with the API error and changes nothing; the next poll catches up', async () => {
		const host = messages();
		await host.activate();
		const saved = host.savedStaticData;
		const during = addMessages(4, T);
		api.failWith = 401;
		await expect(host.poll()).rejects.toThrow('The Omnichannel API key is invalid, revoked or expired');
		expect(host.savedStaticData).toBe(saved);
		api.failWith = undefined;
		await host.poll();
		expectEachOnceInOrder(host, during.map((m) => m.id));
	});

	test('changing the event starts over: its first poll emits nothing', async () => {
		const host = messages();
		await host.activate();
		api.add('contacts', T);
		host.setParameters({ event: 'newContact' });
		expect(await host.activate('update')).toBeNull();
		const contact = api.add('contacts', T + 1);
		expect((await host.poll())?.map((json) => json.id)).toEqual([contact.id]);
	});
});

describe('filters, output and Fetch Test Event', () => {
	test('message filters: direction, channel type and conversation; Simplify keeps the action node’s fields', async () => {
		const host = messages({
			simplify: true,
			messageFilters: { directions: ['customer'], channelTypes: ['whatsapp'], conversationId: { __rl: true, mode: 'id', value: 'conv_a' } },
		});
		await host.activate();
		const wanted = api.add('messages', T, { conversation_id: 'conv_a', channel: 'whatsapp', from_customer: true, from_user_id: null, app_id: 'app_1' });
		api.add('messages', T + 1, { conversation_id: 'conv_a', channel: 'whatsapp', from_customer: false, from_user_id: 'usr_1' });
		api.add('messages', T + 2, { conversation_id: 'conv_a', channel: 'telegram', from_customer: true, from_user_id: null });
		api.add('messages', T + 3, { conversation_id: 'conv_b', channel: 'whatsapp', from_customer: true, from_user_id: null });
		const [only] = (await host.poll()) ?? [];
		expect(only).toEqual({
			id: wanted.id,
			conversation_id: 'conv_a',
			channel: 'whatsapp',
			from_customer: true,
			from_user_id: null,
			created_at: wanted.created_at,
			updated_at: wanted.updated_at,
		});
		expect(api.requests.every((request) => request.query.conversation_id === 'conv_a')).toBe(true);
		expect(host.executions).toHaveLength(1);
	});

	test('new contacts with a lead status: a contact that existed before publishing and moves to that status is not new', async () => {
		const before = api.add('contacts', T - 5_000, { lead_status: 'contacted' });
		const host = new PollHost(api.baseUrl, { event: 'newContact', contactFilters: { leadStatus: 'new' } });
		await host.activate();
		before.lead_status = 'new';
		const created = api.add('contacts', T, { lead_status: 'new' });
		api.add('contacts', T + 1, { lead_status: 'won' });
		expect((await host.poll())?.map((json) => json.id)).toEqual([created.id]);
	});

	test('conversations: "new and updated" emits each activity, "new only" each conversation once', async () => {
		const old = api.add('conversations', T - 60_000);
		const updated = new PollHost(api.baseUrl, { event: 'conversation' });
		const newOnly = new PollHost(api.baseUrl, { event: 'conversation', conversationChanges: 'newOnly' });
		await updated.activate();
		await newOnly.activate();
		const started = api.add('conversations', T);
		api.touch('conversations', old.id, T + 10);
		expect((await updated.poll())?.map((json) => json.id)).toEqual([started.id, old.id]);
		expect((await newOnly.poll())?.map((json) => json.id)).toEqual([started.id]);
		api.touch('conversations', started.id, T + 20);
		expect((await updated.poll())?.map((json) => json.id)).toEqual([started.id]);
		expect(await newOnly.poll()).toBeNull();
		// The delta sync asks from the cursor's second on.
		expect(api.requestsTo('conversations').at(-1)?.query.last_updated_at).toBe(String(Math.floor((T + 20) / 1000)));
	});

	test('Fetch Test Event returns the newest matching record and changes no state; with none, it says so', async () => {
		const host = messages({ messageFilters: { directions: ['agent'] } });
		await expect(host.fetchTestEvent()).rejects.toThrow('No message to show yet');
		await host.activate();
		const saved = host.savedStaticData;
		const agent = api.add('messages', T, { from_customer: false, from_user_id: 'usr_1' });
		api.add('messages', T + 1, { from_customer: true, from_user_id: null });
		expect((await host.fetchTestEvent()).map((json) => json.id)).toEqual([agent.id]);
		expect(host.savedStaticData).toBe(saved);
		expect(host.executions).toHaveLength(0);
		// The production poll still emits it: the test fetch consumed nothing.
		expect((await host.poll())?.map((json) => json.id)).toEqual([agent.id]);
	});
});
