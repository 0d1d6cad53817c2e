/**
 * A stand-in for n8n 2.40's `processed_data` table and its DeduplicationHelper
 * (packages/cli/src/deduplication/deduplication-helper.ts), with the same
 * races: every call reads the row, computes in JavaScript and writes the
 * whole row back, with a pause between read and write where other calls run.
 * Only the insert of a missing row is atomic (the table's primary key).
 */
import { createHash } from 'crypto';

import type { ICheckProcessedOptions, IDeduplicationOutput } from 'n8n-workflow';

type Scope = 'node' | 'workflow';

interface Row {
	mode: ICheckProcessedOptions['mode'];
	data: string[] | number;
}

const pause = async (): Promise<void> => await new Promise((resolve) => setImmediate(resolve));
const wait = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms));

/** How long one call takes on a slow database, in ms: before its read, and from its read to its write (where other calls run). */
export interface CallLatency {
	beforeRead: number;
	readToWrite: number;
}

export class ProcessedDataTable {
	readonly rows = new Map<string, Row>();

	/** Calls made, for tests that count the database work. */
	calls = 0;

	/** Pauses between a call's read and its write (more pauses: wider race windows); `latency`, when given, times every call instead (timers: simulated time in tests). */
	constructor(
		private readonly pausesBetweenReadAndWrite = 2,
		private readonly latency?: () => CallLatency,
	) {}

	helpers(workflowId: string, nodeId: string) {
		const key = (scope: Scope) => `${workflowId}|${scope === 'node' ? `n:${nodeId}` : ''}`;
		return {
			checkProcessedAndRecord: async (items: Array<string | number>, scope: Scope, options: ICheckProcessedOptions) =>
				await this.checkProcessedAndRecord(key(scope), items, options),
			clearAllProcessedItems: async (scope: Scope) => {
				this.calls++;
				await (this.latency ? wait(this.latency().beforeRead) : pause());
				this.rows.delete(key(scope));
			},
		};
	}

	private async checkProcessedAndRecord(
		key: string,
		items: Array<string | number>,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		this.calls++;
		const latency = this.latency?.();
		await (latency ? wait(latency.beforeRead) : pause());
		const found = this.rows.get(key);
		const read = found && { mode: found.mode, data: Array.isArray(found.data) ? [...found.data] : found.data };
		if (latency) await wait(latency.readToWrite);
		else for (let index = 0; index < this.pausesBetweenReadAndWrite; index++) await pause();
		if (read && read.mode !== options.mode) {
			throw new Error('Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter.');
		}
		if (options.mode === 'latestIncrementalKey') {
			const values = items.map(Number);
			if (!read) return this.insert(key, { mode: options.mode, data: Math.max(...values) }, items);
			const stored = read.data as number;
			const output: IDeduplicationOutput = { new: [], processed: [] };
			for (const item of items) (Number(item) > stored ? output.new : output.processed).push(item);
			this.update(key, { mode: options.mode, data: Math.max(stored, ...values) });
			return output;
		}
		const hashes = items.map((item) => createHash('md5').update(String(item)).digest('base64'));
		const trim = (data: string[]) => (options.maxEntries ? data.slice(-options.maxEntries) : data);
		if (!read) return this.insert(key, { mode: options.mode, data: trim(hashes) }, items);
		const known = new Set(read.data as string[]);
		const data = read.data as string[];
		const output: IDeduplicationOutput = { new: [], processed: [] };
		hashes.forEach((hash, index) => {
			if (known.has(hash)) {
				output.processed.push(items[index]);
			} else {
				output.new.push(items[index]);
				data.push(hash);
			}
		});
		this.update(key, { mode: options.mode, data: trim(data) });
		return output;
	}

	private insert(key: string, row: Row, items: Array<string | number>): IDeduplicationOutput {
		if (this.rows.has(key)) throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
		this.rows.set(key, row);
		return { new: [...items], processed: [] };
	}

	/** An UPDATE ... WHERE of a row that was deleted meanwhile changes nothing. */
	private update(key: string, row: Row): void {
		if (this.rows.has(key)) this.rows.set(key, row);
	}
}
