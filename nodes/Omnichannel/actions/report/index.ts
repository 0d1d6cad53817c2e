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
		displayOptions: { show: { resource: ['report'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: get.REPORT_DESCRIPTION,
				action: 'Get a support report',
			},
		],
		default: 'get',
	},
	...get.description,
];
