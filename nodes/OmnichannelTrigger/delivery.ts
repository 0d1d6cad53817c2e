import type { KeyObject } from 'crypto';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { acceptOnce } from './deduplication';
import { isSubscribed, normaliseEvents } from './events';
import { passesFilters } from './filters';
import { eventFilters, manualSecret, usesManualRegistration } from './parameters';
import { checkSignature, verificationKey } from './signature';
import type { SignedDelivery } from './signature';
import { currentWebhook, kindOf, triggerKey } from './webhookState';
import type { WebhookKind } from './webhookState';

/**
 * The body of every delivery (docs/api-assumptions.md, "Webhook deliveries").
 */
export interface ServiceEvent extends IDataObject {
	id: string;
	type: string;
	data: IDataObject;
}

/**
 * Answers the request ourselves: no execution starts. The text names the
 * failed check only, never the secret or the expected signature.
 */
function refuse(context: IWebhookFunctions, status: 400 | 401, reason: string): IWebhookResponseData {
	const response = context.getResponseObject();
	response.writeHead(status, { 'Content-Type': 'application/json' });
	response.end(JSON.stringify({ error: reason }));
	return { noWebhookResponse: true };
}

/** 2xx without an execution: the sender stops retrying, nothing runs. */
function skip(reason: 'duplicate' | 'not subscribed' | 'filtered'): IWebhookResponseData {
	return { webhookResponse: { received: true, executed: false, reason } };
}

function header(context: IWebhookFunctions, name: string): string | undefined {
	const value = context.getHeaderData()[name];
	return Array.isArray(value) ? value.join(' ') : value;
}

/**
 * The bytes that were signed, exactly as received, whatever the content type.
 * n8n reads the body for JSON, text, form and XML content types and keeps the
 * bytes in `rawBody`; for any other type (octet-stream, none) webhook nodes
 * from version 1.1 on get the body unread, and `readRawBody` reads it.
 */
async function signedBytes(context: IWebhookFunctions): Promise<Buffer> {
	const request = context.getRequestObject() as { rawBody?: unknown; readRawBody?: () => Promise<void> };
	if (!Buffer.isBuffer(request.rawBody) && typeof request.readRawBody === 'function') await request.readRawBody();
	return Buffer.isBuffer(request.rawBody) ? request.rawBody : Buffer.alloc(0);
}

function parseEvent(rawBody: Buffer): ServiceEvent | undefined {
	let parsed: unknown;
	try {
		parsed = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return undefined;
	}
	const event = parsed as ServiceEvent | null;
	if (event === null || typeof event !== 'object' || Array.isArray(event)) return undefined;
	if (typeof event.type !== 'string' || typeof event.id !== 'string') return undefined;
	return event;
}

/** Undefined when there is nothing to verify with: every delivery is then refused. */
async function deliveryKey(context: IWebhookFunctions, kind: WebhookKind, trigger: string): Promise<KeyObject | undefined> {
	const secret = usesManualRegistration(context) ? await manualSecret(context) : currentWebhook(context, kind, trigger)?.secret;
	return typeof secret === 'string' ? verificationKey(secret.trim()) : undefined;
}

/** What the log says when a delivery cannot be verified: why, and what repairs it. */
function missingSecretMessage(context: IWebhookFunctions, kind: WebhookKind): string {
	const where = `Omnichannel Trigger "${context.getNode().name}" of workflow ${context.getWorkflow().id ?? ''}`;
	if (usesManualRegistration(context)) {
		return `${where} refused a delivery (401): it has no valid signing secret. Enter the webhook's secret (whsec_…) in its Omnichannel Webhook Signing Secret credential (node versions before 2: in the node) and save.`;
	}
	if (kind === 'test') {
		return `${where} refused a test delivery (401): no test webhook is registered. Select "Listen for test event" again.`;
	}
	return `${where} refused a delivery (401): its webhook registration (id and signing secret) is missing from the workflow's static data. In queue mode another node of this workflow that writes static data on a worker erases it. Unpublish and publish the workflow (or restart n8n) to register the webhook again.`;
}

/**
 * One delivery: verify (401), parse (400), then skip what the node does not
 * want or has already accepted (2xx), and emit the rest exactly once.
 */
export async function receiveDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const kind = kindOf(context);
	// Once per delivery: it reads the node, which n8n copies on every read.
	const trigger = triggerKey(context, kind);
	const key = await deliveryKey(context, kind, trigger);
	if (!key) {
		context.logger.warn(missingSecretMessage(context, kind));
		return refuse(context, 401, 'no signing secret');
	}

	const delivery: SignedDelivery = {
		id: header(context, 'x-service-webhook-id'),
		timestamp: header(context, 'x-service-webhook-timestamp'),
		signature: header(context, 'x-service-webhook-signature'),
		rawBody: await signedBytes(context),
	};
	const failure = checkSignature(delivery, key, Math.floor(Date.now() / 1000));
	if (failure) return refuse(context, 401, failure);

	const event = parseEvent(delivery.rawBody);
	if (!event) return refuse(context, 400, 'body is not a JSON event');

	const subscription = normaliseEvents(context.getNodeParameter('events', []), context.getNodeParameter('otherEvents', ''));
	if (!isSubscribed(subscription, event.type)) return skip('not subscribed');
	if (!passesFilters(event.type, event.data, eventFilters(context))) return skip('filtered');

	// checkSignature refuses deliveries without the id header, which is the
	// event's id (docs/api-assumptions.md, "Webhook deliveries"); the
	// execution's ledger check reads the body.
	if (event.id !== delivery.id) return refuse(context, 400, 'event id does not match X-Service-Webhook-Id');
	if (!acceptOnce(trigger, event.id)) return skip('duplicate');

	// The whole event goes to the execution, whose first step checks the id in
	// n8n's database and applies Output Data Only (OmnichannelTrigger.execute).
	return {
		workflowData: [context.helpers.returnJsonArray(event)],
		webhookResponse: { received: true, executed: true },
	};
}
