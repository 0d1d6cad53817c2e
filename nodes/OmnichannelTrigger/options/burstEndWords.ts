/** Answer a Burst Once's End Words: a customer message that ends with one ends its burst at once. */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { CAP_OPTION_NAMES, normaliseEndWord } from '../common/burstCaps';
import type { TriggerOption } from './option';

const DISPLAY_NAME = 'Burst End Words';

const description: INodeProperties = {
	displayName: DISPLAY_NAME,
	name: CAP_OPTION_NAMES.endWords,
	type: 'string',
	default: '',
	placeholder: "e.g. thanks, that's all, ?",
	description:
		"With Answer a Burst Once: words, phrases or marks, separated by commas, that end a burst at once when a customer message ends with one ('burst.endedBy': endWord). Case, surrounding spaces and punctuation after a word are ignored; any script and emoji work. Empty or without this option: none.",
};

/** The End Words, compared as burstCaps.ts compares them, or undefined when the option is off or empty; throws for an empty word between commas, or without Answer a Burst Once. */
export function endWordsOf(node: INode, options: IDataObject, itemIndex?: number): string[] | undefined {
	const value = options[CAP_OPTION_NAMES.endWords];
	if (value === undefined || (typeof value === 'string' && value.trim() === '')) return undefined;
	const words = typeof value === 'string' ? value.split(',').map(normaliseEndWord) : [];
	let problem: string | undefined;
	if (typeof value !== 'string') problem = 'needs words separated by commas';
	else if (words.some((word) => word === '')) problem = 'has an empty word between its commas';
	else if (options.burstQuietSeconds === undefined) problem = "works with 'Answer a Burst Once': add that option too";
	if (problem) {
		throw new NodeOperationError(node, `'${DISPLAY_NAME}' ${problem}`, {
			itemIndex,
			description: `The option's value is ${JSON.stringify(value)}. Write words, phrases or marks separated by commas (for instance: thanks, that's all, ?), with 'Answer a Burst Once', or remove the option.`,
		});
	}
	return [...new Set(words)];
}

/** Read with Answer a Burst Once (burst.ts, common/burstCaps.ts); it has no effect of its own. */
export const burstEndWords: TriggerOption<string[]> = { description, read: endWordsOf };
