#!/usr/bin/env bash
# Runs every test of the given files alone (`vitest run <file> -t "^<its full name>$"`: the
# enclosing describes' hooks run, no other test does) and counts those that pass alone. A test
# that only passes after its neighbours leans on their state; this finds it.
#
#   bash scripts/each-test-alone.sh [test files...]   (default: the provider lifecycle tests)
#
# Prints one line per test that fails alone, then `N of M passed alone` per file and in total.
# Exit status 1 when any test fails alone. One vitest run per test: slow (seconds per test), so it
# is a tool for changes to these files, not part of scripts/test.sh.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
flagstack_use_node
cd "$FLAGSTACK_ROOT"

if [ "$#" -eq 0 ]; then
  set -- test/provider/flags/flag.test.ts test/provider/flags/flag-definition.test.ts test/provider/flags/group.test.ts \
    test/provider/flags/user-invite.test.ts test/provider/platform/project.test.ts test/provider/platform/connector.test.ts \
    test/provider/platform/pipeline.test.ts
fi

vitest=(node node_modules/vitest/vitest.mjs)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

total=0
passed=0
for file in "$@"; do
  # Collected by running the file's describes (not parsed statically), so `describe.each` and
  # `it.each` names come out formatted as `-t` sees them.
  "${vitest[@]}" list "$file" --project unit --no-staticParse --json="$work/list.json" >/dev/null 2>&1
  # One anchored, regex-escaped pattern per line.
  node -e '
    const tests = require(process.argv[1]);
    const esc = (s) => s.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");
    for (const t of tests) console.log(`^${esc(t.name)}$`);
  ' "$work/list.json" >"$work/patterns"
  n=0
  ok=0
  while IFS= read -r pattern; do
    n=$((n + 1))
    rm -f "$work/result.json"
    "${vitest[@]}" run "$file" --project unit -t "$pattern" --reporter=json \
      --outputFile="$work/result.json" </dev/null >"$work/out" 2>&1 || true
    verdict=$(node -e '
      try {
        const r = require(process.argv[1]);
        // Passed alone: every test the pattern selected passed, and it selected at least one.
        console.log(r.numPassedTests > 0 && r.numFailedTests === 0 && r.success ? "pass" : "fail");
      } catch { console.log("fail"); }
    ' "$work/result.json")
    if [ "$verdict" = pass ]; then
      ok=$((ok + 1))
    else
      echo "FAILS ALONE: $file: $pattern"
      # The first errors vitest printed, to tell a dependency on another test from a broken build.
      sed 's/\x1b\[[0-9;]*m//g' "$work/out" | grep -E 'Error|expected|FAIL' | head -n 5 | sed 's/^/    /' || true
    fi
  done <"$work/patterns"
  echo "$file: $ok of $n passed alone"
  total=$((total + n))
  passed=$((passed + ok))
done
echo "total: $passed of $total passed alone"
[ "$passed" -eq "$total" ]
