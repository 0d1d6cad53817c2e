'use strict';
// Every wait in the harness goes through here, so no loop can spin forever:
// each one has a deadline and says what it was waiting for when it gives up.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `check` until it returns a value other than undefined/false, or the
 * deadline passes. Errors thrown by `check` count as "not yet" and the last
 * one is reported on timeout.
 */
async function waitFor(check, { what, timeoutMs, intervalMs = 250 }) {
	const deadline = Date.now() + timeoutMs;
	let lastError;
	for (;;) {
		try {
			const value = await check();
			if (value !== undefined && value !== false) return value;
		} catch (error) {
			lastError = error;
		}
		if (Date.now() >= deadline) {
			const cause = lastError ? ` (last error: ${lastError.message})` : '';
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
		}
		await sleep(intervalMs);
	}
}

module.exports = { sleep, waitFor };
