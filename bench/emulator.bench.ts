/**
 * Emulator throughput and memory (issue 3 "Done when", issue 8):
 * - `emulator_requests_per_s_flag_get`: `GET /splits/ws/{ws}/{name}` with 50 concurrent
 *   keep-alive connections (an undici Pool);
 * - `emulator_requests_per_s_definition_patch`: JSON Patch of a definition, same load, in memory;
 * - `emulator_requests_per_s_definition_patch_persisted`: the same with a state file, where group
 *   commit writes once for all changes made during a write;
 * - `emulator_rss_mb_10k_flags`: resident memory of an emulator holding 10,000 flags, next to
 *   `emulator_rss_mb_empty` (same process before the flags) and the cost per 1,000 flags.
 * - `bare_http_requests_per_s`: a bare `node:http` server answering a flag-sized JSON body under the
 *   same load, the baseline of `emulator_flag_get_vs_bare_http` (this machine's ceiling).
 * The emulator runs in a child process (so the load generator does not share its event loop);
 * `--quick` shortens each load phase to about two seconds.
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import type { BenchContext } from "./run";

const REPO = join(__dirname, "..");
const CONNECTIONS = 50;

interface Child {
  proc: ChildProcess;
  url: string;
  adminKey: string;
  rss: () => Promise<number>;
  stop: () => Promise<void>;
}

/** Starts the emulator in a child process (tsx, `--expose-gc`) and talks to it over IPC. */
async function startChild(options: Record<string, unknown> = {}): Promise<Child> {
  const code = `
    const { startEmulator } = require("./emulator/index.ts");
    (async () => {
      const emu = await startEmulator(JSON.parse(process.env.FLAGSTACK_BENCH_EMULATOR));
      process.send({ url: emu.url, adminKey: emu.adminKey });
      process.on("message", async (m) => {
        if (m === "rss") {
          for (let i = 0; i < 3; i++) { global.gc(); await new Promise((r) => setTimeout(r, 20)); }
          process.send({ rss: process.memoryUsage().rss });
        } else if (m === "stop") {
          await emu.stop();
          process.exit(0);
        }
      });
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const proc = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "-e", code], {
    cwd: REPO,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, FLAGSTACK_BENCH_EMULATOR: JSON.stringify({ port: 0, ...options }) },
  });
  const next = <T>(): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = (c: number | null) => reject(new Error(`emulator child exited with ${c}`));
      proc.once("exit", onExit);
      proc.once("message", (m) => {
        proc.off("exit", onExit);
        resolve(m as T);
      });
    });
  const hello = await next<{ url: string; adminKey: string }>();
  return {
    proc,
    ...hello,
    rss: async () => {
      const answer = next<{ rss: number }>();
      proc.send("rss");
      return (await answer).rss;
    },
    stop: () =>
      new Promise((resolve) => {
        proc.once("exit", () => resolve());
        proc.send("stop");
      }),
  };
}

/** A bare node:http server in a child process: the machine's ceiling for the same load. */
async function startBareChild(): Promise<Child> {
  const code = `
    const body = JSON.stringify({ id: "x".repeat(36), name: "bench_flag", description: "bench", pad: "y".repeat(250) });
    const server = require("node:http").createServer((req, res) => {
      req.resume();
      req.on("end", () => { res.writeHead(200, { "content-type": "application/json" }); res.end(body); });
    });
    server.listen(0, "127.0.0.1", () => process.send({ url: "http://127.0.0.1:" + server.address().port, adminKey: "none" }));
    process.on("message", () => { server.close(); server.closeAllConnections(); process.exit(0); });`;
  const proc = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const hello = await new Promise<{ url: string; adminKey: string }>((resolve) =>
    proc.once("message", (m) => resolve(m as never)),
  );
  return {
    proc,
    ...hello,
    rss: async () => 0,
    stop: () =>
      new Promise((resolve) => {
        proc.once("exit", () => resolve());
        proc.send("stop");
      }),
  };
}

type Req = { method: "GET" | "POST" | "PATCH"; path: string; body?: string };

/** Runs `make(i)` requests on `connections` concurrent workers for `ms`; returns requests per second. */
async function load(
  pool: Pool,
  adminKey: string,
  ms: number,
  make: (i: number) => Req,
): Promise<{ perSecond: number; p50: number; p99: number }> {
  const headers = { authorization: `Bearer ${adminKey}`, "content-type": "application/json" };
  const deadline = performance.now() + ms;
  const latencies: number[] = [];
  let i = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const req = make(i++);
      const t = performance.now();
      const res = await pool.request({ ...req, headers });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${req.method} ${req.path}: ${res.statusCode} ${text}`);
      latencies.push(performance.now() - t);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { perSecond: latencies.length / elapsed, p50: q(0.5), p99: q(0.99) };
}

async function json(pool: Pool, adminKey: string, req: Req): Promise<{ status: number; body: unknown }> {
  const res = await pool.request({
    ...req,
    headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
  });
  return { status: res.statusCode, body: await res.body.json() };
}

/** Sets up a workspace with one defined flag; returns the paths the load uses. */
async function prepare(pool: Pool, adminKey: string) {
  const ws = (
    (await json(pool, adminKey, { method: "GET", path: "/internal/api/v2/workspaces" })).body as {
      objects: { id: string }[];
    }
  ).objects[0];
  if (!ws) throw new Error("no workspace");
  const base = `/internal/api/v2/splits/ws/${ws.id}`;
  for (const name of ["bench_flag", "bench_other"]) {
    await json(pool, adminKey, {
      method: "POST",
      path: `${base}/trafficTypes/user`,
      body: JSON.stringify({ name, description: "bench" }),
    });
  }
  const def = {
    treatments: [{ name: "on", keys: ["qa"] }, { name: "off" }],
    defaultTreatment: "off",
    defaultRule: [
      { treatment: "on", size: 50 },
      { treatment: "off", size: 50 },
    ],
  };
  const r = await json(pool, adminKey, {
    method: "POST",
    path: `${base}/bench_flag/environments/Production`,
    body: JSON.stringify(def),
  });
  if (r.status !== 200) throw new Error(`definition create: ${r.status} ${JSON.stringify(r.body)}`);
  return { base, wsId: ws.id };
}

