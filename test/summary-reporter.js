'use strict';
// Prints one plain closing line ("jest: N passed, N failed, N skipped") that CI
// reads as the run's summary, and keeps it in test-results/summary.txt so
// .ci/run can repeat it as the very last line of its output.
const fs = require('fs');
const path = require('path');

class SummaryReporter {
	onRunComplete(_contexts, results) {
		const skipped = results.numPendingTests + results.numTodoTests;
		const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
		const line = `jest: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`;
		process.stdout.write(`\n${line}\n`);
		const dir = path.join(__dirname, '..', 'test-results');
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'summary.txt'), `${line}\n`);
	}
}
module.exports = SummaryReporter;
