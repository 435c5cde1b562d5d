// Preloaded into each provider process OpenTofu starts in a bench (`NODE_OPTIONS=--require`, the
// Node launcher only): at exit, appends the process's CPU time (user and system, ms) and its start
// and end (epoch ms) to $FLAGSTACK_BENCH_CPU_FILE as one JSON line (`./terraform.bench.ts`).
"use strict";
const file = process.env.FLAGSTACK_BENCH_CPU_FILE;
if (file)
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    try {
      require("node:fs").appendFileSync(
        file,
        `${JSON.stringify({ pid: process.pid, user: user / 1000, system: system / 1000, start: performance.timeOrigin, end: Date.now() })}\n`,
      );
    } catch {
      // a bench figure less, never a provider failure
    }
  });
