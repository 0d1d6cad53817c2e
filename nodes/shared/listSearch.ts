import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { channelTypeLabel } from './channelTypes';
import { listPage } from './transport';

/** Records per page of a list in the editor: quick to load, and more on scroll. */
const SEARCH_PAGE_SIZE = 100;

function matches(filter: string | undefined, ...values: unknown[]): boolean {
	if (!filter) return true;
	const needle = filter.toLowerCase();
	return values.some((value) => typeof value === 'string' && value.toLowerCase().includes(needle));
}

/** One page of a searchable list in the editor; n8n hands `paginationToken` (the next page number) back when the user scrolls to the end. */
async function searchPage(
	context: ILoadOptionsFunctions,
	endpoint: string,
	qs: IDataObject,
	paginationToken: string | undefined,
	toItem: (record: IDataObject) => INodeListSearchItems | undefined,
): Promise<INodeListSearchResult> {
	const page = Number(paginationToken) || 1;
	const response = await listPage.call(context, endpoint, qs, page, SEARCH_PAGE_SIZE);
	const results = (response.data ?? []).map(toItem).filter((item): item is INodeListSearchItems => !!item);
	return { results, paginationToken: response.has_next ? String(page + 1) : undefined };
}

/** The API cannot search conversations: the filter applies to the loaded page. */
export async function searchConversations(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage(this, '/conversations', {}, paginationToken, (conversation) => {
		const { id, channel, external_id: externalId, status, customer_id: customerId } = conversation;
		if (!matches(filter, id, channel, externalId, status, customerId)) return undefined;
		return {
			name: `${channel ? channelTypeLabel(channel) : 'Conversation'} · ${String(externalId || customerId || id)} (${String(status ?? 'unknown')})`,
			value: String(id),
		};
	});
}

/** Contacts are searched by the API (`search`: name, email, company, phone). */
export async function searchContacts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = filter ? { search: filter } : {};
	return await searchPage(this, '/contacts', qs, paginationToken, (contact) => {
		// Every field the API searches, so the list shows why a contact matched.
		const details = [contact.email, contact.phone, contact.company].filter((value) => !!value).map(String);
		return {
			name: [String(contact.name || contact.id), ...details].join(' · '),
			value: String(contact.id),
		};
	});
}

/** Channels are few; the filter applies to the loaded page. */
export async function searchChannels(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage(this, '/channels', {}, paginationToken, (channel) => {
		if (!matches(filter, channel.id, channel.name, channel.type, channel.username)) return undefined;
		return {
			name: `${String(channel.name || channel.id)} (${channelTypeLabel(channel.type)}${channel.is_active === false ? ', inactive' : ''})`,
			value: String(channel.id),
		};
	});
}
