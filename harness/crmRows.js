'use strict';
// The rows of a CRM or spreadsheet sync into Contact > Create or Update, and
// the count of what they left in the workspace: the real-n8n tests, the
// queue-mode test and the `upsert` benchmark all use these, so that they
// measure the same thing.
//
// Person n of a batch is `Person <n> <tag>`, with an email and a phone of
// its own (the area code keeps batches of one sandbox apart). The repeated
// rows are the same people again in other writings, in turn:
//   - the email upper-cased with spaces around it, the company changed;
//   - no email, the phone written the national way: `(0<area>) …`;
//   - the email with a capital, the phone as `0049 <area> …`.
// The workflow matches by Email Then Phone with default country code 49.

const SPELLINGS = [
	(person) => ({ name: person.name, email: `  ${person.email.toUpperCase()} `, phone: person.phone, company: 'Updated' }),
	(person) => ({ name: person.name, phone: `(0${person.area}) ${person.local.slice(0, 3)} ${person.local.slice(3)}` }),
	(person) => ({ name: person.name, email: person.email[0].toUpperCase() + person.email.slice(1), phone: `0049 ${person.area} ${person.local}`, company: person.company }),
];

/** Person n of a batch. */
function person(n, { tag, area }) {
	const local = String(1_000_000 + n);
	return {
		name: `Person ${n} ${tag}`,
		email: `person-${n}.${tag}@example.com`,
		phone: `+49 ${area} ${local}`,
		company: 'Original',
		area,
		local,
	};
}

/**
 * `people` people (numbered from `from`), then `repeats` of them again in
 * other writings, spread through the batch (each repeat after its first
 * row). Rows carry only what a sheet would: name, email, phone, company.
 */
function crmRows({ people, repeats = 0, from = 0, tag, area = 30 }) {
	const firsts = Array.from({ length: people }, (_, index) => person(from + index, { tag, area }));
	// Repeat r is person (7 r mod people), a few rows after that person's first
	// row: close enough that both are in flight in the node at the same time.
	const after = new Map();
	for (let r = 0; r < repeats; r++) {
		const index = (r * 7) % people;
		const at = Math.min(people - 1, index + 1 + (r % 11));
		after.set(at, [...(after.get(at) ?? []), SPELLINGS[r % SPELLINGS.length](firsts[index])]);
	}
	return firsts.flatMap(({ name, email, phone, company }, index) => [{ name, email, phone, company }, ...(after.get(index) ?? [])]);
}

/** Parameters of the Create or Update node for these rows. */
const upsertParameters = (extra = {}) => ({
	resource: 'contact',
	operation: 'createOrUpdate',
	matchBy: 'emailThenPhone',
	email: '={{ $json.email ?? "" }}',
	phone: '={{ $json.phone ?? "" }}',
	name: '={{ $json.name ?? "" }}',
	additionalFields: { company: '={{ $json.company ?? "" }}' },
	options: { defaultCountryCode: '49' },
	...extra,
});

/**
 * The workspace's contacts of a batch, by person: how many people have a
 * contact, and how many contacts are one too many (duplicates).
 */
function countPeople(contacts, tag) {
	const perPerson = new Map();
	for (const contact of contacts) {
		const match = / (\d+) (\S+)$/.exec(contact.name ?? '');
		if (!match || match[2] !== tag) continue;
		perPerson.set(match[1], (perPerson.get(match[1]) ?? 0) + 1);
	}
	const counts = [...perPerson.values()];
	const contactsOfTag = counts.reduce((sum, count) => sum + count, 0);
	return { contacts: contactsOfTag, people: perPerson.size, duplicates: contactsOfTag - perPerson.size };
}

/**
 * n in letters (a, b, …, ba, …): the sandbox's search also compares the
 * digits of a search text with phone numbers, so a sync whose emails carried
 * digits would make each search find thousands of contacts in a large
 * workspace.
 */
const letters = (n) => [...n.toString(26)].map((digit) => String.fromCharCode(97 + parseInt(digit, 26))).join('');

/** A tag of letters only, for the emails of syncRows. */
const letterTag = (bytes) => [...bytes].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');

