#!/usr/bin/env bash
# Runs every test suite (unit + end-to-end with the real Pulumi engine) and prints one closing
# line `N passed, N failed` totalled over all suites. Extra arguments go to vitest.
set -uo pipefail
. "$(dirname "$0")/env.sh"
cd "$FLAGSTACK_ROOT"
bash scripts/setup.sh --pulumi --tofu || exit 1
flagstack_use_node; flagstack_use_pulumi || exit 1; flagstack_use_tofu || exit 1
out=$(mktemp -d)
# The static checks count as two suites of their own (a type error or a lint finding is a failure
# in the closing line): `tsc --noEmit` over everything, tests and benchmarks included, so the
# type-level assertions (`expectTypeOf`) run; and `biome check`. Skipped when vitest is given
# arguments (a run of chosen tests).
static_passed=0; static_failed=0
if [ $# -eq 0 ]; then
  for check in "typecheck:npx tsc -p tsconfig.json --noEmit" "lint:npx biome check ."; do
    name=${check%%:*}; cmd=${check#*:}
    if $cmd; then static_passed=$((static_passed + 1)); echo "static check $name: passed"
    else static_failed=$((static_failed + 1)); echo "static check $name: FAILED"; fi
  done
fi
npx vitest run --reporter=default --reporter=json --outputFile.json="$out/results.json" "$@"
rc=$?
[ "$static_failed" -eq 0 ] || rc=1
node -e '
  // Totals over every suite. A test file that failed to load has no test results of its own, so
  // it counts as one failure: a broken suite can never pass silently.
  const fs = require("node:fs");
  let r = {};
  try { r = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch {}
  let passed = (r.numPassedTests ?? 0) + Number(process.argv[2]), failed = (r.numFailedTests ?? 0) + Number(process.argv[3]);
  for (const f of r.testResults ?? []) {
    if (f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed")) failed += 1;
  }
  if (!r.testResults) failed += 1;
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$out/results.json" "$static_passed" "$static_failed"
rm -rf "$out"
exit $rc
