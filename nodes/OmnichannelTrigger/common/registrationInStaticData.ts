import type { IDataObject, IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { BoundedMap } from '../../shared/processMemory/boundedMap';

/** The test URL and the production URL each get their own webhook at the service and their own slot here, so neither clobbers the other. */
export type WebhookKind = 'production' | 'test';

/** A webhook this node created at the service (docs/api-assumptions.md, "Webhook management"). */
export interface RegisteredWebhook {
	id: string;
	/** Shown by the service only when it is created; never put in a message. */
	secret: string;
	url: string;
	events: string[];
}

interface KindState extends IDataObject {
	webhook?: RegisteredWebhook;
	/** When `webhook` was last set or cleared (ms): orders copies of static data. */
	webhookChangedAt?: number;
}

interface Change {
	webhook: RegisteredWebhook | undefined;
	at: number;
}

type TriggerContext = IHookFunctions | IWebhookFunctions | IExecuteFunctions;

const KINDS: WebhookKind[] = ['production', 'test'];

/** The last registration change this process made, per trigger: a delivery run that saves older static data must not bring the old registration back. */
const changesInThisProcess = new BoundedMap<string, Change>(256);

/** n8n runs test webhooks (create, deliveries) in "manual" mode. */
export function kindOf(context: TriggerContext): WebhookKind {
	return context.getMode() === 'manual' ? 'test' : 'production';
}

/** One trigger: a node of a workflow, on its test or production URL. */
export function triggerKey(context: TriggerContext, kind: WebhookKind): string {
	return `${context.getWorkflow().id ?? ''}|${context.getNode().name}|${kind}`;
}

function slot(data: IDataObject, kind: WebhookKind): KindState {
	const value = data[kind];
	return value !== null && typeof value === 'object' ? (value as KindState) : {};
}

/** Writes replace the whole slot: n8n notices changes to static data only through assignments on objects it has wrapped, not inside newly added ones. */
function updateSlot(data: IDataObject, kind: WebhookKind, change: Partial<KindState>): void {
	const next: KindState = { ...slot(data, kind), ...change };
	for (const key of Object.keys(change) as Array<keyof KindState>) {
		if (change[key] === undefined) delete next[key];
	}
	data[kind] = next;
}

function isRegisteredWebhook(value: unknown): value is RegisteredWebhook {
	const webhook = value as RegisteredWebhook | undefined;
	return (
		typeof webhook?.id === 'string' &&
		typeof webhook.secret === 'string' &&
		typeof webhook.url === 'string' &&
		Array.isArray(webhook.events)
	);
}

export function registeredWebhook(data: IDataObject, kind: WebhookKind): RegisteredWebhook | undefined {
	const webhook = slot(data, kind).webhook;
	return isRegisteredWebhook(webhook) ? { ...webhook, events: [...webhook.events] } : undefined;
}

export function rememberWebhook(context: IHookFunctions, kind: WebhookKind, webhook: RegisteredWebhook | undefined): void {
	const change: Change = { webhook, at: Date.now() };
	updateSlot(context.getWorkflowStaticData('node'), kind, { webhook, webhookChangedAt: change.at });
	const key = triggerKey(context, kind);
	changesInThisProcess.set(key, change);
}

/** The webhook deliveries are signed for: the one in this run's static data, unless this process changed the registration after that copy was saved; the newer one is then used and written back. */
export function currentWebhook(context: IWebhookFunctions, kind: WebhookKind, trigger: string): RegisteredWebhook | undefined {
	const data = context.getWorkflowStaticData('node');
	const latest = changesInThisProcess.get(trigger);
	const copyChangedAt = slot(data, kind).webhookChangedAt;
	if (latest && latest.at > (typeof copyChangedAt === 'number' ? copyChangedAt : 0)) {
		updateSlot(data, kind, { webhook: latest.webhook, webhookChangedAt: latest.at });
		return latest.webhook && { ...latest.webhook };
	}
	return registeredWebhook(data, kind);
}

/** n8n calls `delete` in its "internal" mode for both kinds, so the kind is found from the URL the webhook was registered with. */
export function kindRegisteredFor(data: IDataObject, url: string): WebhookKind | undefined {
	return KINDS.find((kind) => registeredWebhook(data, kind)?.url === url);
}
