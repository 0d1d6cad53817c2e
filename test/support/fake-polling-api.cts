/**
 * A list-only stand-in for the Omnichannel API, for what the sandbox cannot
 * do on demand: many records with the same timestamp, and records created,
 * moved or removed between two page requests of one poll (`beforePage`).
 * It follows docs/api-assumptions.md, "Lists and pagination": newest first by the list's timestamp then id,
 * `last_updated_at` in whole seconds (`updated_at >= value`), page numbers
 * over the list as it is when each page is asked for. 127.0.0.1 only.
 */
import { createServer } from 'http';
import type { Server } from 'http';
import type { AddressInfo } from 'net';

export interface ApiRecord {
	id: string;
	created_at: string;
	updated_at: string;
	[field: string]: unknown;
}

export type ListName = 'messages' | 'conversations' | 'contacts';

export interface ListRequest {
	list: ListName;
	query: Record<string, string>;
	page: number;
}

export const API_KEY = 'svc_test_fakeKey0001.abcdefghijklmnopqrstuvwxyz012345';

const iso = (ms: number) => new Date(ms).toISOString();

export class FakeApi {
	readonly lists: Record<ListName, ApiRecord[]> = { messages: [], conversations: [], contacts: [] };

	readonly requests: ListRequest[] = [];

	/** Runs before a page is computed: change the lists, or hold the answer (a slow API). */
	beforePage: (request: ListRequest) => Promise<void> | void = () => undefined;

	/** Answers every list request with this status instead (an outage, a revoked key). */
	failWith: number | undefined;

	baseUrl = '';

	private server?: Server;

	private sequence = 0;

	async start(): Promise<void> {
		const server = createServer((req, res) => {
			this.answer(req.url ?? '', req.headers.authorization).then(
				({ status, body }) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body)),
				(error: Error) => res.writeHead(500).end(JSON.stringify({ error: error.message })),
			);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		this.server = server;
		this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1`;
	}

	async close(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (!server) return;
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}

	/** A record created at `ms` (its updated_at too); ids sort in creation order unless given. */
	add(list: ListName, ms: number, fields: Record<string, unknown> = {}): ApiRecord {
		const prefix = { messages: 'msg', conversations: 'conv', contacts: 'ct' }[list];
		const record: ApiRecord = {
			id: `${prefix}_${String(++this.sequence).padStart(6, '0')}`,
			created_at: iso(ms),
			updated_at: iso(ms),
			...fields,
		};
		this.lists[list].push(record);
		return record;
	}

	/** A conversation (or contact) has activity at `ms`: it moves to the top of its list. */
	touch(list: ListName, id: string, ms: number): void {
		const record = this.lists[list].find((one) => one.id === id);
		if (!record) throw new Error(`no ${id}`);
		record.updated_at = iso(ms);
	}

	remove(list: ListName, id: string): void {
		this.lists[list] = this.lists[list].filter((one) => one.id !== id);
	}

	requestsTo(list: ListName): ListRequest[] {
		return this.requests.filter((request) => request.list === list);
	}

	private async answer(url: string, authorization: string | undefined): Promise<{ status: number; body: unknown }> {
		if (authorization !== `Bearer ${API_KEY}`) return { status: 401, body: { error: 'invalid api key' } };
		const parsed = new URL(url, 'http://x');
		const list = parsed.pathname.replace('/api/public/v1/', '') as ListName;
		if (!(list in this.lists)) return { status: 404, body: { error: 'not found' } };
		const query = Object.fromEntries(parsed.searchParams.entries());
		const page = Number(query.page ?? 1);
		const perPage = Number(query.per_page ?? 20);
		const request = { list, query, page };
		this.requests.push(request);
		await this.beforePage(request);
		if (this.failWith !== undefined) return { status: this.failWith, body: { error: 'injected failure' } };

		const keyField = list === 'conversations' ? 'updated_at' : 'created_at';
		let records = [...this.lists[list]];
		if (query.conversation_id) records = records.filter((one) => one.conversation_id === query.conversation_id);
		if (query.lead_status) records = records.filter((one) => one.lead_status === query.lead_status);
		if (query.last_updated_at !== undefined) {
			const since = Number(query.last_updated_at) * 1000;
			records = records.filter((one) => Date.parse(one.updated_at) >= since);
		}
		records.sort((a, b) => {
			const byKey = Date.parse(b[keyField]) - Date.parse(a[keyField]);
			return byKey !== 0 ? byKey : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
		});
		const total = records.length;
		const lastPage = Math.max(1, Math.ceil(total / perPage));
		const data = records.slice((page - 1) * perPage, page * perPage);
		return {
			status: 200,
			body: {
				current_page: page,
				per_page: perPage,
				total,
				last_page: lastPage,
				has_next: page < lastPage,
				from: data.length > 0 ? (page - 1) * perPage + 1 : null,
				to: data.length > 0 ? (page - 1) * perPage + data.length : null,
				data: data.map((one) => ({ ...one })),
			},
		};
	}
}