/** Person n of a nightly sync (syncRows): name `Person <n> <tag>`, an email without digits. */
const syncPerson = (n, tag) => ({ name: `Person ${n} ${tag}`, email: `person.${letters(n)}.${tag}@example.com`, phone: `+49 30 ${1_000_000 + n}`, company: 'Original' });

/**
 * A nightly CRM export synced into a workspace of `contacts` contacts (people
 * 0 to contacts - 1), `rows` rows long: 5% of the rows are new people (every
 * 19th first row), 5% are people of the export again with their email in
 * another writing (upper-cased with spaces around it, or capitalised), a few
 * rows after their first row, and 10% of the rows change a person's company
 * (every 9th person of the workspace met). The rest equal the workspace.
 * Returns the workspace's contacts, the rows, and what they are.
 */
function syncRows({ contacts, rows, tag }) {
	const fresh = Math.round(rows * 0.05);
	const repeats = Math.round(rows * 0.05);
	const firstRows = rows - repeats;
	const workspace = Array.from({ length: contacts }, (_, n) => {
		const { name, email, phone, company } = syncPerson(n, tag);
		return { name, email, phone, company };
	});
	let nextExisting = 0;
	let nextNew = contacts;
	let changed = 0;
	const firsts = Array.from({ length: firstRows }, (_, index) => {
		const isNew = index % Math.floor(firstRows / fresh) === Math.floor(firstRows / fresh) - 1 && nextNew < contacts + fresh;
		const n = isNew ? nextNew++ : nextExisting++;
		const change = !isNew && n % 9 === 4;
		if (change) changed++;
		const { name, email, phone } = syncPerson(n, tag);
		return { name, email, phone, company: change ? 'Changed' : 'Original' };
	});
	const after = new Map();
	for (let r = 0; r < repeats; r++) {
		const index = (r * Math.floor(firstRows / repeats) + (r % 19)) % firstRows;
		const first = firsts[index];
		const email = r % 2 ? `  ${first.email.toUpperCase()} ` : first.email[0].toUpperCase() + first.email.slice(1);
		const at = Math.min(firstRows - 1, index + 1 + (r % 11));
		after.set(at, [...(after.get(at) ?? []), { ...first, email }]);
	}
	return {
		workspace,
		rows: firsts.flatMap((row, index) => [row, ...(after.get(index) ?? [])]),
		counts: { rows, new: nextNew - contacts, changed, repeated: repeats, unchanged: rows - (nextNew - contacts) - changed },
	};
}

/**
 * Writings of one number that the matching rules take as the same (default
 * country calling code 49): a German landline, an Italian one (whose 0 stays
 * after the code) and a German mobile, each as a sheet or a form may write it.
 */
const WRITINGS = [
	(local) => [`+49 30 ${local}`, `0049 (0)30 ${local}`, `(030) ${local.slice(0, 3)} ${local.slice(3)}`, `(+49) 030/${local}`, `+49 (0)30-${local}`],
	(local) => [`+39 055 ${local}`, `0039 055 ${local}`, `(+39) 055/${local}`, `+39 (055) ${local.slice(0, 3)} ${local.slice(3)}`],
	(local) => [`0171 ${local}`, `+49 171 ${local}`, `0049 171 ${local}`, `(+49) 0171-${local}`],
];

/**
 * The people of two runs of one workflow that meet them at the same moment,
 * by the fields each run's rows carry: each shape gives `perShape` people,
 * and each person the rows of run A and of run B below. A person's rows in
 * the two runs agree on at least one field (directly, or through another row
 * of the same run), so the person is one contact, made by one row.
 */
