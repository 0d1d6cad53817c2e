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

module.exports = { cpuSeconds };
