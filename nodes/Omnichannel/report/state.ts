/**
 * What the report keeps while it reads: a fixed amount per conversation and
 * per response time, in typed arrays, never the messages themselves, so its
 * memory does not grow with the number of messages (docs/operations.md,
 * "Reports").
 */

/** `old` copied into a new array `size` long whose new places hold `fill`: the per-conversation arrays grow as conversations come. */
export function grown<T extends Float64Array | Int32Array | Uint8Array>(old: T, size: number, fill = 0): T {
	const copy = new (old.constructor as new (length: number) => T)(size);
	copy.fill(fill, old.length);
	copy.set(old as ArrayLike<number>);
	return copy;
}

/** Figures counted per scope (a channel, the total, a bucket). */
export enum Metric {
	ConversationsWithActivity,
	NewConversations,
	CustomerMessages,
	BotMessages,
	PersonMessages,
	FailedMessages,
	FirstResponses,
	BotFirstResponses,
	PersonFirstResponses,
	AnsweredWithinTarget,
	WaitsDecided,
	WaitingAtEnd,
	LongestWaitMs,
	HandOvers,
	HandOversAnswered,
	HandOversExpired,
	Ratings,
	RatingsScored,
	RatingSum,
	/** With Business Hours: the three clock-dependent figures above by the calendar's clock. */
	CalendarAnsweredWithinTarget,
	CalendarWaitsDecided,
	CalendarLongestWaitMs,
}
export const METRIC_COUNT = Metric.CalendarLongestWaitMs + 1;

/** What a response time sample measures. */
export enum SampleKind {
	BotResponse = 1,
	PersonResponse = 2,
	HandOverToPerson = 3,
}

/** A Float64Array that grows. */
export class Float64List {
	values = new Float64Array(64);

	length = 0;

	push(value: number): void {
		if (this.length === this.values.length) {
			const grown = new Float64Array(this.values.length * 2);
			grown.set(this.values);
			this.values = grown;
		}
		this.values[this.length++] = value;
	}
}

/** Response times with the channel, bucket and kind of each. */
export class Samples {
	private values = new Float64Array(1024);

	private channels = new Int32Array(1024);

	private buckets = new Int32Array(1024);

	private kinds = new Uint8Array(1024);

	/** The calendar's time of each sample (with Business Hours, `values` hold the open time). */
	private calendar = new Float64Array(1024);

	length = 0;

	add(kind: SampleKind, valueMs: number, channel: number, bucket: number, calendarMs = valueMs): void {
		if (this.length === this.values.length) this.grow();
		const index = this.length++;
		this.values[index] = valueMs;
		this.calendar[index] = calendarMs;
		this.channels[index] = channel;
		this.buckets[index] = bucket;
		this.kinds[index] = kind;
	}

	/**
	 * The values of the kinds given, sorted ascending, in groups: one per
	 * channel (`by: 'channel'`), one per bucket, or one for all (`groups` 1).
	 */
	grouped(kinds: SampleKind[], by: 'channel' | 'bucket' | 'all', groups: number, clock: 'report' | 'calendar' = 'report'): Float64Array[] {
		const source = clock === 'calendar' ? this.calendar : this.values;
		const keys = by === 'channel' ? this.channels : by === 'bucket' ? this.buckets : undefined;
		const wanted = (index: number) => kinds.includes(this.kinds[index] as SampleKind);
		const sizes = new Int32Array(groups);
		for (let index = 0; index < this.length; index++) if (wanted(index)) sizes[keys ? keys[index] : 0]++;
		const out = Array.from(sizes, (size) => new Float64Array(size));
		const filled = new Int32Array(groups);
		for (let index = 0; index < this.length; index++) {
			if (!wanted(index)) continue;
			const group = keys ? keys[index] : 0;
			out[group][filled[group]++] = source[index];
		}
		for (const values of out) values.sort();
		return out;
	}

	private grow(): void {
		const size = this.values.length * 2;
		const values = new Float64Array(size);
		values.set(this.values);
		const channels = new Int32Array(size);
		channels.set(this.channels);
		const buckets = new Int32Array(size);
		buckets.set(this.buckets);
		const kinds = new Uint8Array(size);
		kinds.set(this.kinds);
		const calendar = new Float64Array(size);
		calendar.set(this.calendar);
		Object.assign(this, { values, channels, buckets, kinds, calendar });
	}
}

/**
 * The nearest-rank percentile of ascending `sorted`: the value at rank
 * ceil(p × n) (1-based). The median is p = 0.5: with an even count, the lower
 * of the two middle values.
 */
export function nearestRank(sorted: Float64Array, p: number): number | null {
	if (sorted.length === 0) return null;
	return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1];
}

const NONE = -1;

/** Per-conversation state, indexed by the order in which conversations were first seen. */
export class Conversations {
	private readonly index = new Map<string, number>();

	count = 0;

	/** The conversation's channel (an index of Channels), -1 until known. */
	channel = new Int32Array(256).fill(NONE);

	/** Its customer, from the conversations list. */
	customer: string[] = [];

	/** 1 once the conversations list gave it (counted for new conversations). */
	listed = new Uint8Array(256);

	/** 1 once a message of the period showed it (conversations with activity). */
	active = new Uint8Array(256);

	/** 1 + the last bucket it counted as active in (buckets come newest first while reading). */
	activeBucket = new Int32Array(256);

	/** The earliest customer message of the wait being read (NaN: none). */
	waitStart = new Float64Array(256).fill(NaN);

	/** The nearest later bot or person message, and which (SampleKind). */
	laterReply = new Float64Array(256).fill(NaN);

	laterReplyKind = new Uint8Array(256);

	/** The nearest later message of a person (NaN: none). */
	laterPerson = new Float64Array(256).fill(NaN);

	/** The conversation's index, adding it when new. */
	of(id: string): number {
		let index = this.index.get(id);
		if (index === undefined) {
			index = this.count++;
			this.index.set(id, index);
			if (index === this.channel.length) this.grow();
		}
		return index;
	}

	has(id: string): boolean {
		return this.index.has(id);
	}

	ids(): IterableIterator<[string, number]> {
		return this.index.entries();
	}

	private grow(): void {
		const size = this.channel.length * 2;
		this.channel = grown(this.channel, size, NONE);
		this.activeBucket = grown(this.activeBucket, size);
		this.listed = grown(this.listed, size);
		this.active = grown(this.active, size);
		this.laterReplyKind = grown(this.laterReplyKind, size);
		this.waitStart = grown(this.waitStart, size, NaN);
		this.laterReply = grown(this.laterReply, size, NaN);
		this.laterPerson = grown(this.laterPerson, size, NaN);
	}
}

/** Channels by id, in the order first seen; their counters. */
export class Channels {
	private readonly index = new Map<string, number>();

	readonly ids: string[] = [];

	readonly types: string[] = [];

	readonly counters: Float64Array[] = [];

	of(id: string, type: string): number {
		let index = this.index.get(id);
		if (index === undefined) {
			index = this.ids.length;
			this.index.set(id, index);
			this.ids.push(id);
			this.types.push(type);
			this.counters.push(new Float64Array(METRIC_COUNT));
		}
		return index;
	}

	find(id: string): number | undefined {
		return this.index.get(id);
	}
}
