'use strict';
// Where every scenario's results go: bench/results/<scenario>.json (every
// run's numbers) and bench/results/<scenario>.md (the table the docs show).
// One file pair per scenario, so `--only <scenario>` refreshes that one and
// leaves the others as they were.
const fs = require('fs');
const path = require('path');

const RESULTS_DIR = path.join(__dirname, '..', 'results');

/** @param {string} scenario @param {{ json: object, markdown: string }} result @returns {{ json: string, markdown: string }} the files written */
function writeResults(scenario, { json, markdown }) {
	fs.mkdirSync(RESULTS_DIR, { recursive: true });
	const files = { json: path.join(RESULTS_DIR, `${scenario}.json`), markdown: path.join(RESULTS_DIR, `${scenario}.md`) };
	fs.writeFileSync(files.json, `${JSON.stringify(json, null, 2)}\n`);
	fs.writeFileSync(files.markdown, markdown);
	return files;
}

module.exports = { writeResults, RESULTS_DIR };
