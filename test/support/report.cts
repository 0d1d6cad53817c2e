/**
 * The report suites' typed view of their JavaScript support (report-world.js:
 * the known day and random workspaces; report-reference.js: the reference
 * written from the docs' definitions) and of the sandbox's client, declared
 * once for every report test file.
 */
import type { Json } from './sandbox.cjs';

/** The known day (report-world.js `knownDay`): every figure written down by hand. */
export interface KnownDay {
	key: string;
	timeZone: string;
	startMs: number;
	endMs: number;
	utcMidnight: number;
	period: { after: string; before: string };
	expected: {
		channels: Record<string, Json>;
		total: Json;
		waiting: Array<{ conversationId: string; channelId: string; minutesWaited: number; sinceMs: number }>;
		channelIds: Record<string, string>;
		inactive: string;
	};
}

export interface Random {
	next: () => number;
	int: (min: number, max: number) => number;
	pick: <T>(list: T[]) => T;
	chance: (p: number) => boolean;
}

type ReportOf = (period: Json) => Json;

export const world = require('./report-world') as {
	knownDay: (sandbox: unknown, options?: { timeZone?: string; daysAgo?: number }) => Promise<KnownDay>;
	randomWorkspace: (sandbox: unknown, options: { seed: number; startMs: number; endMs: number; conversations?: number }) => Promise<{ key: string; channels: Json[] }>;
	localMidnight: (date: string, timeZone: string) => number;
	localDays: (date: string, days: number, timeZone: string) => { startMs: number; endMs: number; endDate: string };
	randomDays: (random: unknown, options: { zones: string[]; fixed: string[]; fixedChance: number }) => { timeZone: string; days: number; date: string; startMs: number; endMs: number; endDate: string };
	localDate: (daysAgo: number, timeZone: string, now?: number) => string;
	prng: (seed: number) => Random;
};

export const reference = require('./report-reference') as {
	referenceReport: (workspace: Json, period: Json) => Json;
	referenceReportWithClock: (workspace: Json, period: Json) => Json;
	referenceReportV11: (workspace: Json, period: Json) => Json;
	referenceBusinessClock: (schedule: string, closedDates: string, timeZone: string) => (from: number, to: number) => number;
	referenceComparison: (reportOf: ReportOf, period: Json, previous: { kind: string; start: number; end: number }) => Json;
	withBotShare: (workspace: Json, reportOf: ReportOf) => ReportOf;
	compareWithReference: (items: Json[], expected: Json, groupBy?: string) => Json[];
	compareTeamWithReference: (items: Json[], workspace: Json, period: Json) => Json[];
};

export const { sandboxClient } = require('../../sandbox/client') as { sandboxClient: (sandbox: unknown, key?: string) => { listAll: (path: string) => Promise<Json[]> } };
