/** A Map that keeps at most `limit` entries, forgetting the least recently set or touched first: the shape of every cache the nodes keep in process memory (secrets' key objects, registrations, event ids per trigger). */
export class BoundedMap<K, V> {
	private readonly entries = new Map<K, V>();

	constructor(private readonly limit: number) {}

	get size(): number {
		return this.entries.size;
	}

	get(key: K): V | undefined {
		return this.entries.get(key);
	}

	/** Like get, and counts as a use: the entry is forgotten last. */
	touch(key: K): V | undefined {
		const value = this.entries.get(key);
		if (value !== undefined) {
			this.entries.delete(key);
			this.entries.set(key, value);
		}
		return value;
	}

	set(key: K, value: V): this {
		this.entries.delete(key);
		this.entries.set(key, value);
		if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as K);
		return this;
	}

	delete(key: K): boolean {
		return this.entries.delete(key);
	}
}
