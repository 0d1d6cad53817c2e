/** The agent's memory on n8n's AI node SDK, loaded only when the agent asks: an n8n without the SDK would otherwise drop every node of the package. */
import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';
import type * as AiNodeSdk from '@n8n/ai-node-sdk';

import type { Turn } from './turns';

type Sdk = typeof AiNodeSdk;

export const SDK_MISSING = 'Omnichannel Chat Memory needs n8n 2.40 or newer (its AI node SDK)';

/** The SDK this n8n provides (a peer dependency n8n resolves for community packages), or an error saying why not. */
export async function loadSdk(node: INode): Promise<Sdk> {
	let sdk: Partial<Sdk>;
	try {
		sdk = await import('@n8n/ai-node-sdk');
	} catch (error) {
		throw new NodeOperationError(node, SDK_MISSING, {
			description: `This n8n does not provide @n8n/ai-node-sdk (${(error as Error).message.split('\n')[0]}). The package's other nodes work on it; update n8n to use the memory.`,
		});
	}
	if (typeof sdk.supplyMemory !== 'function' || typeof sdk.WindowedChatMemory !== 'function' || typeof sdk.BaseChatHistory !== 'function') {
		throw new NodeOperationError(node, SDK_MISSING, {
			description: "This n8n's @n8n/ai-node-sdk lacks supplyMemory, WindowedChatMemory or BaseChatHistory. Update n8n to use the memory.",
		});
	}
	return sdk as Sdk;
}

const messageOf = (turn: Turn): AiNodeSdk.Message => ({ role: turn.role, content: [{ type: 'text', text: turn.text }] });

/** The conversation as the SDK's chat memory; `readTurns` runs once per memory, though the agent asks for the history several times per run. */
export function conversationMemory(sdk: Sdk, readTurns: () => Promise<Turn[]>, windowLength: number): AiNodeSdk.ChatMemory {
	class ConversationHistory extends sdk.BaseChatHistory {
		private messages?: Promise<AiNodeSdk.Message[]>;

		async getMessages(): Promise<AiNodeSdk.Message[]> {
			this.messages ??= readTurns().then((turns) => turns.map(messageOf));
			return await this.messages;
		}

		async addMessage(): Promise<void> {
			// Nothing is stored in n8n: the agent's answer joins the history when it is sent into the conversation.
		}

		async clear(): Promise<void> {
			// The conversation at the service is the history; n8n does not delete it.
		}
	}
	// The SDK's window counts pairs of turns; the history already holds at most windowLength turns.
	return new sdk.WindowedChatMemory(new ConversationHistory(), { windowSize: Math.ceil(windowLength / 2) });
}
