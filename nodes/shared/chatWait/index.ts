/**
 * The chat-wait protocol between Send and Wait (answers in the chat) and
 * the Omnichannel Trigger, as n8n's utils/sendAndWait serves its nodes: the
 * sealed wait in the question (carrier.ts), which replies count (replies.ts),
 * the signed relay and its typed answer (relay.ts, n8n's own answers in
 * n8nAnswers.ts), a newer question ending older waits (supersede.ts), and
 * what each node reads of the other's parameters (workflow.ts).
 */
export * from './carrier';
export * from './relay';
export * from './replies';
export * from './supersede';
export * from './workflow';
