/** Omnichannel Chat Memory: the AI Agent's memory is the conversation at the service, read through the package's one reader (one request per agent run, none after the trigger's read). */
import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, INodeType, INodeTypeDescription, ISupplyDataFunctions, SupplyData } from 'n8n-workflow';

import { readRecentMessages } from '../shared/conversation';
import { searchConversations } from '../shared/listSearch';
import { conversationMemory, loadSdk } from './memory';
import { memoryConfigOf, memoryProperties } from './parameters';
import { currentMessagesOfItem } from '../shared/triggerItem';
import { historyTurns } from './turns';

export class OmnichannelChatMemory implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Omnichannel Chat Memory',
		name: 'omnichannelChatMemory',
		icon: { light: 'file:../../icons/omnichannel.svg', dark: 'file:../../icons/omnichannel.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ "Latest " + $parameter["contextWindowLength"] + " messages" }}',
		description: "Give an AI Agent the conversation's latest messages as its memory, read from the service: nothing stored in n8n",
		defaults: { name: 'Omnichannel Chat Memory' },
		inputs: [],
		outputs: [NodeConnectionTypes.AiMemory],
		outputNames: ['Memory'],
		credentials: [{ name: 'omnichannelApi', required: true }],
		properties: memoryProperties,
	};

	methods = { listSearch: { searchConversations } };

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const items = this.getInputData(0, NodeConnectionTypes.Main);
		const item = (items[itemIndex] ?? items[0])?.json as IDataObject | undefined;
		const config = memoryConfigOf(this, itemIndex, item);
		const sdk = await loadSdk(this.getNode());
		const current = item ? currentMessagesOfItem(item) : [];
		const readTurns = async () =>
			historyTurns(await readRecentMessages(this, config.conversationId, { itemIndex, keepForExecution: true }), { ...config, current });
		return sdk.supplyMemory(this, conversationMemory(sdk, readTurns, config.windowLength));
	}
}
