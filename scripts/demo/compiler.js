'use strict';
// The TypeScript build of `npm run dev` (rebuild.js), in a worker thread that
// keeps its program between builds: a save parses and checks only what changed
// (0.5 to 0.75 s of CPU), where a new tsc parsed all ~2,200 files of the
// program, n8n's type definitions included, every time (8 s of CPU; 20 to 73 s
// on a loaded 2-core machine). A thread, so the demo's sandbox in the main
// thread keeps answering while it builds.
const path = require('path');
const { isMainThread, parentPort, Worker } = require('worker_threads');

const REPO_ROOT = path.join(__dirname, '..', '..');
const CONFIG = path.join(REPO_ROOT, 'tsconfig.build.json');

/** In the worker: one build per message, answered with tsc's errors ('' when none) and how many files it parsed. */
function serve() {
	const ts = require(path.join(REPO_ROOT, 'node_modules', 'typescript'));
	/** Parsed source files by name, with the text each was parsed from. */
	const parsed = new Map();
	let previous;
	let parses = 0;
	const build = () => {
		const config = ts.getParsedCommandLineOfConfigFile(CONFIG, undefined, {
			...ts.sys,
			onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
				throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
			},
		});
		const host = ts.createIncrementalCompilerHost(config.options);
		const getSourceFile = host.getSourceFile;
		host.getSourceFile = (fileName, languageVersion, onError, shouldCreateNewSourceFile) => {
			const text = host.readFile(fileName);
			const known = parsed.get(fileName);
			if (known && known.text === text && !shouldCreateNewSourceFile) return known.file;
			const file = getSourceFile.call(host, fileName, languageVersion, onError, shouldCreateNewSourceFile);
			parsed.set(fileName, { text, file });
			parses++;
			return file;
		};
		// The previous program tells which files changed and what they affect.
		previous = ts.createEmitAndSemanticDiagnosticsBuilderProgram(config.fileNames, config.options, host, previous, ts.getConfigFileParsingDiagnostics(config));
		const diagnostics = [
			...previous.getConfigFileParsingDiagnostics(),
			...previous.getOptionsDiagnostics(),
			...previous.getGlobalDiagnostics(),
			...previous.getSyntacticDiagnostics(),
			...previous.getSemanticDiagnostics(),
		];
		// Emitted even with errors, as tsc does; rebuild.js then copies nothing.
		diagnostics.push(...previous.emit().diagnostics);
		return ts.formatDiagnostics(diagnostics, host);
	};
	parentPort.on('message', () => {
		parses = 0;
		let errors;
		try {
			errors = build();
		} catch (error) {
			errors = error.stack || String(error);
		}
		parentPort.postMessage({ errors, parsed: parses, files: previous?.getSourceFiles().length ?? 0 });
	});
}

/**
 * Starts the worker. `compile()` resolves once `dist/` holds the build, with
 * how many of the program's files it parsed, or rejects with tsc's errors; one
 * build at a time.
 */
function startCompiler() {
	const worker = new Worker(__filename);
	let failed;
	let pending;
	const fail = (error) => {
		failed ??= error;
		pending?.reject(failed);
		pending = undefined;
	};
	worker.on('error', fail);
	worker.on('exit', (code) => fail(new Error(`the TypeScript thread exited (code ${code})`)));
	worker.on('message', ({ errors, parsed, files }) => {
		const settle = pending;
		pending = undefined;
		if (errors) settle?.reject(new Error(errors));
		else settle?.resolve({ parsed, files });
	});
	return {
		compile: () =>
			new Promise((resolve, reject) => {
				if (failed) return reject(failed);
				pending = { resolve, reject };
				worker.postMessage('build');
			}),
		close: async () => {
			await worker.terminate();
		},
	};
}

if (!isMainThread) serve();

module.exports = { startCompiler };
