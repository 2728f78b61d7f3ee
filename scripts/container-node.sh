#!/usr/bin/env bash
# Prints the bin directory of the Node.js major the container ships (the Dockerfile's NODE_IMAGE, e.g.
# node:24-bookworm-slim → 24), installing it first when missing, from the npm registry's `node` package
# (the official Linux binary with its headers, which better-sqlite3 builds against).
# Used by .ci/run (the suite on both Node majors) and test/container/runtime-stage.test.ts.
#   NODE_DIR=$(dirname "$(scripts/container-node.sh)")   # for npm_config_nodedir
# Cache: $CONTAINER_NODE_CACHE, default .cache/ in the repository (git-ignored).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
major=$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9][0-9]*\)[-.].*/\1/p' "$root/Dockerfile")
[ -n "$major" ] || { echo "container-node: no 'ARG NODE_IMAGE=node:<major>-…' in Dockerfile" >&2; exit 1; }
cache="${CONTAINER_NODE_CACHE:-$root/.cache}/node$major"
arch=$(node -p 'process.platform + "-" + process.arch')
bin="$cache/node_modules/node/node_modules/node-$arch/bin"
if ! [ -x "$bin/node" ] || [ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" != "$major" ]; then
  rm -rf "$cache" && mkdir -p "$cache"
  (cd "$cache" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "node@$major" >&2)
fi
[ -x "$bin/node" ] || { echo "container-node: node@$major installed no binary at $bin" >&2; exit 1; }
echo "$bin"
