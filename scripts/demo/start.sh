#!/usr/bin/env bash
# `npm run demo`: from a fresh clone to a running n8n with our package, the
# sandbox, a ready credential and the example workflows. Stays up until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ ! -d node_modules ]; then
  echo "demo: installing the project's dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=warn
fi
echo "demo: building the package"
npm run build >/dev/null
echo "demo: checking the cached n8n install (the first run installs it: about 4 minutes)"
bash harness/ensure-n8n.sh >/dev/null
# exec: Ctrl-C and SIGTERM go straight to the demo, which stops n8n and the sandbox.
exec node scripts/demo/cli.js "$@"
