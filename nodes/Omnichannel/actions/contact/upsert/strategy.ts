import { PER_PAGE_MAX } from '../../../../shared/transport';

/** When Find Contacts By > Automatic reads all contacts first: a page of 500 costs one request and spares the search of each row found there (docs/api-assumptions.md, "The nodes"). */

/** Below this many rows Automatic searches each row: asking how many contacts there are costs a request. */
export const AUTO_MIN_ROWS = 10;

/** Reading pays when its pages are at most half the rows: then it costs fewer requests as soon as half the rows find their contact. */
export const CONTACTS_PER_ROW = PER_PAGE_MAX / 2;

/** The most contacts Automatic holds in the n8n process (what they take: docs/operations.md); above, it searches each row. */
export const AUTO_MAX_CONTACTS = 200_000;

/** Whether Automatic reads all `total` contacts for `rows` rows. */
export const readAllPays = (rows: number, total: number): boolean =>
	rows >= AUTO_MIN_ROWS && total <= AUTO_MAX_CONTACTS && total <= rows * CONTACTS_PER_ROW;
