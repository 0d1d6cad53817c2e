'use strict';
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test', '<rootDir>/sandbox'],
	testMatch: ['**/*.test.ts', '**/*.test.js'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }] },
	testTimeout: 60_000,
	// E2E suites start real n8n processes; one worker keeps a 2-core machine responsive.
	maxWorkers: 1,
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
