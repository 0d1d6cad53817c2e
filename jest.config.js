'use strict';
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test', '<rootDir>/sandbox'],
	// In-process tests are *.test.cts / *.test.js, the ones against real n8n *.n8n.test.js.
	testMatch: ['**/*.test.cts', '**/*.test.js'],
	moduleFileExtensions: ['js', 'cts', 'ts', 'json', 'node'],
	resolver: '<rootDir>/test/support/jest-resolver.js',
	transform: { '^.+\\.c?ts$': ['ts-jest', { tsconfig: 'test/tsconfig.json', diagnostics: { warnOnly: false } }] },
	testTimeout: 60_000,
	// E2E suites start real n8n processes; one worker keeps a 2-core machine responsive.
	maxWorkers: 1,
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
