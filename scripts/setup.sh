#!/usr/bin/env bash
# One-time (and idempotent) setup: Node 24, dependencies, the compiled package, and optionally the
# Pulumi CLI (`--pulumi`) and OpenTofu (`--tofu`), each built from Go modules when none is on PATH.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$FLAGSTACK_ROOT"
flagstack_use_node
stamp=node_modules/.flagstack-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "flagstack: installing dependencies (npm ci)" >&2
  # npm ci installs exactly the lock file. The lock omits the other platforms' optional binaries
  # (biome's, esbuild's), which some npm versions then call out of sync: fall back to an install
  # from the same lock.
  npm ci --no-audit --no-fund --loglevel=error >&2 2>/dev/null ||
    npm install --no-audit --no-fund --no-save --loglevel=error >&2
  touch "$stamp"
fi
npm run --silent build >&2
# The dynamic providers `require("flagstack/provider/...")` at call time, resolved from the Pulumi
# program's directory; inside this repo that name points back at the repo itself.
[ -e node_modules/flagstack ] || ln -sfn .. node_modules/flagstack
for arg in "$@"; do
  case "$arg" in
    --pulumi) flagstack_use_pulumi ;;
    --tofu) flagstack_use_tofu ;;
  esac
done
