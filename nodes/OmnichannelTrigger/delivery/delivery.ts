import type { KeyObject } from 'crypto';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { TriggerEvent } from '../../shared/triggerItem';
import { routeChatReply } from '../chatReplies/replyRouting';
import { customerMessageOf, DELIVERY_BUDGET_MS, QUIET_CAP_KEY, QUIET_FIRST_KEY, QUIET_WAITED_KEY } from '../common/deliveredEvent';
import { isSubscribed, normaliseEvents } from '../common/events';
import { admitCopy, markStarted } from '../common/eventsInProcess';
import type { HoldOutcome } from '../common/quietHold';
import { currentWebhook, kindOf, triggerKey } from '../common/registrationInStaticData';
import type { WebhookKind } from '../common/registrationInStaticData';
import { checkSignature, clockSkewWarning, hmacKeyOfSecret } from '../common/signature';
import type { SignedDelivery } from '../common/signature';
import { deliveryOptions, holdMessage, passesFilters } from '../options';
import type { OptionValues } from '../options';
import { manualSigningSecret, usesManualRegistration } from '../parameters';

/** Answers the request ourselves: no execution starts; the text names the failed check, never the secret. */
function refuse(context: IWebhookFunctions, status: 400 | 401 | 409 | 503, reason: string): IWebhookResponseData {
	const response = context.getResponseObject();
	response.writeHead(status, { 'Content-Type': 'application/json' });
	response.end(JSON.stringify({ error: reason }));
	return { noWebhookResponse: true };
}

/** 2xx without an execution: the sender stops retrying, nothing runs. */
function skip(reason: 'duplicate' | 'not subscribed' | 'filtered' | 'part of a burst' | 'answered a waiting execution'): IWebhookResponseData {
	return { webhookResponse: { received: true, executed: false, reason } };
}

/** Why the trigger passes an event on to nobody, if it does. */
function unwanted(context: IWebhookFunctions, event: TriggerEvent, options: OptionValues): 'not subscribed' | 'filtered' | undefined {
	const subscription = normaliseEvents(context.getNodeParameter('events', []), context.getNodeParameter('otherEvents', ''));
	if (!isSubscribed(subscription, event.type)) return 'not subscribed';
	if (!passesFilters(event.type, event.data, options)) return 'filtered';
	return undefined;
}

function header(context: IWebhookFunctions, name: string): string | undefined {
	const value = context.getHeaderData()[name];
	return Array.isArray(value) ? value.join(' ') : value;
}

/** The bytes that were signed, exactly as received, whatever the content type. */
async function signedBytes(context: IWebhookFunctions): Promise<Buffer> {
	const request = context.getRequestObject() as { rawBody?: unknown; readRawBody?: () => Promise<void> };
	if (!Buffer.isBuffer(request.rawBody) && typeof request.readRawBody === 'function') await request.readRawBody();
	return Buffer.isBuffer(request.rawBody) ? request.rawBody : Buffer.alloc(0);
}

function parseEvent(rawBody: Buffer): TriggerEvent | undefined {
	let parsed: unknown;
	try {
		parsed = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return undefined;
	}
	const event = parsed as TriggerEvent | null;
	if (event === null || typeof event !== 'object' || Array.isArray(event)) return undefined;
	if (typeof event.type !== 'string' || typeof event.id !== 'string') return undefined;
	return event;
}

/** Undefined when there is nothing to verify with: every delivery is then refused. */
async function hmacKeyForDelivery(context: IWebhookFunctions, kind: WebhookKind, trigger: string): Promise<KeyObject | undefined> {
	const secret = usesManualRegistration(context) ? await manualSigningSecret(context) : currentWebhook(context, kind, trigger)?.secret;
	return typeof secret === 'string' ? hmacKeyOfSecret(secret.trim()) : undefined;
}

/** What the log says when a delivery cannot be verified: why, and what repairs it. */
function missingSecretMessage(context: IWebhookFunctions, kind: WebhookKind): string {
	const where = `Omnichannel Trigger "${context.getNode().name}" of workflow ${context.getWorkflow().id ?? ''}`;
	if (usesManualRegistration(context)) {
		return `${where} refused a delivery (401): it has no valid signing secret. Enter the webhook's secret (whsec_…) in its Omnichannel Webhook Signing Secret credential and save.`;
	}
	if (kind === 'test') {
		return `${where} refused a test delivery (401): no test webhook is registered. Select "Listen for test event" again.`;
	}
	return `${where} refused a delivery (401): its webhook registration (id and signing secret) is missing from the workflow's static data. In queue mode another node of this workflow that writes static data on a worker erases it. Unpublish and publish the workflow (or restart n8n) to register the webhook again.`;
}

