'use strict';
// Installs our package into an n8n user folder the way a community install
// does, from `npm pack` output, so n8n sees exactly what the tarball ships.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const REPO_ROOT = path.join(__dirname, '..');
const repoPackageJson = () => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));

/** Checks that every file package.json declares for n8n has been built. */
function assertBuilt() {
	const { n8n } = repoPackageJson();
	const declared = [...n8n.credentials, ...n8n.nodes];
	const missing = declared.filter((file) => !fs.existsSync(path.join(REPO_ROOT, file)));
	if (missing.length > 0) {
		throw new Error(`package not built (missing ${missing.join(', ')}); run \`npm run build\` first`);
	}
}

/** Packs the package in `dir` with npm and returns the tarball's path inside `destDir`. */
function packDirectory(dir, destDir) {
	const output = execFileSync('npm', ['pack', '--silent', '--pack-destination', destDir], {
		cwd: dir,
		stdio: ['ignore', 'pipe', 'inherit'],
		timeout: 120_000,
	});
	const fileName = output.toString().trim().split('\n').pop();
	return path.join(destDir, fileName);
}

/** Packs the repo with npm and returns the tarball's path inside `destDir`. */
function packRepo(destDir = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-pack-'))) {
	assertBuilt();
	return packDirectory(REPO_ROOT, destDir);
}

/** Where installPackage put the package `name` in an n8n user folder. */
function installedPackageDir(userFolder, name) {
	return path.join(userFolder, '.n8n', 'nodes', 'node_modules', name);
}

/**
 * Unpacks `tarball` to <userFolder>/.n8n/nodes/node_modules/<name> and records
 * it in that folder's package.json, as n8n's community-package install does.
 * Returns the package name (node types are then `<name>.<node name>`).
 */
function installPackage(userFolder, tarball) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const unpackDir = fs.mkdtempSync(path.join(os.tmpdir(), 'omnichannel-unpack-'));
	try {
		execFileSync('tar', ['-xzf', tarball, '-C', unpackDir]);
		const unpacked = path.join(unpackDir, 'package');
		const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
		// n8n's community-node rules forbid runtime dependencies, and without them
		// nothing needs `npm install` here; fail loudly if that ever changes.
		const runtimeDeps = Object.keys(manifest.dependencies ?? {});
		if (runtimeDeps.length > 0) {
			throw new Error(`packed package has runtime dependencies (${runtimeDeps.join(', ')})`);
		}
		const target = installedPackageDir(userFolder, manifest.name);
		fs.rmSync(target, { recursive: true, force: true });
		fs.mkdirSync(path.dirname(target), { recursive: true });
		fs.cpSync(unpacked, target, { recursive: true });
		// Packages installed before stay listed (the bench adds a peer package).
		const hostFile = path.join(nodesDir, 'package.json');
		const installed = fs.existsSync(hostFile) ? JSON.parse(fs.readFileSync(hostFile, 'utf8')).dependencies : {};
		const hostManifest = { name: 'installed-nodes', private: true, dependencies: { ...installed, [manifest.name]: manifest.version } };
		fs.writeFileSync(hostFile, JSON.stringify(hostManifest, null, 2));
		return manifest.name;
	} finally {
		fs.rmSync(unpackDir, { recursive: true, force: true });
	}
}

module.exports = { REPO_ROOT, assertBuilt, packDirectory, packRepo, installPackage, installedPackageDir };