const patchOf = (i: number): string =>
  JSON.stringify([
    { op: "replace", path: "/trafficAllocation", value: i % 101 },
    {
      op: "replace",
      path: "/defaultRule",
      value: [
        { treatment: "on", size: i % 101 },
        { treatment: "off", size: 100 - (i % 101) },
      ],
    },
  ]);

/** The benchmark entry point (see `bench/run.ts`). */
export async function run({ quick, log }: BenchContext): Promise<Record<string, number>> {
  const phaseMs = quick ? 2_000 : 10_000;
  const out: Record<string, number> = {};
  const dir = mkdtempSync(join(tmpdir(), "flagstack-bench-"));
  try {
    // Baseline: a bare HTTP server under the same load.
    {
      const child = await startBareChild();
      const pool = new Pool(child.url, { connections: CONNECTIONS });
      try {
        await load(pool, child.adminKey, 500, () => ({ method: "GET", path: "/" }));
        const bare = await load(pool, child.adminKey, phaseMs, () => ({ method: "GET", path: "/" }));
        log(`bare node:http: ${bare.perSecond.toFixed(0)} req/s`);
        out.bare_http_requests_per_s = bare.perSecond;
      } finally {
        await pool.close();
        await child.stop();
      }
    }
    // Throughput, in memory.
    {
      const child = await startChild();
      const pool = new Pool(child.url, { connections: CONNECTIONS });
      try {
        const { base } = await prepare(pool, child.adminKey);
        await load(pool, child.adminKey, 500, () => ({ method: "GET", path: `${base}/bench_flag` }));
        const get = await load(pool, child.adminKey, phaseMs, (i) => ({
          method: "GET",
          path: `${base}/${i % 2 ? "bench_flag" : "bench_other"}`,
        }));
        log(
          `flag GET: ${get.perSecond.toFixed(0)} req/s, p50 ${get.p50.toFixed(2)} ms, p99 ${get.p99.toFixed(2)} ms`,
        );
        out.emulator_requests_per_s_flag_get = get.perSecond;
        out.emulator_flag_get_p99_ms = get.p99;
        out.emulator_flag_get_vs_bare_http = get.perSecond / (out.bare_http_requests_per_s ?? get.perSecond);
        const patchPath = `${base}/bench_flag/environments/Production`;
        const patch = await load(pool, child.adminKey, phaseMs, (i) => ({
          method: "PATCH",
          path: patchPath,
          body: patchOf(i),
        }));
        log(
          `definition PATCH: ${patch.perSecond.toFixed(0)} req/s, p50 ${patch.p50.toFixed(2)} ms, p99 ${patch.p99.toFixed(2)} ms`,
        );
        out.emulator_requests_per_s_definition_patch = patch.perSecond;
        out.emulator_definition_patch_p99_ms = patch.p99;
      } finally {
        await pool.close();
        await child.stop();
      }
    }
    // Throughput with a state file (group commit).
    {
      const child = await startChild({ statePath: join(dir, "state.json") });
      const pool = new Pool(child.url, { connections: CONNECTIONS });
      try {
        const { base } = await prepare(pool, child.adminKey);
        const patchPath = `${base}/bench_flag/environments/Production`;
        const patch = await load(pool, child.adminKey, phaseMs, (i) => ({
          method: "PATCH",
          path: patchPath,
          body: patchOf(i),
        }));
        log(
          `definition PATCH with a state file: ${patch.perSecond.toFixed(0)} req/s, p99 ${patch.p99.toFixed(2)} ms`,
        );
        out.emulator_requests_per_s_definition_patch_persisted = patch.perSecond;
      } finally {
        await pool.close();
        await child.stop();
      }
    }
    // Memory with 10,000 flags.
    {
      const child = await startChild();
      const pool = new Pool(child.url, { connections: CONNECTIONS });
      try {
        const { base } = await prepare(pool, child.adminKey);
        const empty = await child.rss();
        const started = performance.now();
        let next = 0;
        const flags = 10_000;
        await Promise.all(
          Array.from({ length: CONNECTIONS }, async () => {
            for (let i = next++; i < flags; i = next++) {
              const r = await json(pool, child.adminKey, {
                method: "POST",
                path: `${base}/trafficTypes/user`,
                body: JSON.stringify({ name: `flag_${i}`, description: `benchmark flag number ${i}` }),
              });
              if (r.status !== 200) throw new Error(`flag create: ${r.status} ${JSON.stringify(r.body)}`);
            }
          }),
        );
        const createPerSecond = flags / ((performance.now() - started) / 1000);
        const full = await child.rss();
        log(
          `10,000 flags: RSS ${(full / 2 ** 20).toFixed(1)} MB (empty ${(empty / 2 ** 20).toFixed(1)} MB), created at ${createPerSecond.toFixed(0)}/s`,
        );
        out.emulator_rss_mb_empty = empty / 2 ** 20;
        out.emulator_rss_mb_10k_flags = full / 2 ** 20;
        out.emulator_rss_mb_per_1k_flags = (full - empty) / 2 ** 20 / 10;
        out.emulator_requests_per_s_flag_create = createPerSecond;
      } finally {
        await pool.close();
        await child.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
