'use strict';
// Loaded into `n8n execute` with NODE_OPTIONS=--require. On exit it writes the
// process's peak resident set size (getrusage ru_maxrss, the kernel's VmHWM)
// to <BENCH_PEAK_RSS_DIR>/<pid>.json. Sampling /proc from outside would miss
// the last moments, and those are when n8n serialises the whole run data.
const fs = require('fs');
const path = require('path');

const dir = process.env.BENCH_PEAK_RSS_DIR;
if (dir) {
	process.once('exit', () => {
		try {
			const file = path.join(dir, `${process.pid}.json`);
			fs.writeFileSync(file, JSON.stringify({ pid: process.pid, maxRssKb: process.resourceUsage().maxRSS }));
		} catch {
			// Measuring must never change how n8n exits.
		}
	});
}
