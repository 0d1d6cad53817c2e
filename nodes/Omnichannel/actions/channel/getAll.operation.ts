import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listCall } from '../../helpers/list';
import { returnAllOrLimit } from '../../helpers/descriptions';
import type { OperationExecute } from '../../helpers/operation';

export const description = updateDisplayOptions(
	{ show: { resource: ['channel'], operation: ['getAll'] } },
	returnAllOrLimit as INodeProperties[],
);

export const execute: OperationExecute = async function (itemIndex, run) {
	return listCall(this, itemIndex, run, '/channels', {});
};
