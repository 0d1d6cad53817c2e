import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { BoundedMap } from '../../shared/processMemory/boundedMap';
import { apiRequest, apiRequestAllItems } from '../../shared/transport';
import { sameEvents } from '../common/events';
import { kindOf, kindRegisteredFor, registeredWebhook, rememberWebhook, triggerKey } from '../common/registrationInStaticData';
import type { RegisteredWebhook, WebhookKind } from '../common/registrationInStaticData';
import { keyBytesOfSecret } from '../common/signature';
import { checkOptions } from '../options';
import { checkManualSigningSecret, requireCredential, subscribedEvents, usesManualRegistration } from '../parameters';

/** A webhook as the webhook management API returns it (docs/api-assumptions.md, "Webhook management"). */
interface ServiceWebhook extends IDataObject {
	id?: string;
	url?: string;
	events?: string[];
	is_active?: boolean;
	secret?: string;
}

function hasStatus(error: unknown, status: string): boolean {
	return (error as { httpCode?: unknown })?.httpCode === status;
}

function webhookUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(context.getNode(), 'n8n did not provide a webhook URL for this node');
	return url;
}

function webhookPath(id: string): string {
	return `/webhooks/${encodeURIComponent(id)}`;
}

/** The webhook at the service; 'unreadable' without webhooks:read; 'unknown' when the API did not answer (after the transport's retries). */
async function lookUp(context: IHookFunctions, id: string): Promise<ServiceWebhook | 'gone' | 'unreadable' | { unknown: string }> {
	try {
		return (await apiRequest.call(context, 'GET', webhookPath(id))) as ServiceWebhook;
	} catch (error) {
		if (hasStatus(error, '404')) return 'gone';
		if (hasStatus(error, '403')) return 'unreadable';
		return { unknown: (error as Error).message };
	}
}

/** DELETE that counts 404 as done; other failures are logged and return false: removing a webhook never blocks (un)publishing. */
async function removeAtService(context: IHookFunctions, id: string): Promise<boolean> {
	try {
		await apiRequest.call(context, 'DELETE', webhookPath(id));
		return true;
	} catch (error) {
		if (hasStatus(error, '404')) return true;
		context.logger.warn(`Omnichannel Trigger: could not remove webhook ${id}: ${(error as Error).message}`);
		return false;
	}
}

/** A republish runs `delete` before `create`: the production webhook is retired for this long instead of removed, so no event or owed retry is lost. */
export const RETIRE_GRACE_MS = 30_000;
/** The grace: RETIRE_GRACE_MS, shorter in tests. */
let retireGraceMs = RETIRE_GRACE_MS;
export function setRetireGrace(ms: number): void {
	retireGraceMs = ms;
}

/** Process memory: per trigger, the webhook retired and waiting for its removal. */
const retiring = new BoundedMap<string, { id: string }>(256);

function retire(context: IHookFunctions, trigger: string, webhook: RegisteredWebhook): void {
	const entry = { id: webhook.id };
	retiring.set(trigger, entry);
	void (async () => {
		await sleep(retireGraceMs);
		if (retiring.get(trigger) !== entry) return;
		retiring.delete(trigger);
		await removeAtService(context, entry.id);
	})();
}

/** An activation keeps the trigger's webhook: it is no longer retiring. */
function claim(trigger: string): void {
	retiring.delete(trigger);
}

/** Removes the webhook automatic registration made and forgets it; should the removal fail, its deliveries are refused. */
async function discard(context: IHookFunctions, kind: WebhookKind, webhook: RegisteredWebhook): Promise<void> {
	await removeAtService(context, webhook.id);
	rememberWebhook(context, kind, undefined);
}

/** Webhooks at our URL that we hold no secret for could never be verified: they go before we create the one we keep (needs webhooks:read). */
async function removeUnverifiable(context: IHookFunctions, url: string, kept?: string): Promise<void> {
	let webhooks: ServiceWebhook[];
	try {
		webhooks = (await apiRequestAllItems.call(context, '/webhooks')) as ServiceWebhook[];
	} catch (error) {
		context.logger.debug(`Omnichannel Trigger: skipped looking for leftover webhooks: ${(error as Error).message}`);
		return;
	}
	for (const webhook of webhooks) {
		if (webhook.url === url && typeof webhook.id === 'string' && webhook.id !== kept) await removeAtService(context, webhook.id);
	}
}

/** After a switch to manual registration: without an API key only the node forgets its webhook, and the log says what to delete. */
async function discardAfterSwitch(context: IHookFunctions, kind: WebhookKind, stored: RegisteredWebhook): Promise<void> {
	try {
		await discard(context, kind, stored);
	} catch (error) {
		rememberWebhook(context, kind, undefined);
		context.logger.warn(
			`Omnichannel Trigger "${context.getNode().name}": switched to manual registration; could not delete its earlier webhook ${stored.id} (${(error as Error).message}). Delete it in the dashboard, or it delivers events twice.`,
		);
	}
}

