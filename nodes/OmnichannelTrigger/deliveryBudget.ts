/**
 * The time one delivery may take in this node, from its arrival: the sender
 * wants a 2xx within 10 s (docs/api-assumptions.md, "Webhook deliveries"),
 * and n8n needs the rest to create (in queue mode, queue) the execution and
 * answer. Every call a delivery makes ends by then, the quiet period of
 * Answer a Burst Once included; what cannot is answered 503, and the sender
 * delivers again.
 */
export const DELIVERY_BUDGET_MS = 8_000;
