'use strict';
// Record lists kept sorted ascending by (sort key, id). Lists are served
// newest first, so a page is read from the end of the array: no sorting per
// request, and creating a record (the newest) is a plain push.

/**
 * @template {{ id: string }} T
 */
class SortedList {
	/** @param {(record: T) => number} keyOf the sort key, epoch ms */
	constructor(keyOf) {
		this.keyOf = keyOf;
		/** @type {T[]} ascending */
		this.items = [];
	}

	get length() {
		return this.items.length;
	}

	/** @param {T} a @param {T} b */
	compare(a, b) {
		const difference = this.keyOf(a) - this.keyOf(b);
		if (difference !== 0) return difference;
		return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
	}

	/** First index whose item is not smaller than `record`. */
	lowerBound(record) {
		let low = 0;
		let high = this.items.length;
		while (low < high) {
			const middle = (low + high) >>> 1;
			if (this.compare(this.items[middle], record) < 0) low = middle + 1;
			else high = middle;
		}
		return low;
	}

	/** First index whose key is >= `key` (ids ignored). */
	firstIndexWithKeyAtLeast(key) {
		let low = 0;
		let high = this.items.length;
		while (low < high) {
			const middle = (low + high) >>> 1;
			if (this.keyOf(this.items[middle]) < key) low = middle + 1;
			else high = middle;
		}
		return low;
	}

	/** @param {T} record */
	insert(record) {
		const items = this.items;
		if (items.length === 0 || this.compare(items[items.length - 1], record) <= 0) items.push(record);
		else items.splice(this.lowerBound(record), 0, record);
	}

	/** Removes `record`; call before its sort key changes. */
	remove(record) {
		const index = this.lowerBound(record);
		if (this.items[index] === record) this.items.splice(index, 1);
	}

	/** Inserts many records at once: sort the batch, then one linear merge. */
	insertMany(records) {
		if (records.length === 0) return;
		const batch = records.slice().sort((a, b) => this.compare(a, b));
		const old = this.items;
		if (old.length === 0 || this.compare(old[old.length - 1], batch[0]) <= 0) {
			for (const record of batch) old.push(record);
			return;
		}
		const merged = new Array(old.length + batch.length);
		let i = 0;
		let j = 0;
		let k = 0;
		while (i < old.length && j < batch.length) {
			merged[k++] = this.compare(old[i], batch[j]) <= 0 ? old[i++] : batch[j++];
		}
		while (i < old.length) merged[k++] = old[i++];
		while (j < batch.length) merged[k++] = batch[j++];
		this.items = merged;
	}

	/** The i-th record newest first. */
	newest(i) {
		return this.items[this.items.length - 1 - i];
	}
}

/**
 * A SortedList plus lookup by id.
 * @template {{ id: string }} T
 * @extends {SortedList<T>}
 */
class Collection extends SortedList {
	/** @param {(record: T) => number} keyOf */
	constructor(keyOf) {
		super(keyOf);
		/** @type {Map<string, T>} */
		this.byId = new Map();
	}

	/** @param {string} id */
	get(id) {
		return typeof id === 'string' ? this.byId.get(id) : undefined;
	}

	/** @param {T} record */
	add(record) {
		this.byId.set(record.id, record);
		this.insert(record);
	}

	/** @param {T[]} records */
	addMany(records) {
		for (const record of records) this.byId.set(record.id, record);
		this.insertMany(records);
	}

	/** @param {T} record */
	delete(record) {
		this.byId.delete(record.id);
		this.remove(record);
	}

	/**
	 * Changes a record's sort key and keeps the order.
	 * @param {T} record @param {() => void} mutate
	 */
	reorder(record, mutate) {
		this.remove(record);
		mutate();
		this.insert(record);
	}
}

module.exports = { SortedList, Collection };
