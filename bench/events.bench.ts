/**
 * Event import figures, measured as a user runs it: `flagstack events import FILE` in its own
 * process, against the emulator (in this process, events stored in memory).
 *
 * - `events_import_per_s`: events accepted per second for 1,000,000 events (quick: 100,000), from
 *   the importer's own elapsed time (reading, validating, sending, journaling; process start
 *   excluded); `events_import_wall_s` is the whole command's wall time.
 * - `events_import_rss_mb_small` / `_large`: the importer's peak RSS (`maxRSS` at exit) for
 *   100,000 and 1,000,000 events (quick: 10,000 and 100,000), and `events_import_rss_ratio`
 *   large / small (goal <= 1.2: memory stays flat whatever the input size).
 *
 * The importer runs as plain JavaScript (the CLI bundled with esbuild, dependencies resolved from
 * the repo's node_modules), as the built package runs, so no TypeScript loader is in the figures.
 * Defaults otherwise: batch size 1000, concurrency 4, journal fsync'd; only the client-side rate
 * limit is lifted (`--requests-per-second Infinity`), as the emulator has none.
 * @module
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../emulator";
import type { BenchContext } from "./run";

/** Writes `n` events as NDJSON (a mix of plain events, values and properties), with backpressure. */
async function writeEvents(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < n; i++) {
    const e: Record<string, unknown> = {
      eventTypeId: i % 3 === 0 ? "checkout" : "page_view",
      trafficTypeName: "user",
      key: `user-${i}`,
      timestamp: 1_700_000_000_000 + i,
    };
    if (i % 2 === 0) e.value = i % 100;
    if (i % 4 === 0) e.properties = { plan: i % 8 === 0 ? "pro" : "free", country: "NL" };
    if (!out.write(`${JSON.stringify(e)}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** Bundles the CLI's `events` command into one plain-JavaScript file. */
async function bundleImporter(dir: string): Promise<string> {
  const esbuild = await import("esbuild");
  const root = join(__dirname, "..");
  const outfile = join(dir, "importer.js");
  await esbuild.build({
    stdin: {
      contents: `
        const { Command } = require("commander");
        const { register } = require("./cli/events-command");
        const { writeSync } = require("node:fs");
        // The import worker loads this same file: only the main thread runs the command.
        if (require("node:worker_threads").isMainThread) {
          process.on("exit", () => writeSync(2, "\\nmaxrss_kb " + process.resourceUsage().maxRSS + "\\n"));
          const program = new Command("flagstack");
          register(program);
          program.parseAsync(process.argv).catch((e) => { console.error("flagstack: " + e.message); process.exitCode = 1; });
        }
      `,
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    packages: "external",
    outfile,
    logLevel: "error",
  });
  return outfile;
}

interface RunResult {
  accepted: number;
  elapsedMs: number;
  wallMs: number;
  maxRssKb: number;
}

async function runImporter(importer: string, file: string, url: string, sdkKey: string): Promise<RunResult> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [importer, "events", "import", file, "--json", "--progress", "none", "--requests-per-second", "Infinity"],
    {
      env: {
        ...process.env,
        NODE_PATH: join(__dirname, "..", "node_modules"),
        FLAGSTACK_EVENTS_URL: url,
        FLAGSTACK_SDK_KEY: sdkKey,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => {
    stdout += c;
  });
  child.stderr.on("data", (c) => {
    stderr += c;
  });
  const [code] = (await once(child, "close")) as [number | null];
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`importer exited ${code}: ${stderr.slice(-2000)}`);
  const summary = JSON.parse(stdout) as { accepted: number; elapsedMs: number; complete: boolean };
  const rss = /maxrss_kb (\d+)/.exec(stderr);
  if (!summary.complete || !rss) throw new Error(`import incomplete or no maxRSS: ${stdout} ${stderr}`);
  return { accepted: summary.accepted, elapsedMs: summary.elapsedMs, wallMs, maxRssKb: Number(rss[1]) };
}

/** Runs the event import benchmark. */
export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const small = quick ? 10_000 : 100_000;
  const large = quick ? 100_000 : 1_000_000;
  const dir = mkdtempSync(join(tmpdir(), "events-bench-"));
  const emu = await startEmulator({ port: 0 });
  try {
    const importer = await bundleImporter(dir);
    const figures: Record<string, number> = {};
    const results: Record<number, RunResult> = {};
    for (const n of [small, large]) {
      const file = join(dir, `events-${n}.ndjson`);
      await writeEvents(file, n);
      const before = emu.eventCount();
      const r = await runImporter(importer, file, emu.url, emu.sdkKey);
      if (r.accepted !== n || emu.eventCount() - before !== n) {
        throw new Error(
          `expected ${n} events accepted and stored, got ${r.accepted} / ${emu.eventCount() - before}`,
        );
      }
      results[n] = r;
      log(
        `events: ${n} events in ${(r.elapsedMs / 1000).toFixed(2)} s (${Math.round((n * 1000) / r.elapsedMs)}/s), ` +
          `wall ${(r.wallMs / 1000).toFixed(2)} s, peak RSS ${(r.maxRssKb / 1024).toFixed(1)} MB`,
      );
      rmSync(file, { force: true });
    }
    const s = results[small]!;
    const l = results[large]!;
    figures.events_import_per_s = Math.round((large * 1000) / l.elapsedMs);
    figures.events_import_wall_s = Number((l.wallMs / 1000).toFixed(2));
    figures.events_import_rss_mb_small = Number((s.maxRssKb / 1024).toFixed(1));
    figures.events_import_rss_mb_large = Number((l.maxRssKb / 1024).toFixed(1));
    figures.events_import_rss_ratio = Number((l.maxRssKb / s.maxRssKb).toFixed(3));
    return figures;
  } finally {
    await emu.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