export async function checkWebhookExists(this: IHookFunctions): Promise<boolean> {
	checkOptions(this);
	const kind = kindOf(this);
	const stored = registeredWebhook(this.getWorkflowStaticData('node'), kind);
	if (usesManualRegistration(this)) {
		await checkManualSigningSecret(this);
		subscribedEvents(this);
		// Switched from automatic: the node's own webhook would deliver events twice.
		if (stored) await discardAfterSwitch(this, kind, stored);
		return true;
	}

	requireCredential(this, 'omnichannelApi', 'Automatic registration needs an Omnichannel API credential');
	const url = webhookUrl(this);
	const events = subscribedEvents(this);
	// Another URL or other events: create replaces it, after the new one exists.
	if (!stored || stored.url !== url || !sameEvents(stored.events, events)) return false;

	const remote = await lookUp(this, stored.id);
	if (remote === 'gone') {
		// Deleted at the service (dashboard, another tool): create it again.
		rememberWebhook(this, kind, undefined);
		return false;
	}
	if (remote === 'unreadable') {
		// A key with webhooks:write but not webhooks:read: replacing the webhook
		// on every activation would drop the retries the service owes it, so the
		// registration we hold is trusted. The log says what that costs.
		this.logger.info(
			`Omnichannel Trigger "${this.getNode().name}": the API key cannot read webhooks (webhooks:read), so webhook ${stored.id} is kept without checking it still exists. Add the scope, or publish the workflow again after deleting the webhook in the dashboard.`,
		);
	} else if ('unknown' in remote) {
		// Failing the publish would leave the workflow without its webhook in n8n, and the retired one would go
		// after the grace: the registration we hold is kept.
		this.logger.warn(
			`Omnichannel Trigger "${this.getNode().name}": could not check webhook ${stored.id} at the service (${remote.unknown}); it is kept as registered.`,
		);
	} else if (remote.url !== url || !sameEvents(remote.events, events) || remote.is_active === false) {
		// Changed at the service, or inactive (the API cannot reactivate it): replaced.
		return false;
	}
	claim(triggerKey(this, kind));
	return true;
}

export async function createWebhook(this: IHookFunctions): Promise<boolean> {
	if (usesManualRegistration(this)) {
		await checkManualSigningSecret(this);
		return true;
	}
	const url = webhookUrl(this);
	const events = subscribedEvents(this);
	const kind = kindOf(this);
	const workflow = this.getWorkflow();
	const description = `n8n workflow ${workflow.id ?? ''}, node "${this.getNode().name}"${kind === 'test' ? ' (test URL)' : ''}`;
	const replaced = registeredWebhook(this.getWorkflowStaticData('node'), kind);
	await removeUnverifiable(this, url, replaced?.id);

	const created = (await apiRequest.call(this, 'POST', '/webhooks', {
		body: { url, events, description },
	})) as ServiceWebhook;
	if (typeof created.id !== 'string' || typeof created.secret !== 'string' || !keyBytesOfSecret(created.secret)) {
		// Its deliveries could not be verified: do not leave it behind.
		if (typeof created.id === 'string') await removeAtService(this, created.id);
		throw new NodeApiError(
			this.getNode(),
			{ reason: 'unexpected response' },
			{ message: 'The Omnichannel API created the webhook but returned no usable id and signing secret' },
		);
	}
	rememberWebhook(this, kind, { id: created.id, secret: created.secret, url, events });
	// The new webhook exists: only now does the one it replaces go.
	claim(triggerKey(this, kind));
	if (replaced && replaced.id !== created.id) await removeAtService(this, replaced.id);
	return true;
}

/** Unpublishing, and the first half of republishing (see RETIRE_GRACE_MS). */
export async function deleteWebhook(this: IHookFunctions): Promise<boolean> {
	const data = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default');
	const kind = url ? kindRegisteredFor(data, url) : undefined;
	const stored = kind ? registeredWebhook(data, kind) : undefined;
	if (!kind || !stored) return true;
	if (kind === 'production') {
		// Stays remembered: a republish reuses it; otherwise the next activation
		// finds it gone (or still there, should n8n stop within the grace).
		retire(this, triggerKey(this, kind), stored);
		return true;
	}
	// A test webhook is never republished: removed at once.
	// On failure it stays remembered, so the next activation reuses or removes it.
	if (!(await removeAtService(this, stored.id))) return false;
	rememberWebhook(this, kind, undefined);
	return true;
}
