import type { INodeProperties } from 'n8n-workflow';

import type { SimplifiedRecord } from '../../../shared/simplifiedRecords';
import type { OperationModule } from '../../helpers/operation';

import * as create from './create.operation';
import * as createOrUpdate from './createOrUpdate.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as merge from './merge.operation';
import * as update from './update.operation';

/** The resource's operations by their value: the router dispatches from here. */
export const operations: Record<string, OperationModule> = { create, createOrUpdate, get, getAll, merge, update };

/** The record every operation of this resource outputs, which Simplify narrows. */
export const simplifiedRecord: SimplifiedRecord = 'contact';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contact'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a new contact (customer) in the workspace',
				action: 'Create a contact',
			},
			{
				name: 'Create or Update',
				value: 'createOrUpdate',
				description: 'Create a new contact, or update the one with the same email or phone',
				action: 'Create or update a contact',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Retrieve a contact by its ID',
				action: 'Get a contact',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Retrieve a list of contacts, searched or filtered by lead status',
				action: 'Get many contacts',
			},
			{
				name: 'Merge',
				value: 'merge',
				description: 'Merge a secondary contact into a primary one, then delete the secondary',
				action: 'Merge two contacts',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Update one or more fields of a contact',
				action: 'Update a contact',
			},
		],
		default: 'create',
	},
	...create.description,
	...createOrUpdate.description,
	...get.description,
	...getAll.description,
	...update.description,
	...merge.description,
];
