'use strict';
// The fast loop of `npm run dev`: every change under nodes/ or credentials/
// rebuilds the package (tsc, keeping its program between builds: compiler.js;
// then the icons and codex files that gulp copies) and copies the files of
// dist/ that changed into the package n8n has installed. n8n, started in
// development mode with N8N_DEV_RELOAD=true, watches that folder and reloads
// the nodes, and the editor picks up their new descriptions.
const fs = require('fs');
const path = require('path');

const { startCompiler } = require('./compiler');

const REPO_ROOT = path.join(__dirname, '..', '..');
const WATCHED = ['nodes', 'credentials'];
/** Editors write a file in several steps; one rebuild for all of them. */
const SETTLE_MS = 150;

async function copyAssets() {
	const { 'build:icons': copy } = require(path.join(REPO_ROOT, 'gulpfile.js'));
	await new Promise((resolve, reject) => copy().on('finish', resolve).on('error', reject));
}

/**
 * Copies the files of `from` whose content differs from their copy under `to`;
 * returns how many. n8n reloads the nodes on any write into its package, and
 * while it reloads it rewrites the node list it serves the editor
 * (/types/nodes.json), which then answers empty or cut off: a build that
 * changed nothing must write nothing there.
 */
function copyChanged(from, to) {
	let copied = 0;
	for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
		const source = path.join(from, entry.name);
		const target = path.join(to, entry.name);
		if (entry.isDirectory()) {
			fs.mkdirSync(target, { recursive: true });
			copied += copyChanged(source, target);
			continue;
		}
		const content = fs.readFileSync(source);
		if (fs.existsSync(target) && content.equals(fs.readFileSync(target))) continue;
		fs.writeFileSync(target, content);
		copied++;
	}
	return copied;
}

/**
 * Watches every folder of a tree, each on its own: Node's recursive watch on
 * Linux follows files, and loses one that an editor saves by writing a new
 * file over it; a folder's watch sees every write and rename inside it.
 * Folders created later are watched as they appear.
 */
function watchTree(dir, onChange, watchers = []) {
	watchers.push(
		fs.watch(dir, (_event, name) => {
			const file = path.join(dir, String(name));
			if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() && !watchers.some((w) => w.dir === file)) {
				watchTree(file, onChange, watchers);
			}
			onChange(file);
		}),
	);
	watchers[watchers.length - 1].dir = dir;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		if (entry.isDirectory()) watchTree(path.join(dir, entry.name), onChange, watchers);
	}
	return watchers;
}

/**
 * Builds once (the program later builds start from), then rebuilds on every
 * change until `stop()`.
 * @param {{ installedDir: string, log: (line: string) => void }} options
 */
async function watchAndRebuild({ installedDir, log }) {
	const compiler = startCompiler();
	const build = async () => {
		const { parsed, files } = await compiler.compile();
		await copyAssets();
		return { parsed, files, copied: copyChanged(path.join(REPO_ROOT, 'dist'), path.join(installedDir, 'dist')) };
	};
	// The same sources as the installed package, unless they were edited since it was packed.
	try {
		await build();
	} catch (error) {
		await compiler.close();
		throw error;
	}

	let timer;
	let building = Promise.resolve();
	const rebuild = (changed) => {
		building = building.then(async () => {
			const started = Date.now();
			try {
				const { parsed, files, copied } = await build();
				const effect = copied > 0 ? `${copied} file(s) changed, n8n reloads the nodes` : 'the build is unchanged, n8n keeps its nodes';
				log(`rebuilt after a change to ${changed} in ${Date.now() - started} ms (tsc parsed ${parsed} of ${files} files); ${effect}`);
			} catch (error) {
				log(`build failed, n8n keeps the last good build:\n${error.message}`);
			}
		});
	};
	const onChange = (file) => {
		clearTimeout(timer);
		timer = setTimeout(() => rebuild(path.relative(REPO_ROOT, file)), SETTLE_MS);
	};
	const watchers = WATCHED.flatMap((dir) => watchTree(path.join(REPO_ROOT, dir), onChange));
	return {
		async stop() {
			clearTimeout(timer);
			for (const watcher of watchers) watcher.close();
			await building;
			await compiler.close();
		},
	};
}

module.exports = { watchAndRebuild };
