import type { INodeProperties } from 'n8n-workflow';

import type { SimplifiedRecord } from '../../../shared/simplifiedRecords';
import type { OperationModule } from '../../helpers/operation';

import * as getAll from './getAll.operation';
import * as handOver from './handOver.operation';

/** The resource's operations by their value: the router dispatches from here. */
export const operations: Record<string, OperationModule> = { getAll, handOver };

/** The record every operation of this resource outputs, which Simplify narrows. */
export const simplifiedRecord: SimplifiedRecord = 'conversation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['conversation'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Retrieve a list of conversations, most recently active first',
				action: 'Get many conversations',
			},
			{
				name: 'Hand Over to a Person',
				value: 'handOver',
				description: handOver.HAND_OVER_DESCRIPTION,
				action: 'Hand over a conversation to a person',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...handOver.description,
];
