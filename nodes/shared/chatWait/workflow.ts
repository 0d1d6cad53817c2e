import type { IDataObject } from 'n8n-workflow';

/** A node of the workflow as n8n lists parents and children with their parameters. */
interface WorkflowNode {
	type: string;
	disabled?: boolean;
	parameters?: IDataObject;
}

/** What each of the two nodes reads of the other's parameters, in one place: the trigger, whether a node of its workflow waits for answers in the chat; Send and Wait, whether the workflow's trigger delivers them. */

/** n8n checks the HMAC of a waiting node's links only when its `operation` is exactly this (n8n-workflow's SEND_AND_WAIT_OPERATION, spelled out so that n8n versions without the export load the node). */
export const SEND_AND_WAIT_OPERATION = 'sendAndWait';
/** The event a reply comes as. */
export const MESSAGE_CREATED = 'message.created';
/** The trigger's value for every event, kinds added later included (docs/api-assumptions.md, "Webhook management"). */
export const ALL_EVENTS = '*';

/** Where an approval is answered (Send and Wait's Answer In); links when unset. */
export const ANSWER_IN = ['links', 'chat', 'both'] as const;
export type AnswerIn = (typeof ANSWER_IN)[number];

/** Whether an approval's Answer In takes replies in the chat. */
export const answersInChatWith = (answerIn: AnswerIn): boolean => answerIn !== 'links';

/** Whether Send and Wait's parameters ask for the answer in the chat: Reply in Chat, or an approval answered there. */
export function answersInChat(parameters: IDataObject = {}): boolean {
	if (parameters.responseType === 'chatReply') return true;
	const approval = (parameters.approvalOptions as IDataObject | undefined)?.values as IDataObject | undefined;
	return (parameters.responseType ?? 'approval') === 'approval' && answersInChatWith((approval?.answerIn ?? 'links') as AnswerIn);
}

/** An enabled Send and Wait of this package that waits for its answer in the chat. */
export function waitsInChat(node: WorkflowNode): boolean {
	return !node.disabled && node.type.endsWith('.omnichannel') && node.parameters?.operation === SEND_AND_WAIT_OPERATION && answersInChat(node.parameters);
}

/** An enabled Omnichannel Trigger. */
export function isOmnichannelTrigger(node: WorkflowNode): boolean {
	return !node.disabled && node.type.endsWith('.omnichannelTrigger');
}

/** Whether a trigger's Trigger On receives new messages (unset: its default, which does). */
export function receivesNewMessages(triggerParameters: IDataObject = {}): boolean {
	const events = triggerParameters.events;
	return !Array.isArray(events) || events.some((event) => event === MESSAGE_CREATED || event === ALL_EVENTS);
}
