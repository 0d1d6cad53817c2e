import type { INodeProperties } from 'n8n-workflow';

import type { SimplifiedRecord } from '../../../shared/simplifiedRecords';
import type { OperationModule } from '../../helpers/operation';

import * as getAll from './getAll.operation';
import * as sendAndWait from './sendAndWait.operation';
import * as sendAudio from './sendAudio.operation';
import * as sendDocument from './sendDocument.operation';
import * as sendImage from './sendImage.operation';
import * as sendLocation from './sendLocation.operation';
import * as sendText from './sendText.operation';
import * as sendVideo from './sendVideo.operation';

/** The resource's operations by their value: the router dispatches from here. */
export const operations: Record<string, OperationModule> = { getAll, sendAndWait, sendAudio, sendDocument, sendImage, sendLocation, sendText, sendVideo };

/** The record every operation of this resource outputs, which Simplify narrows. */
export const simplifiedRecord: SimplifiedRecord = 'message';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['message'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Retrieve a list of messages, newest first',
				action: 'Get many messages',
			},
			{
				name: 'Send and Wait for Response',
				value: sendAndWait.SEND_AND_WAIT_OPERATION,
				description: 'Send a question with links to answer it, and wait for the answer',
				action: 'Send message and wait for response',
			},
			{
				name: 'Send Audio',
				value: 'sendAudio',
				description: 'Send an audio file from an input binary field into a conversation',
				action: 'Send an audio message',
			},
			{
				name: 'Send Document',
				value: 'sendDocument',
				description: 'Send a file of any type from an input binary field into a conversation',
				action: 'Send a document message',
			},
			{
				name: 'Send Image',
				value: 'sendImage',
				description: 'Send an image from an input binary field into a conversation',
				action: 'Send an image message',
			},
			{
				name: 'Send Location',
				value: 'sendLocation',
				description: 'Send a map location into a conversation',
				action: 'Send a location message',
			},
			{
				name: 'Send Text',
				value: 'sendText',
				description: 'Send a text message into a conversation',
				action: 'Send a text message',
			},
			{
				name: 'Send Video',
				value: 'sendVideo',
				description: 'Send a video from an input binary field into a conversation',
				action: 'Send a video message',
			},
		],
		default: 'sendText',
	},
	...getAll.description,
	...sendText.description,
	...sendImage.description,
	...sendAudio.description,
	...sendVideo.description,
	...sendDocument.description,
	...sendLocation.description,
	...sendAndWait.description,
];
