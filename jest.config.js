'use strict';
// Two projects, as n8n lays out its own tests: `unit`, the in-process files
// (*.test.cts / *.test.js), run in parallel; `e2e`, the files against real
// n8n (*.n8n.test.js), one at a time, sharing the run's packed package, n8n
// and queue-mode cluster (test/support/n8n/shared.js). `npm test` runs them
// one after the other (scripts/test.js); `npx jest <file>` runs either kind.
// ts-jest only transpiles (test/tsconfig.jest.json: isolatedModules): the type
// check of the tests and sources is lint's (`tsc -p test/tsconfig.json`), and
// doing it again in every jest worker cost the unit run about a fifth of its CPU.
const common = {
	testEnvironment: 'node',
	moduleFileExtensions: ['js', 'cts', 'ts', 'json', 'node'],
	resolver: '<rootDir>/test/support/jest-resolver.js',
	transform: { '^.+\\.c?ts$': ['ts-jest', { tsconfig: 'test/tsconfig.jest.json' }] },
};

/** @type {import('jest').Config} */
module.exports = {
	testTimeout: 60_000,
	// Real n8n processes: one file at a time keeps a 2-core machine responsive (scripts/test.js runs unit files 4 at once).
	maxWorkers: 1,
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
	projects: [
		{
			...common,
			displayName: 'unit',
			roots: ['<rootDir>/test', '<rootDir>/sandbox'],
			testMatch: ['**/*.test.cts', '**/*.test.js'],
			testPathIgnorePatterns: ['/node_modules/', '\\.n8n\\.test\\.js$'],
		},
		{
			...common,
			displayName: 'e2e',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.n8n.test.js'],
			globalSetup: '<rootDir>/test/support/n8n/global-setup.js',
			globalTeardown: '<rootDir>/test/support/n8n/global-teardown.js',
		},
	],
};
