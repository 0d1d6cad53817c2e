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

module.exports = { crmRows, countPeople, upsertParameters, syncRows, syncPerson, letterTag };