/** The options' hold of a customer's message (Answer a Burst Once); undefined for every other event, or when no option holds. */
async function holdCustomerMessage(trigger: string, event: TriggerEvent, options: OptionValues, deadline: number): Promise<HoldOutcome | undefined> {
	const message = customerMessageOf(event);
	if (!message || typeof message.id !== 'string' || typeof message.conversation_id !== 'string') return undefined;
	return await holdMessage(trigger, message, options, deadline);
}

/** What the execution's step learns of its delivery's hold: how long it waited, and the cap's state when Answer a Burst Once has one. */
function heldKeys(quiet: { waitedMs: number; capLeftMs?: number; endedBy?: string; firstId?: string }): IDataObject {
	const keys: IDataObject = { [QUIET_WAITED_KEY]: quiet.waitedMs };
	if (quiet.firstId !== undefined) keys[QUIET_FIRST_KEY] = quiet.firstId;
	if (quiet.capLeftMs !== undefined) keys[QUIET_CAP_KEY] = quiet.endedBy ? { capLeftMs: quiet.capLeftMs, endedBy: quiet.endedBy } : { capLeftMs: quiet.capLeftMs };
	return keys;
}

/** The delivery's event once its signature, timestamp and body are checked, or the refusal (401, 400). */
async function verifiedEvent(context: IWebhookFunctions, key: KeyObject, trigger: string): Promise<{ event: TriggerEvent } | IWebhookResponseData> {
	const delivery: SignedDelivery = {
		id: header(context, 'x-service-webhook-id'),
		timestamp: header(context, 'x-service-webhook-timestamp'),
		signature: header(context, 'x-service-webhook-signature'),
		rawBody: await signedBytes(context),
	};
	const nowSeconds = Math.floor(Date.now() / 1000);
	const failure = checkSignature(delivery, key, nowSeconds);
	if (failure === 'stale timestamp') {
		const warning = clockSkewWarning(trigger, delivery.timestamp, nowSeconds);
		if (warning) context.logger.warn(`Omnichannel Trigger "${context.getNode().name}" of workflow ${context.getWorkflow().id ?? ''}: ${warning}`);
	}
	if (failure) return refuse(context, 401, failure);

	const event = parseEvent(delivery.rawBody);
	if (!event) return refuse(context, 400, 'body is not a JSON event');

	// checkSignature refuses deliveries without the id header, which is the
	// event's id (docs/api-assumptions.md, "Webhook deliveries").
	if (event.id !== delivery.id) return refuse(context, 400, 'event id does not match X-Service-Webhook-Id');
	return { event };
}

/** One delivery: verify (401), parse (400), relay a chat reply, skip what is unwanted or already accepted (2xx), emit the rest once, all by one deadline. */
export async function receiveDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const deadline = Date.now() + DELIVERY_BUDGET_MS;
	const kind = kindOf(context);
	// Once per delivery: it reads the node, which n8n copies on every read.
	const trigger = triggerKey(context, kind);
	const key = await hmacKeyForDelivery(context, kind, trigger);
	if (!key) {
		context.logger.warn(missingSecretMessage(context, kind));
		return refuse(context, 401, 'no signing secret');
	}
	const checked = await verifiedEvent(context, key, trigger);
	if (!('event' in checked)) return checked;
	const { event } = checked;

	const routing = await routeChatReply(context, event, deadline);
	if (routing.route === 'retryLater') return refuse(context, 503, routing.reason);
	// The waiting execution took the reply: it runs on, and no other execution starts for it.
	if (routing.route === 'taken') return skip('answered a waiting execution');
	const options = deliveryOptions(context);
	const skipped = unwanted(context, event, options);
	if (skipped) return skip(skipped);

	const quiet = await holdCustomerMessage(trigger, event, options, deadline);
	if (quiet && 'newerId' in quiet) {
		// A held newer message's execution gathers it: later copies start none either.
		markStarted(trigger, event.id);
		return skip('part of a burst');
	}

	// The execution's ledger check reads the event id from the body. A copy
	// arriving while another is being started waits for its outcome (eventsInProcess.ts).
	const admission = await admitCopy(trigger, event.id, context.getResponseObject(), deadline);
	if (admission === 'started') return skip('duplicate');
	// Not a 2xx: should n8n have failed to create that copy's execution, this
	// one, retried by the sender, still runs.
	if (admission === 'unknown') return refuse(context, 409, 'a copy of this event is being started; retry later');

	// The whole event goes to the execution, whose first step checks the id in
	// n8n's database and applies Output Data Only (OmnichannelTrigger.execute).
	return {
		workflowData: [context.helpers.returnJsonArray(quiet ? { ...event, ...heldKeys(quiet) } : event)],
		webhookResponse: { received: true, executed: true },
	};
}
