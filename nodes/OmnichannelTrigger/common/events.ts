import { ALL_EVENTS } from '../../shared/chatWait';

export { ALL_EVENTS };

/** The subscription the node asks for: the chosen kinds plus the free-text ones, trimmed, without repeats, sorted (so two subscriptions compare by value), and just ["*"] when "*" is among them. */
export function normaliseEvents(selected: unknown, otherEvents: unknown): string[] {
	const chosen = Array.isArray(selected) ? selected.filter((name): name is string => typeof name === 'string') : [];
	const typed = typeof otherEvents === 'string' ? otherEvents.split(/[\s,]+/) : [];
	const names = new Set([...chosen, ...typed].map((name) => name.trim()).filter((name) => name !== ''));
	if (names.has(ALL_EVENTS)) return [ALL_EVENTS];
	return [...names].sort();
}

export function sameEvents(left: unknown, right: string[]): boolean {
	if (!Array.isArray(left)) return false;
	const normalisedLeft = normaliseEvents(left, '');
	return normalisedLeft.length === right.length && normalisedLeft.every((name, index) => name === right[index]);
}

export function isSubscribed(subscription: string[], eventType: string): boolean {
	return subscription.includes(ALL_EVENTS) || subscription.includes(eventType);
}
