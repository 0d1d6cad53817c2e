/**
 * n8n's UX guidelines for nodes, checked on the built node's description (as
 * the editor receives it), including what eslint cannot see because it is
 * computed: the contact fields, the media options and the Simplify texts.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { nodeType } from '../support/host/action-node.cjs';

const { description } = nodeType;

/** Every parameter, including the options of collections, with where it sits. */
function allParameters(properties: INodeProperties[], path = ''): Array<{ path: string; parameter: INodeProperties }> {
	return properties.flatMap((parameter) => {
		const here = `${path}${parameter.name}`;
		const children = (parameter.options ?? []).filter((option): option is INodeProperties => 'type' in option);
		return [{ path: here, parameter }, ...allParameters(children, `${here}.`)];
	});
}

const parameters = allParameters(description.properties);
const operations = description.properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) => property.options as INodePropertyOptions[]);

/** Words n8n leaves in lower case in Title Case. */
const SMALL_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'from', 'in', 'of', 'on', 'or', 'the', 'to']);
const isTitleCase = (text: string) =>
	text.split(' ').every((word, index) => /^\(?[A-Z0-9]/.test(word) || (index > 0 && SMALL_WORDS.has(word)));

/** n8n: no final period for one sentence, a final period when there are several. */
function periodRuleBroken(text: string): boolean {
	const several = text.trim().split(/(?<=\.)\s+(?=[A-Z])/).length > 1;
	return several ? !text.endsWith('.') : text.endsWith('.');
}

test('display names are Title Case', () => {
	const names = [
		description.displayName,
		...parameters.map(({ parameter }) => parameter.displayName),
		...operations.map((option) => option.name),
		...parameters.flatMap(({ parameter }) =>
			parameter.type === 'options' ? (parameter.options as INodePropertyOptions[]).map((option) => option.name) : [],
		),
	];
	expect(names.filter((name) => !isTitleCase(name))).toEqual([]);
});

test('descriptions are sentence case, with a final period only when there are several sentences', () => {
	const texts = [
		...parameters.map(({ path, parameter }) => ({ path, text: parameter.description })),
		...operations.map((option) => ({ path: `operation ${option.value}`, text: option.description })),
	].filter((entry): entry is { path: string; text: string } => typeof entry.text === 'string');
	expect(texts.filter(({ text }) => !/^[A-Z]/.test(text)).map(({ path }) => path)).toEqual([]);
	expect(texts.filter(({ text }) => periodRuleBroken(text)).map(({ path }) => path)).toEqual([]);
});

test('booleans are described with "Whether ..."', () => {
	const booleans = parameters.filter(({ parameter }) => parameter.type === 'boolean');
	expect(booleans.length).toBeGreaterThan(0);
	expect(booleans.filter(({ parameter }) => !parameter.description?.startsWith('Whether ')).map(({ path }) => path)).toEqual([]);
});

test('every operation has a sentence-case action', () => {
	for (const option of operations) {
		expect(option.action).toMatch(/^[A-Z][a-z]+( [a-z]+| API| ID)*$/);
	}
});

test('resource locators default to "From List" and offer list search and By ID', () => {
	const locators = parameters.filter(({ parameter }) => parameter.type === 'resourceLocator');
	expect(locators.length).toBeGreaterThan(0);
	for (const { parameter } of locators) {
		expect(parameter.default).toEqual({ mode: 'list', value: '' });
		const [list, byId] = parameter.modes ?? [];
		expect(list).toMatchObject({ displayName: 'From List', name: 'list', typeOptions: { searchable: true } });
		expect(nodeType.methods?.listSearch?.[list.typeOptions?.searchListMethod as string]).toEqual(expect.any(Function));
		expect(byId).toMatchObject({ displayName: 'By ID', name: 'id', placeholder: expect.stringMatching(/^e\.g\. /) });
	}
});

test('placeholders of values start with "e.g."', () => {
	const valuePlaceholders = parameters.filter(
		({ parameter }) => parameter.placeholder !== undefined && !['collection', 'fixedCollection'].includes(parameter.type),
	);
	expect(valuePlaceholders.length).toBeGreaterThan(10);
	expect(valuePlaceholders.filter(({ parameter }) => !parameter.placeholder?.startsWith('e.g. ')).map(({ path }) => path)).toEqual([]);
});

test('Return All and Limit read as in n8n', () => {
	const returnAll = parameters.filter(({ parameter }) => parameter.name === 'returnAll');
	const limit = parameters.filter(({ parameter }) => parameter.name === 'limit');
	expect(returnAll.length).toBe(4);
	expect(limit.length).toBe(4);
	for (const { parameter } of returnAll) {
		expect(parameter).toMatchObject({ displayName: 'Return All', default: false, description: 'Whether to return all results or only up to a given limit' });
	}
	for (const { parameter } of limit) {
		expect(parameter).toMatchObject({ displayName: 'Limit', description: 'Max number of results to return', typeOptions: { minValue: 1 } });
	}
});

test('the send options show that Send As System wins over From User ID', () => {
	const fromUser = parameters.filter(({ parameter }) => parameter.name === 'fromUserId');
	expect(fromUser.length).toBe(7);
	for (const { parameter } of fromUser) {
		expect(parameter.displayOptions).toEqual({ hide: { sendAsSystem: [true] } });
		expect(parameter.description).toContain('Send As System wins over From User ID');
	}
});

test('the node has a subtitle, and its codex categories, documentation and aliases', () => {
	expect(description.subtitle).toBe('={{ $parameter["operation"] + ": " + $parameter["resource"] }}');
	expect(description.usableAsTool).toBe(true);
	const codexFile = join(__dirname, '..', '..', 'dist', 'nodes', 'Omnichannel', 'Omnichannel.node.json');
	const codex = JSON.parse(readFileSync(codexFile, 'utf8'));
	expect(codex).toMatchObject({
		node: 'n8n-nodes-omnichannel.omnichannel',
		categories: expect.arrayContaining(['Communication']),
		resources: { primaryDocumentation: [{ url: 'https://github.com/omnichannel/n8n-nodes-omnichannel/blob/HEAD/docs/operations.md' }] },
		alias: expect.arrayContaining(['WhatsApp', 'Telegram', 'Live Chat']),
	});
});

test('collections say what they add', () => {
	const collections = parameters.filter(({ parameter }) => parameter.type === 'collection');
	for (const { parameter } of collections) {
		expect(parameter.placeholder).toMatch(/^Add (Option|Filter|Field)$/);
		expect((parameter.options as Array<INodeProperties | INodePropertyCollection>).length).toBeGreaterThan(0);
	}
});
