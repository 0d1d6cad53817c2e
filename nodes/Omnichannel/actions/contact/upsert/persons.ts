import type { RowKeys } from './contactMatch';
import type { Row } from './row';

/** Rows that share an email or a phone, directly or through another row, are one person and lend each other the key they lack (none across two emails on one number). */
export class RunPersons {
	private readonly rows: Row[] = [];

	private keysByRow: Map<number, RowKeys> | undefined;

	add(row: Row): void {
		this.rows.push(row);
	}

	/** The keys a row is looked up and locked by: its own, and what its person lends it. */
	keysOf(row: Row): RowKeys {
		this.keysByRow ??= this.link();
		return this.keysByRow.get(row.itemIndex) ?? row.keys;
	}

	private link(): Map<number, RowKeys> {
		const parent = this.rows.map((_row, index) => index);
		const root = (index: number): number => {
			while (parent[index] !== index) index = parent[index] = parent[parent[index]];
			return index;
		};
		const firstWith = new Map<string, number>();
		this.rows.forEach((row, index) => {
			for (const key of [row.keys.email && `email:${row.keys.email}`, row.keys.phone && `phone:${row.keys.phone}`]) {
				if (!key) continue;
				const first = firstWith.get(key);
				if (first === undefined) firstWith.set(key, index);
				else parent[root(index)] = root(first);
			}
		});
		const emails = new Map<number, Set<string>>();
		const phones = new Map<number, Set<string>>();
		const collect = (sets: Map<number, Set<string>>, at: number, value: string | undefined) => {
			if (value === undefined) return;
			const set = sets.get(at) ?? new Set<string>();
			set.add(value);
			sets.set(at, set);
		};
		this.rows.forEach((row, index) => {
			collect(emails, root(index), row.keys.email);
			collect(phones, root(index), row.keys.phone);
		});
		const only = (set: Set<string> | undefined) => (set?.size === 1 ? [...set][0] : undefined);
		const keys = new Map<number, RowKeys>();
		this.rows.forEach((row, index) => {
			if (row.matchBy !== 'emailThenPhone') return;
			const email = row.keys.email ?? only(emails.get(root(index)));
			const phone = row.keys.phone ?? only(phones.get(root(index)));
			const lent = row.keys.email === undefined && email !== undefined ? 'email' : row.keys.phone === undefined && phone !== undefined ? 'phone' : undefined;
			keys.set(row.itemIndex, { ...(email !== undefined && { email }), ...(phone !== undefined && { phone }), ...(lent && { lent }) });
		});
		return keys;
	}
}
