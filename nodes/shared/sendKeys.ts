/** The client_request_id prefixes of this package's own sends, each reserved here once: messageAuthors.ts tells the package's sends by them, and no two kinds of send can share one (docs/api-assumptions.md, "Messages"). */
/** A Send and Wait question: the key carries the wait (shared/chatWait). */
export const CARRIER_PREFIX = 'n8nwait1_';
/** A re-prompt: one per wait and reply, so a repeated relay sends it once. */
export const REPROMPT_PREFIX = 'n8nreprompt_';
/** A hand-over to a person: the key marks the conversation as handed over (shared/handOverToPerson). */
export const HAND_OVER_PREFIX = 'n8nhandover1_';
/** Every other send's default key (Omnichannel/helpers/idempotency.ts). */
export const SEND_KEY_PREFIX = 'n8n_';

export const OWN_SEND_PREFIXES: readonly string[] = [CARRIER_PREFIX, REPROMPT_PREFIX, HAND_OVER_PREFIX, SEND_KEY_PREFIX];

/** The key a send carries for a Client Request ID the user set: the same prefix as the default keys, so that every message this package sends is told apart from a person's (messageAuthors.ts), also when an AI agent or an upstream record id chose the key. */
export function ownSendKey(key: string): string {
	return key.startsWith(SEND_KEY_PREFIX) ? key : `${SEND_KEY_PREFIX}${key}`;
}
