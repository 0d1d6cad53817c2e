import { PER_PAGE_MAX } from '../../../../shared/transport';

/**
 * When Find Contacts By > Automatic reads all contacts first, in requests:
 * reading costs one request per page of 500 (docs/api-assumptions.md, "Lists
 * and pagination"), and saves the search of every row that finds its
 * contact there; a new row searches once more before its create either way
 * (docs/api-assumptions.md, "The nodes": read all contacts, or search each
 * row). The costs per strategy, measured, are in docs/operations.md
 * ("Create or Update").
 */

/**
 * Below this many rows Automatic searches each row without asking how many
 * contacts there are: asking costs a request, up to a tenth of the searches.
 */
export const AUTO_MIN_ROWS = 10;

/**
 * Reading pays when its pages are at most half the rows: then it costs fewer
 * requests than searching as soon as half the rows find their contact (a
 * sync's rows mostly do). That is 250 contacts per row.
 */
export const CONTACTS_PER_ROW = PER_PAGE_MAX / 2;

/**
 * Automatic holds at most this many contacts in the n8n process (what they
 * take, measured: docs/operations.md); above it, it searches each row.
 */
export const AUTO_MAX_CONTACTS = 200_000;

/** Whether Automatic reads all `total` contacts for `rows` rows. */
export const readAllPays = (rows: number, total: number): boolean =>
	rows >= AUTO_MIN_ROWS && total <= AUTO_MAX_CONTACTS && total <= rows * CONTACTS_PER_ROW;
