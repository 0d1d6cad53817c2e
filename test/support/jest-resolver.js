'use strict';
// The TypeScript tests and their support are .cts files (CommonJS TypeScript,
// out of reach of n8n's lint template, which lints **/*.ts as node code).
// TypeScript resolves their imports when written with the compiled extension,
// `./file.cjs`; this points Jest at the `./file.cts` source instead.
const fs = require('fs');
const path = require('path');

module.exports = (request, options) => {
	if (/^\.{1,2}\/.*\.cjs$/.test(request)) {
		const source = path.resolve(options.basedir, request.replace(/\.cjs$/, '.cts'));
		if (fs.existsSync(source)) return source;
	}
	return options.defaultResolver(request, options);
};
