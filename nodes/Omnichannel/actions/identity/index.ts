import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';

export { get };

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
