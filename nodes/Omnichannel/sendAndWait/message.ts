import type { ResponseRequest } from './request';

/** A labelled link of the message. */
export interface ResponseLink {
	label: string;
	url: string;
}

/** The query parameters of each link; n8n signs them together with the path. */
export function linkParameters(request: ResponseRequest): Array<{ label: string; parameters: Record<string, string> }> {
	const wait = { w: request.waitId };
	if (request.responseType !== 'approval') {
		const label = request.responseType === 'freeText' ? 'Answer here' : 'Fill in the form';
		return [{ label, parameters: wait }];
	}
	const links = [{ label: request.approveLabel, parameters: { ...wait, approved: 'true' } }];
	if (request.declineLabel) links.push({ label: request.declineLabel, parameters: { ...wait, approved: 'false' } });
	return links;
}

/**
 * The text sent: the question, a blank line, then one line per link. The API
 * sends plain text on every channel (no buttons or markup), so each link is a
 * bare URL after its label, which chat apps and mail clients turn into a
 * tappable link; a line of its own keeps it from running into the text.
 */
export function messageText(question: string, links: ResponseLink[]): string {
	const lines = links.map((link) => `${link.label}: ${link.url}`);
	return `${question.trimEnd()}\n\n${lines.join('\n')}`;
}

/** Characters the links take in the message, counted as the API counts (code points). */
export function linksLength(question: string, links: ResponseLink[]): number {
	return Array.from(messageText(question, links)).length - Array.from(question.trimEnd()).length;
}
