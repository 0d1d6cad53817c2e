import type { INodeProperties } from 'n8n-workflow';

import type { SimplifiedRecord } from '../../shared/simplifiedRecords';
import type { OperationModule } from '../helpers/operation';
import * as channel from './channel';
import * as contact from './contact';
import * as conversation from './conversation';
import * as identity from './identity';
import * as message from './message';
import * as report from './report';

export interface Resource {
	operations: Record<string, OperationModule>;
	description: INodeProperties[];
	/** The record its operations output, where Simplify applies (channels and identities are narrow). */
	simplifiedRecord?: SimplifiedRecord;
}

/** Every resource by its value: the node's panel and the router are built from this list. */
export const resources: Record<string, Resource> = { channel, contact, conversation, identity, message, report };

/** The Resource picker, then each resource's Operation picker and parameters. */
export const resourceProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Channel', value: 'channel' },
			{ name: 'Contact', value: 'contact' },
			{ name: 'Conversation', value: 'conversation' },
			{ name: 'Identity', value: 'identity' },
			{ name: 'Message', value: 'message' },
			{ name: 'Report', value: 'report' },
		],
		default: 'message',
	},
	...Object.values(resources).flatMap((resource) => resource.description),
];
