import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../helpers/operation';

import * as getAll from './getAll.operation';

/** The resource's operations by their value: the router dispatches from here. */
export const operations: Record<string, OperationModule> = { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['channel'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Retrieve a list of the channels connected to the workspace',
				action: 'Get many channels',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
