import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import type { OperationExecute } from '../../helpers/operation';

/** whoAmI takes no parameters. */
export const description: INodeProperties[] = [];

export const execute: OperationExecute = async function (itemIndex, run) {
	return async () => (await apiRequest.call(this, 'GET', '/me', { itemIndex, ...run.throttle })) as IDataObject;
};
