'use strict';
// Scenario `sandbox`: how fast the sandbox seeds and serves 100,000 contacts
// (the goal: seeding under 10 s, pages in a few ms). Its conformance tests
// check what the sandbox answers; this measures how fast, against peers
// measured in the same run:
//   - seeding 100,000 contacts (POST /bulk) against ten times the time of
//     seeding 10,000 in another sandbox (1.00 = the cost grows linearly);
//   - each page request against a bare node:http server answering the very
//     same bytes (bench/lib/staticPageServer.js), one request of each in turn
//     so that both see the same machine load.
// Both servers run in processes of their own; this process is only the client.
// No n8n: a run takes about 5 s.
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');

const { startSandboxProcess } = require('../../sandbox/process');
const { summarise } = require('../lib/summary');

const CONTACTS = 100_000;
const SMALL_SEED = 10_000;
const REQUESTS_PER_PAGE = 40;
const PAGES = [
	'/contacts?per_page=500&page=1',
	'/contacts?per_page=500&page=100',
	'/contacts?per_page=500&page=200',
	'/contacts?per_page=500&search=emma',
	'/contacts?per_page=500&lead_status=won',
];

const elapsedMs = (started) => Number(process.hrtime.bigint() - started) / 1e6;

/** Milliseconds of one POST /bulk of `contacts` into a fresh, empty sandbox. */
async function timeSeeding(contacts) {
	const sandbox = await startSandboxProcess(['--seed', 'empty']);
	try {
		const started = process.hrtime.bigint();
		// The client throws on any answer but 2xx.
		const seeded = await sandbox.client.control('POST', '/bulk', { contacts });
		const ms = elapsedMs(started);
		if (seeded.contacts !== contacts) throw new Error(`POST /bulk seeded ${seeded.contacts}, not ${contacts}`);
		return ms;
	} finally {
		await sandbox.close();
	}
}

async function fetchText(url, headers) {
	const res = await fetch(url, { headers });
	const text = await res.text();
	if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
	return text;
}

async function startStaticServer(bodies) {
	const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sandbox-')), 'bodies.json');
	fs.writeFileSync(file, JSON.stringify(bodies));
	const child = spawn(process.execPath, [path.join(__dirname, '..', 'lib', 'staticPageServer.js'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
	const line = await new Promise((resolve, reject) => {
		child.once('exit', (code) => reject(new Error(`static server exited (code ${code})`)));
		readline.createInterface({ input: child.stdout }).once('line', resolve);
	});
	return {
		url: JSON.parse(line).url,
		close() {
			child.kill('SIGKILL');
			fs.rmSync(path.dirname(file), { recursive: true, force: true });
		},
	};
}

/** One run: median ms per page for the sandbox and its peer, plus seeding. */
async function oneRun() {
	const result = { seed_small_ms: await timeSeeding(SMALL_SEED), seed_ms: await timeSeeding(CONTACTS) };
	result.seed_linearity = result.seed_ms / (result.seed_small_ms * (CONTACTS / SMALL_SEED));

	const sandbox = await startSandboxProcess(['--seed', 'empty', '--contacts', String(CONTACTS)]);
	const auth = { authorization: `Bearer ${sandbox.key}` };
	let peer;
	try {
		await sandbox.client.control('PUT', '/faults', { rate_limit_per_second: 0 });
		const bodies = {};
		for (const page of PAGES) bodies[page] = await fetchText(sandbox.base_url + page, auth);
		peer = await startStaticServer(bodies);
		for (const [index, page] of PAGES.entries()) {
			const ours = [];
			const theirs = [];
			for (let i = 0; i < REQUESTS_PER_PAGE; i++) {
				let started = process.hrtime.bigint();
				await fetchText(sandbox.base_url + page, auth);
				ours.push(elapsedMs(started));
				started = process.hrtime.bigint();
				await fetchText(peer.url + page, auth);
				theirs.push(elapsedMs(started));
			}
			result[`page${index}_ms`] = summarise(ours).median;
			result[`page${index}_peer_ms`] = summarise(theirs).median;
			result[`page${index}_ratio`] = result[`page${index}_ms`] / result[`page${index}_peer_ms`];
		}
	} finally {
		peer?.close();
		await sandbox.close();
	}
	return result;
}

const fmt = (summary, digits = 1) => `${summary.median.toFixed(digits)} (${summary.min.toFixed(digits)}–${summary.max.toFixed(digits)})`;

function markdown(summary, runs) {
	const rows = [
		`| Seeding ${CONTACTS.toLocaleString('en')} contacts (POST /bulk) | ${fmt(summary.seed_ms, 0)} ms | 10 × seeding ${SMALL_SEED.toLocaleString('en')}: ${fmt({ median: summary.seed_small_ms.median * 10, min: summary.seed_small_ms.min * 10, max: summary.seed_small_ms.max * 10 }, 0)} ms | ${fmt(summary.seed_linearity, 2)} |`,
		...PAGES.map((page, index) => `| GET ${page} (of ${CONTACTS.toLocaleString('en')}) | ${fmt(summary[`page${index}_ms`], 2)} ms | same bytes from bare node:http: ${fmt(summary[`page${index}_peer_ms`], 2)} ms | ${fmt(summary[`page${index}_ratio`], 2)} |`),
	];
	return [
		`# Sandbox speed (\`npm run bench:sandbox\`)`,
		'',
		`${runs} runs, median (min–max); page times are the median of ${REQUESTS_PER_PAGE} sequential requests over loopback, client in its own process. Measured ${new Date().toISOString()} on ${os.cpus().length} × ${os.cpus()[0]?.model?.trim()}.`,
		'',
		'| What | Sandbox | Peer (same run) | Ratio |',
		'|---|---|---|---|',
		...rows,
		'',
	].join('\n');
}

/** @param {{ runs: number, log: (message: string) => void }} options */
async function run({ runs, log }) {
	const results = [];
	for (let index = 1; index <= runs; index++) {
		log(`run ${index}/${runs}`);
		results.push(await oneRun());
	}
	const keys = Object.keys(results[0]);
	const summary = Object.fromEntries(keys.map((key) => [key, summarise(results.map((result) => result[key]))]));
	return { json: { measured_at: new Date().toISOString(), runs: results, summary }, markdown: markdown(summary, runs) };
}

module.exports = { run };
