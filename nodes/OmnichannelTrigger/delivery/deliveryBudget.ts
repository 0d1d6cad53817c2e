/** Every call of a delivery ends by then, within the sender's 10 s (docs/development/trigger-internals.md, "One deadline per delivery"). */
export const DELIVERY_BUDGET_MS = 8_000;
