/** The chat-wait protocol between Send and Wait (answers in the chat) and the Omnichannel Trigger: carrier, replies, relay, supersede, workflow. */
export * from './carrier';
export * from './relay';
export * from './replies';
export * from './supersede';
export * from './workflow';
