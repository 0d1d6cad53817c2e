'use strict';
// tsc compiles only TypeScript: the icons and the codex .node.json files are
// copied next to the compiled JavaScript here.
const { src, dest } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}', 'icons/*.svg'], { base: '.', encoding: false }).pipe(
		dest('dist'),
	);
}

exports['build:icons'] = copyAssets;
