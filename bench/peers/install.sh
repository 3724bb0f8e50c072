#!/bin/sh
# Install the peers from the npm registry into bench/peers/node_modules (ignored by git):
# promptfoo, and @plaited/agent-eval-harness with Bun (the npm package `bun`) to run it.
# promptfoo 0.115 (the last release that runs on Node 20, which Debian-based images here
# carry); its optional browser download is skipped, and its SQLite binding is built from
# source (npm rebuild) because prebuilt binaries come from outside the registry.
set -eu
cd "$(dirname "$0")"
if [ -x node_modules/.bin/promptfoo ] && [ -x node_modules/.bin/agent-eval-harness ] &&
    node -e 'require("better-sqlite3")' 2>/dev/null; then
    exit 0
fi
command -v npm >/dev/null || { echo "bench-peers: npm is needed (Node.js 20)"; exit 2; }
[ -f package.json ] || echo '{"name": "arbiter-bench-peers", "private": true}' >package.json
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --ignore-scripts \
    promptfoo@0.115 @plaited/agent-eval-harness@0.12 bun@1
npm rebuild better-sqlite3 bun
