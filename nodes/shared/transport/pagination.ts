import type { IDataObject } from 'n8n-workflow';

import { apiRequest } from './request';
import type { ApiRequestOptions, OmnichannelContext } from './types';

/** Lists of the API come in numbered pages (docs/api-assumptions.md, "Lists and pagination"). */

/** per_page is 1 to 500 (docs/api-assumptions.md, "Lists and pagination"). */
export const PER_PAGE_MAX = 500;

/** The pagination envelope of every list endpoint (docs/api-assumptions.md, "Lists and pagination"). */
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

/** Records of a list endpoint, each `id` at most once (docs/api-assumptions.md, "Lists and pagination"). */
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
