#!/usr/bin/env bash
# `npm run bench` without npm: sets up Node 24 and runs bench/run.ts (arguments pass through).
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FLAGSTACK_ROOT"
bash scripts/setup.sh --pulumi
flagstack_use_node; flagstack_use_pulumi
node --import tsx bench/run.ts "$@"
