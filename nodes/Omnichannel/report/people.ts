/**
 * Group By Person: one item per person who wrote in the period (the
 * message's `from_user_id`), with Person Names mapping ids to names, since
 * the API lists no people (docs/api-assumptions.md, "Decisions where the API
 * is silent"). Definitions: docs/operations.md, "Reports".
 */
import type { IDataObject } from 'n8n-workflow';

import type { ItemValidator } from '../helpers/validation';
import type { ReportAggregator } from './aggregate';
import { isoInZone } from './calendar';
import { calendarName, clockOf } from './clockFields';
import { minutes, ratio } from './format';
import type { ReportPlan } from './plan';
import { nearestRank } from './state';

export const MAX_PERSON_NAME = 200;
const MAX_PERSON_ID = 200;
/** An id is opaque text without spaces or control characters (docs/api-assumptions.md, "Decisions where the API is silent"). */
const ID = /^[^\s\p{Cc}]+$/u;

const describe = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value);

/** Person Names: an object of id → name (or its JSON), checked before any request. */
export function personNamesOf(validator: ItemValidator, value: unknown): Map<string, string> {
	const field = 'Person Names';
	const fix = 'Enter a JSON object of person ids to names, e.g. {"usr_2LmQ8vX4kT0bR7nW5cZp": "Dana"}.';
	const names = new Map<string, string>();
	if (value === undefined || value === null || value === '') return names;
	let parsed: unknown = value;
	if (typeof value === 'string') {
		try {
			parsed = JSON.parse(value) as unknown;
		} catch {
			validator.fail(field, 'it is not JSON', fix, 'a JSON object of ids to names');
		}
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) validator.fail(field, `expected an object of ids to names, got ${describe(parsed)}`, fix, 'a JSON object of ids to names');
	for (const [id, name] of Object.entries(parsed as Record<string, unknown>)) {
		if (!ID.test(id) || id.length > MAX_PERSON_ID) validator.fail(field, `${describe(id)} is not a person id`, `${fix} An id has no spaces and at most ${MAX_PERSON_ID} characters.`, 'a JSON object of ids to names');
		if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_PERSON_NAME) {
			validator.fail(field, `the name of ${describe(id)} is ${describe(name)}, not text of 1 to ${MAX_PERSON_NAME} characters`, fix, 'a JSON object of ids to names');
		}
		names.set(id, name.trim());
	}
	return names;
}

const sortedOf = (values: number[]) => Float64Array.from(values).sort();

/** The names of a person's target figures: version 1.1 names them as the total's reply time figures. */
const targetNames = (plan: ReportPlan) =>
	plan.fieldDefinitions
		? { target: 'replyTargetMinutes', within: 'repliedWithinTarget', share: 'repliedWithinTargetShare' }
		: { target: 'targetMinutes', within: 'withinTarget', share: 'withinTargetShare' };

/** A person's reply and hand-over figures from their times (ms) by one clock, in the item's order. */
function personFigures(team: ReportAggregator['team'], plan: ReportPlan, responses: number[], toPerson: number[], withTarget: boolean): IDataObject {
	const names = targetNames(plan);
	const sorted = sortedOf(responses);
	const within = responses.filter((ms) => team.withinTarget(ms)).length;
	return {
		replyTimeMedianMinutes: minutes(nearestRank(sorted, 0.5)),
		replyTimeP90Minutes: minutes(nearestRank(sorted, 0.9)),
		...(withTarget ? { [names.target]: plan.targetMinutes } : {}),
		[names.within]: within,
		[names.share]: ratio(within, responses.length, 4),
		handOverMedianMinutesToPerson: minutes(nearestRank(sortedOf(toPerson), 0.5)),
	};
}

const calendarNamed = (figures: IDataObject): IDataObject => Object.fromEntries(Object.entries(figures).map(([field, value]) => [calendarName(field), value]));

/** The person items, most replies first (ties: by id); durations by the report's clock (`clock`), with Business Hours the calendar's beside them. */
export function personItems(aggregator: ReportAggregator, plan: ReportPlan): IDataObject[] {
	const { team } = aggregator;
	const period = { periodStart: isoInZone(plan.startMs, plan.timeZone), periodEnd: isoInZone(plan.endMs, plan.timeZone), timeZone: plan.timeZone, clock: clockOf(plan) };
	return [...team.people.entries()]
		.sort(([a, first], [b, second]) => second.replies - first.replies || (a < b ? -1 : a > b ? 1 : 0))
		.map(([id, person]) => {
			const { handOverMedianMinutesToPerson, ...replies } = personFigures(team, plan, person.responses, person.toPerson, true);
			return {
				scope: 'person',
				personId: id,
				personName: plan.personNames.get(id) ?? null,
				...period,
				replies: person.replies,
				failedReplies: person.failedReplies,
				waitsAnswered: person.responses.length,
				...replies,
				handOversTaken: person.handOversTaken,
				handOverMedianMinutesToPerson,
				...(plan.businessHours ? calendarNamed(personFigures(team, plan, person.calendarResponses, person.calendarToPerson, false)) : {}),
			};
		});
}
