'use strict';
// Names n8n gives our package's types once installed as a community package.
const fs = require('fs');
const path = require('path');

const { REPO_ROOT } = require('./package');

const PACKAGE_NAME = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).name;

/** `<package name>.<node description name>` */
const NODE_TYPES = Object.freeze({
	action: `${PACKAGE_NAME}.omnichannel`,
	trigger: `${PACKAGE_NAME}.omnichannelTrigger`,
	memory: `${PACKAGE_NAME}.omnichannelChatMemory`,
});

const CREDENTIAL_TYPE = 'omnichannelApi';

/** An import:credentials entry for our credential type (`data` is encrypted by n8n on import). */
function omnichannelCredential({ id, name = 'Omnichannel account', baseUrl, apiKey }) {
	return { id, name, type: CREDENTIAL_TYPE, data: { baseUrl, apiKey } };
}

module.exports = { PACKAGE_NAME, NODE_TYPES, CREDENTIAL_TYPE, omnichannelCredential };
