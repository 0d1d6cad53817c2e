import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../helpers/operation';

import * as get from './get.operation';

/** The resource's operations by their value: the router dispatches from here. */
export const operations: Record<string, OperationModule> = { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['identity'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Retrieve the workspace, mode and scopes of the API key in use',
				action: 'Get the API key identity',
			},
		],
		default: 'get',
	},
	...get.description,
];
