import type { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { failedCalls } from '../../shared/transport/errors';
import type { FailedCallDetails } from '../../shared/transport/errors';
import type { ToolParameters } from './toolMode';
import { invalidItems } from './validation';
import type { InvalidItem } from './validation';

type ItemError = NodeApiError | NodeOperationError;

/** Parameters an API body field or word comes from, most specific first; the API's texts are no contract (docs/api-assumptions.md, "Authentication, scopes and rate limits"), so this only sharpens the hint. */
const API_FIELDS: Array<[RegExp, string[]]> = [
	[/\breply_to_message_id\b/, ['options.replyToMessageId']],
	[/\bfrom_user_id\b/, ['options.fromUserId']],
	[/\bclient_request_id\b/, ['options.clientRequestId']],
	[/\bprimary_id\b/, ['primaryContactId']],
	[/\bsecondary_id\b/, ['secondaryContactId']],
	[/\bconversation(_id)?\b/, ['conversationId', 'filters.conversationId']],
	[/\bcaption\b/, ['options.caption']],
	[/\blatitude\b/, ['latitude']],
	[/\blongitude\b/, ['longitude']],
	[/\btext\b/, ['text']],
	[/\blead_status\b/, ['filters.leadStatus', 'additionalFields.leadStatus', 'updateFields.leadStatus']],
	[/\bname\b/, ['name', 'updateFields.name']],
];

/** The parameter a record of a 404 (e.g. /contacts/ct_1) was addressed by. */
const RECORD_PARAMETERS: Record<string, string[]> = {
	contacts: ['contactId', 'primaryContactId'],
	conversations: ['conversationId'],
};

const quoteList = (names: string[]) => names.map((name) => `'${name}'`).join(', ');

function argumentFor(tool: ToolParameters, paths: string[]): string | undefined {
	for (const path of paths) {
		const argument = tool.atPath(path)?.argument;
		if (argument) return argument;
	}
	return undefined;
}

/** "pass the same 'clientRequestId' again" when the model controls the key of a send. */
function resendHint(tool: ToolParameters, call: FailedCallDetails): string {
	if (call.method !== 'POST' || !call.endpoint.startsWith('/messages/')) return '';
	const key = tool.atPath('options.clientRequestId')?.argument;
	return key
		? ` Repeat a send with the same '${key}' as before: the message is then never sent twice.`
		: ' A repeated send may arrive twice: check the conversation\'s messages first.';
}

function invalidItemText(tool: ToolParameters, nodeName: string, item: InvalidItem): [string, string] {
	const argument = tool.get(item.field)?.argument;
	if (argument) {
		const fix = item.expected
			? `Call the tool again with '${argument}' set to ${item.expected}.`
			: tool.rewrite(item.howToFix);
		return [`Invalid argument '${argument}': ${tool.rewrite(item.problem)}`, fix];
	}
	return [
		`The tool's setting '${item.field}' is invalid: ${tool.rewrite(item.problem)}`,
		`The workflow sets it, not an argument of this tool, so other arguments will not help. Tell the user that the '${nodeName}' tool needs fixing in n8n: ${item.howToFix}`,
	];
}

function failedCallText(tool: ToolParameters, arguments_: string[], call: FailedCallDetails): string | undefined {
	const { status } = call;
	if (status === undefined) {
		return call.retriesAllowed
			? `The Omnichannel API could not be reached. Try again in a little while.${resendHint(tool, call)}`
			: 'The connection broke after the request was sent, so it may have taken effect. Check (e.g. with a search) before calling again.';
	}
	if (status === 400) {
		const named = API_FIELDS.find(([pattern]) => pattern.test(call.apiText ?? ''));
		const argument = named && argumentFor(tool, named[1]);
		if (argument) {
			return `The API refused the value of '${argument}'. Call the tool again with a corrected '${argument}'; IDs must come from the workspace (e.g. from a search tool), never be guessed.`;
		}
		return arguments_.length > 0
			? `The API refused one of the arguments (${quoteList(arguments_)}). Correct it and call the tool again.`
			: 'The API refused what the workflow sends; other arguments will not help. Tell the user.';
	}
	if (status === 404) {
		const [collection, id] = call.endpoint.split('/').filter(Boolean);
		const argument = argumentFor(tool, RECORD_PARAMETERS[collection] ?? []);
		const kind = collection.replace(/s$/, '');
		return argument
			? `No ${kind} has the ID "${decodeURIComponent(id ?? '')}" in this workspace (a merged contact no longer exists). Call the tool again with '${argument}' set to an ID returned by a search, never a guessed one.`
			: `The ${kind} the workflow names does not exist; other arguments will not help. Tell the user.`;
	}
	if (status === 401 || status === 403) {
		return undefined;
	}
	if (status === 429) {
		return `The workspace's API key is over its rate limit (about 60 requests per second, shared with other workflows). Wait a few seconds, then call again.${resendHint(tool, call)}`;
	}
	if (status >= 500) {
		return `The Omnichannel API failed on its side. Try again in a little while.${resendHint(tool, call)}`;
	}
	return undefined;
}

/** The error of an item worded for the model that called the tool: the argument to change and what it accepts, or that none can help. */
export function toolModeError(tool: ToolParameters, nodeName: string, error: ItemError): ItemError {
	const item = invalidItems.get(error);
	if (item) {
		[error.message, error.description] = invalidItemText(tool, nodeName, item);
		return error;
	}
	const call = failedCalls.get(error);
	if (call) {
		const description = failedCallText(tool, tool.arguments, call);
		if (description) error.description = description;
		else if (error.description) {
			error.description = `Other arguments will not help: tell the user. ${error.description}`;
		}
		return error;
	}
	// The credential, a cancelled execution, the unexpected: nothing the model can change.
	error.message = error.message.replace(/ \[item \d+\]$/, '');
	if (error.description) error.description = `Other arguments will not help: tell the user. ${error.description}`;
	return error;
}
