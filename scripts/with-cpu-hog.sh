#!/usr/bin/env bash
# Runs a command with a busy loop on every core beside it (two on CI's two cores), as a seller's shared CI
# runner is busy: the tests must get slower there, never red (test/helpers/patience.ts scales their waits).
#   scripts/with-cpu-hog.sh COVERAGE=0 npm run test:node  (or any command and its arguments)
set -euo pipefail
hogs=()
stop() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true; }
trap stop EXIT
for _ in $(seq "$(nproc)"); do
  bash -c 'while :; do :; done' &
  hogs+=($!)
done
echo "== $(nproc) busy loops beside: $*"
env "$@"