const SHAPES = {
	'email only in both': (p, w) => [[{ name: p.name, email: p.email }], [{ name: p.name, email: `  ${p.email.toUpperCase()} ` }]],
	'phone only in both, other writings': (p, w) => [[{ name: p.name, phone: w[0] }], [{ name: p.name, phone: w[2] }]],
	'both fields in both, other writings': (p, w) => [[{ name: p.name, email: p.email, phone: w[1] }], [{ name: p.name, email: p.email.toUpperCase(), phone: w[3] }]],
	'phone only, then both (agree on the phone)': (p, w) => [[{ name: `${p.name} `, phone: w[3] }], [{ name: p.name, email: p.email.toUpperCase(), phone: w[1] }]],
	'email only, then both (agree on the email)': (p, w) => [[{ name: p.name, email: p.email }], [{ name: p.name, email: p.email, phone: w[0] }]],
	'both, with another phone (agree on the email)': (p, w, other) => [[{ name: p.name, email: p.email, phone: w[0] }], [{ name: p.name, email: p.email, phone: other }]],
	'phone only, then email only and both in one run': (p, w) => [[{ name: p.name, phone: w[2] }], [{ name: p.name, email: p.email }, { name: p.name, email: p.email, phone: w[0] }]],
	'phone only and both in one run, both in the other': (p, w) => [[{ name: p.name, phone: w[0] }, { name: p.name, email: p.email, phone: w[1] }], [{ name: p.name, email: p.email, phone: w[2] }]],
};

/**
 * Two runs' rows (`runs`: [rowsA, rowsB]) and their people (`people`: name
 * and shape). Person n is `Person <n> <tag>`; emails carry no digits (the
 * API's search compares a text's digits with phones), numbers come from
 * `area` (1 to 9) so that runs of one sandbox stay apart. The rows of a run
 * are spread: each person's second row comes a few rows after the first.
 */
function twoRunsOfPeople({ perShape = 3, tag, area = 1 }) {
	const people = [];
	const runs = [[], []];
	let n = 0;
	for (const [shape, rowsOf] of Object.entries(SHAPES)) {
		for (let i = 0; i < perShape; i++, n++) {
			const local = String(area * 1_000_000 + 1000 + n * 7);
			const other = String(area * 1_000_000 + 5000 + n * 7);
			const person = { name: `Person ${n} ${tag}`, email: `person.${letters(n)}.${tag}@example.com` };
			const writings = WRITINGS[n % WRITINGS.length];
			rowsOf(person, writings(local), writings(other)[0]).forEach((rows, run) => runs[run].push(rows));
			people.push({ name: person.name, shape });
		}
	}
	// Each person's rows in turn, the second rows a round later: other people's rows come between.
	const spread = (perPerson) => [...perPerson.map((rows) => rows[0]), ...perPerson.filter((rows) => rows.length > 1).map((rows) => rows[1])];
	return { people, runs: runs.map(spread) };
}

/**
 * Per shape of twoRunsOfPeople: its people, the contacts they have, and the
 * output rows that say `created` (both should equal the people).
 */
function countByShape(people, contacts, outputs) {
	const tally = (names) => names.reduce((counts, name) => counts.set(name, (counts.get(name) ?? 0) + 1), new Map());
	const created = tally(outputs.filter((json) => json._upsert?.action === 'created').map((json) => String(json.name).trim()));
	const stored = tally(contacts.map((contact) => String(contact.name).trim()));
	const byShape = {};
	for (const { name, shape } of people) {
		const counts = (byShape[shape] ??= { people: 0, contacts: 0, created: 0 });
		counts.people++;
		counts.contacts += stored.get(name) ?? 0;
		counts.created += created.get(name) ?? 0;
	}
	return byShape;
}

/**
 * The outputs whose `_upsert.matchedBy` breaks its definition
 * (docs/operations.md): `null` exactly for `created`, otherwise a field the
 * row itself carries (Email Then Phone). `rows[i]` is the row of
 * `outputs[i]`; each mistake is `{ row, email, phone, action, matchedBy }`.
 */
function matchedByMistakes(rows, outputs) {
	const has = (value) => typeof value === 'string' && value.trim() !== '';
	return outputs
		.map((json, index) => ({ row: index, email: has(rows[index].email), phone: has(rows[index].phone), action: json._upsert?.action, matchedBy: json._upsert?.matchedBy }))
		.filter(({ email, phone, action, matchedBy }) => (action === 'created' ? matchedBy !== null : !((matchedBy === 'email' && email) || (matchedBy === 'phone' && phone))));
}

module.exports = { crmRows, countPeople, upsertParameters, syncRows, syncPerson, letterTag, twoRunsOfPeople, countByShape, matchedByMistakes, SHAPES };
