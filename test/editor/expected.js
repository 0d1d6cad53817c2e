'use strict';
// What the editor should show, read from the built node descriptions with
// n8n-workflow's own display rules, so the browser test checks that what the
// nodes declare is what a user sees, without repeating their copy here.
const path = require('path');
const { NodeHelpers } = require('n8n-workflow');

const { assertBuilt, REPO_ROOT } = require('../../harness/package');

function builtDescription(folder) {
	assertBuilt();
	const file = path.join(REPO_ROOT, 'dist', 'nodes', folder, `${folder}.node.js`);
	return new (require(file)[folder])().description;
}

const action = () => builtDescription('Omnichannel');
const trigger = () => builtDescription('OmnichannelTrigger');

/** Display names of the parameters shown for these values, in order (defaults filled in). */
function shownParameterLabels(description, values) {
	const withDefaults = NodeHelpers.getNodeParameters(description.properties, values, true, false, null, description);
	return description.properties
		.filter((property) => NodeHelpers.displayParameter(withDefaults, property, null, description))
		.map((property) => property.displayName);
}

function optionNames(description, parameterName, shownFor = {}) {
	const parameter = description.properties.find(
		(property) =>
			property.name === parameterName &&
			Object.entries(shownFor).every(([key, value]) => property.displayOptions?.show?.[key]?.includes(value)),
	);
	if (!parameter) throw new Error(`no parameter ${parameterName} shown for ${JSON.stringify(shownFor)}`);
	return parameter.options.map((option) => option.name);
}

/** The action names of every operation: what the node creator lists under Actions. */
function actionNames(description) {
	return description.properties
		.filter((property) => property.name === 'operation')
		.flatMap((property) => property.options.map((option) => option.action));
}

module.exports = { action, trigger, shownParameterLabels, optionNames, actionNames };
