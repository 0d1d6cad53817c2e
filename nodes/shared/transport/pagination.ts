import type { IDataObject } from 'n8n-workflow';

import { apiRequest } from './request';
import type { ApiRequestOptions, OmnichannelContext } from './types';

/**
 * Lists of the API come in numbered pages
 * (docs/api-assumptions.md, "Lists and pagination"). Every reader of a list
 * fetches its pages with `listPage`; what differs is which pages it reads and
 * when it stops, and each reader says so where it lives:
 * - `apiRequestAllItems` (below): Return All and Limit of the action node and
 *   the webhook trigger's webhook list; page 1, then the rest in parallel;
 * - `readWindow` in window.ts: the records inside a time window (Get Many's
 *   Created After / Before and Updated Before, the report): a search for the
 *   window's first page, then pages in order, a few in flight, down to the
 *   window's start;
 * - `searchPage` in shared/listSearch.ts: one page per scroll of a list in the
 *   editor, which hands the next page number back as its pagination token;
 * - `scanAfter` in OmnichannelPollingTrigger/scan.ts: newest first down to the
 *   poll's cursor, checking that the list did not change under it.
 */

/** per_page is 1 to 500 (docs/api-assumptions.md, "Lists and pagination"). */
export const PER_PAGE_MAX = 500;

/**
 * The pagination envelope of every list endpoint
 * (docs/api-assumptions.md, "Lists and pagination").
 */
export interface ListPage<T = IDataObject> {
	data: T[];
	has_next: boolean;
	last_page?: number;
	current_page?: number;
	total?: number;
}

/** Page `page` (1-based) of a list, `perPage` records a page (1 to PER_PAGE_MAX). */
export async function listPage(
	this: OmnichannelContext,
	endpoint: string,
	qs: IDataObject,
	page: number,
	perPage: number,
	options: Pick<ApiRequestOptions, 'itemIndex' | 'maxRequestsPerSecond'> = {},
): Promise<ListPage> {
	return (await apiRequest.call(this, 'GET', endpoint, {
		qs: { ...qs, page, per_page: perPage },
		...options,
	})) as unknown as ListPage;
}

export interface ListOptions {
	/** Most records to return; undefined returns all. */
	limit?: number;
	itemIndex?: number;
	maxRequestsPerSecond?: number;
	/** Keeps only the records it accepts, for filters the API lacks. */
	keep?: (record: IDataObject) => boolean;
	/** Page 1, when the caller read it already (to decide whether to read the rest). */
	firstPage?: ListPage;
}

/**
 * Records of a list endpoint, each `id` at most once. Page 1 tells how many
 * pages there are; the rest are then fetched in parallel (the transport bounds
 * the concurrency and the rate), so N records cost ceil(N / 500) requests.
 * Pages are numbered, not a snapshot
 * (docs/api-assumptions.md, "Lists and pagination"): records that move while we
 * page can show up twice, hence the de-duplication, and records created
 * meanwhile can extend the list, hence the sequential tail.
 */
export async function apiRequestAllItems<T extends IDataObject = IDataObject>(
	this: OmnichannelContext,
	endpoint: string,
	qs: IDataObject = {},
	options: ListOptions = {},
): Promise<T[]> {
	const { limit, itemIndex, maxRequestsPerSecond, keep, firstPage } = options;
	const perPage = limit === undefined ? PER_PAGE_MAX : Math.max(1, Math.min(PER_PAGE_MAX, limit));
	const wanted = limit ?? Number.POSITIVE_INFINITY;
	const fetchPage = async (page: number) =>
		(await listPage.call(this, endpoint, qs, page, perPage, { itemIndex, maxRequestsPerSecond })) as ListPage<T>;

	const records: T[] = [];
	const seen = new Set<unknown>();
	const collect = (page: ListPage<T>) => {
		for (const record of page.data ?? []) {
			const id = record.id;
			if (id !== undefined && seen.has(id)) continue;
			seen.add(id);
			if (keep && !keep(record)) continue;
			records.push(record);
		}
	};

	let page = (firstPage as ListPage<T> | undefined) ?? (await fetchPage(1));
	collect(page);
	let pageNumber = 1;
	const lastPage = Math.min(page.last_page ?? 1, Math.ceil(wanted / perPage));
	if (page.has_next && lastPage > 1) {
		const pageNumbers = Array.from({ length: lastPage - 1 }, (_, index) => index + 2);
		const pages = await Promise.all(pageNumbers.map(fetchPage));
		pages.forEach(collect);
		page = pages[pages.length - 1];
		pageNumber = lastPage;
	}
	// Only when records were added meanwhile, or duplicates left us short.
	while (page.has_next && records.length < wanted && (page.data ?? []).length > 0) {
		pageNumber++;
		page = await fetchPage(pageNumber);
		collect(page);
	}
	return limit === undefined ? records : records.slice(0, limit);
}
