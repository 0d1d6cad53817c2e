import type { ResponseRequest } from './request';

/** A labelled link of the message. */
export interface ResponseLink {
	label: string;
	url: string;
}

/** The query parameters of each link; n8n signs them together with the path. */
export function linkParameters(request: ResponseRequest): Array<{ label: string; parameters: Record<string, string> }> {
	if (!request.links) return [];
	const wait = { w: request.waitId };
	if (request.responseType !== 'approval') {
		const label = request.responseType === 'freeText' ? 'Answer here' : 'Fill in the form';
		return [{ label, parameters: wait }];
	}
	const links = [{ label: request.approveLabel, parameters: { ...wait, approved: 'true' } }];
	if (request.declineLabel) links.push({ label: request.declineLabel, parameters: { ...wait, approved: 'false' } });
	return links;
}

/** The last line of an approval answered in the chat: the words that count. */
export function chatInstruction(request: ResponseRequest): string | undefined {
	const chat = request.chat;
	if (request.responseType !== 'approval' || !chat?.approveWord) return undefined;
	return chat.declineWord
		? `Reply ${chat.approveWord} to approve or ${chat.declineWord} to decline.`
		: `Reply ${chat.approveWord} to approve.`;
}

/** The text sent: the question, a blank line, a line per link (a bare URL, as the API sends plain text), then the words that count. */
export function messageText(question: string, links: ResponseLink[], instruction?: string): string {
	const lines = links.map((link) => `${link.label}: ${link.url}`);
	if (instruction) lines.push(instruction);
	return lines.length > 0 ? `${question.trimEnd()}\n\n${lines.join('\n')}` : question.trimEnd();
}

/** Characters the links take in the message, counted as the API counts (code points). */
export function linksLength(question: string, links: ResponseLink[], instruction?: string): number {
	return Array.from(messageText(question, links, instruction)).length - Array.from(question.trimEnd()).length;
}
