#!/usr/bin/env bash
# Runs every test suite (unit + end-to-end with the real Pulumi engine) and prints one closing
# line `N passed, N failed` totalled over all suites. Extra arguments go to vitest.
set -uo pipefail
. "$(dirname "$0")/env.sh"
cd "$FLAGSTACK_ROOT"
bash scripts/setup.sh --pulumi || exit 1
flagstack_use_node; flagstack_use_pulumi || exit 1
out=$(mktemp -d)
npx vitest run --reporter=default --reporter=json --outputFile.json="$out/results.json" "$@"
rc=$?
node -e '
  const fs = require("node:fs");
  let r = {}; try { r = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch {}
  const passed = r.numPassedTests ?? 0, failed = (r.numFailedTests ?? 0) + (r.numFailedTestSuites ?? 0 ? 0 : 0);
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$out/results.json"
rm -rf "$out"
exit $rc
