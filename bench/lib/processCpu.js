'use strict';
// CPU time a process has used (user + system, all its threads), from
// /proc/<pid>/stat. On a shared 2-core machine, CPU per delivery stays
// comparable between runs when wall-clock rates do not.
const fs = require('fs');

/** Clock ticks per second of /proc/<pid>/stat on Linux (USER_HZ). */
const TICKS_PER_SECOND = 100;

function cpuSeconds(pid) {
	const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
	// Fields after the command name, which is in parentheses and may hold spaces.
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	const [utime, stime] = [Number(fields[11]), Number(fields[12])];
	return (utime + stime) / TICKS_PER_SECOND;
}

/** CPU seconds of a process and of its children now alive (PostgreSQL's backends, n8n's task runner). */
function treeCpuSeconds(pid) {
	let total = cpuSeconds(pid);
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			if (Number(fields[1]) === pid) total += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
		} catch {
			// Gone meanwhile.
		}
	}
	return total;
}

module.exports = { cpuSeconds, treeCpuSeconds };
