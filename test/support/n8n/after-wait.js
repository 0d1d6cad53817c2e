'use strict';
// The node after a Send and Wait in the real-n8n workflows of its tests: it
// sends "after <its input as JSON>" into the conversation, so a test reads
// what the wait output from the conversation itself.
const { workflows: w } = require('../../../harness');

/** The prefix of what the node after the wait sends. */
const AFTER = 'after ';

/** The node "After": Send Text of its input, as JSON, into the conversation of the wait's output. */
function afterNode(credential) {
	return w.omnichannelNode('After', credential, {
		resource: 'message',
		operation: 'sendText',
		conversationId: w.byId('={{ $json.conversationId }}'),
		text: `={{ '${AFTER}' + JSON.stringify($json) }}`,
	});
}

/** The outputs of the wait that reached "After", parsed, from a conversation's messages. */
function afterOutputsIn(messages) {
	return messages.filter((m) => m.content.startsWith(AFTER)).map((m) => JSON.parse(m.content.slice(AFTER.length)));
}

module.exports = { AFTER, afterNode, afterOutputsIn };
