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

module.exports = { crmRows, countPeople, upsertParameters };
