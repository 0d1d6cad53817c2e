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

// BENCH_MEMORY_TRACE_DIR: where the RSS goes over time, every 50 ms (V8's heap,
// its external memory such as Buffers, the rest: code, stacks, malloc), as
// <dir>/<pid>.trace.json; to tell the report's own memory from n8n's.
const traceDir = process.env.BENCH_MEMORY_TRACE_DIR;
if (traceDir) {
	const samples = [];
	const timer = setInterval(() => {
		const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
		samples.push({ at: Date.now(), rss, heapTotal, heapUsed, external, arrayBuffers });
	}, 50);
	timer.unref();
	process.once('exit', () => {
		try {
			fs.writeFileSync(path.join(traceDir, `${process.pid}.trace.json`), JSON.stringify({ pid: process.pid, argv: process.argv.slice(1), samples }));
		} catch {
			// Measuring must never change how n8n exits.
		}
	});
}
