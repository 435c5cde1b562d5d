import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { readJournal } from "../../sdk/events/import/journal";
import { startGateProxy } from "../sdk/events/import/gate-proxy";
import { expectedRejects, type FixtureLine, fixture, ndjsonOf, stored } from "../sdk/events/import/helpers";

const ROOT = resolve(__dirname, "../..");
const TSX = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
// What bin/flagstack.js does, on the TypeScript sources.
const RUNNER = `require(${JSON.stringify(join(ROOT, "cli/index.ts"))}).main(process.argv).catch((e) => { console.error("flagstack: " + e.message); process.exitCode = 1; })`;

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.stop();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "events-cli-"));
  return () => rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[], opts: { url?: string; stdin?: string; env?: Record<string, string> } = {}): Run {
  const child = spawn(
    process.execPath,
    ["--import", TSX, "-e", RUNNER, "flagstack", "events", "import", ...args],
    {
      cwd: dir,
      env: {
        ...process.env,
        FLAGSTACK_EVENTS_URL: opts.url ?? emu.url,
        FLAGSTACK_SDK_KEY: emu.sdkKey,
        FLAGSTACK_REQUESTS_PER_SECOND: "1000",
        ...opts.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c) => {
    stdout += c;
  });
  child.stderr!.on("data", (c) => {
    stderr += c;
  });
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  else child.stdin!.end();
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((res) => child.on("close", (code, signal) => res({ code, signal, stdout, stderr })));
  return { child, done };
}

let n = 0;
const newPrefix = () => `c${++n}-${Date.now().toString(36)}`;
const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  String(a.key).localeCompare(String(b.key));
function eventsOf(prefix: string): Record<string, unknown>[] {
  return emu
    .events()
    .filter((e) => e.key.startsWith(`${prefix}-`))
    .map(({ environmentId: _i, environmentName: _n, ...r }) =>
      Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)),
    )
    .sort(byKey);
}
const validOf = (lines: FixtureLine[]) =>
  lines.flatMap((l) => (l.kind === "valid" ? [stored(l.record)] : [])).sort(byKey);
function writeFixture(prefix: string, count: number): { file: string; lines: FixtureLine[] } {
  const lines = fixture(prefix, count);
  const file = join(dir, "events.ndjson");
  writeFileSync(file, ndjsonOf(lines));
  return { file, lines };
}

describe("flagstack events import", () => {
  it("imports a file, prints the summary and exits 0; rejects go beside the file", async () => {
    const prefix = newPrefix();
    const { file, lines } = writeFixture(prefix, 400);
    const r = await cli([file, "--batch-size", "100", "--progress", "none"]).done;
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^read {6}399 records\nrejected {2}9 invalid \(see .*events\.ndjson\.rejects\.ndjson\)\nsent {6}390 in 4 requests\naccepted {2}390 \([\d,]+\/s\)\nunknown {3}0\nelapsed {3}\S+\nDone: all 390 valid records are accepted\.\n$/,
    );
    expect(eventsOf(prefix)).toEqual(validOf(lines));
    const rejects = readFileSync(`${file}.rejects.ndjson`, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rejects.map((x) => x.line)).toEqual(expectedRejects(lines).map((x) => x.line));
  });

  it("reads standard input with --format and prints a JSON summary", async () => {
    const prefix = newPrefix();
    const lines = fixture(prefix, 120).filter((l) => l.kind === "valid");
    const json = `[${lines.map((l) => l.text).join(",")}]`;
    const r = await cli(["-", "--json", "--rejects", join(dir, "r.ndjson")], { stdin: json }).done;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      input: "-",
      format: "json",
      read: lines.length,
      accepted: lines.length,
      complete: true,
    });
    expect(JSON.parse(r.stdout).journal).toBeUndefined();
    expect(eventsOf(prefix)).toEqual(validOf(lines));
  });

  it("--dry-run validates and counts without sending", async () => {
    const prefix = newPrefix();
    const { file } = writeFixture(prefix, 200);
    const r = await cli([file, "--dry-run", "--batch-size", "50"]).done;
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^read {6}200 records\nrejected {2}5 invalid .*\nvalid {5}195 records in 4 batches \(dry run: nothing sent\)\nelapsed {3}\S+\n$/,
    );
    expect(eventsOf(prefix)).toEqual([]);
  });

  it.each([
    [
      ["--resend-batches", "3,x"],
      "error: option '--resend-batches <list>' argument '3,x' is invalid. --resend-batches must list batch numbers separated by commas, with ranges as 10-12 (e.g. 3,7,10-12)",
    ],
    [
      ["--batch-size", "0"],
      "error: option '--batch-size <n>' argument '0' is invalid. --batch-size must be a whole number from 1 to 5000",
    ],
    [
      ["--concurrency", "x"],
      "error: option '--concurrency <n>' argument 'x' is invalid. --concurrency must be a whole number from 1 to 16",
    ],
    [
      ["--format", "xml"],
      "error: option '--format <format>' argument 'xml' is invalid. Allowed choices are ndjson, json, csv.",
    ],
  ])("refuses %j with a message naming the option", async (args, message) => {
    const r = await cli(["x.ndjson", ...args]).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });

  it("names the missing key and its variable", async () => {
    writeFileSync(join(dir, "e.ndjson"), "");
    const r = await cli(["e.ndjson"], { env: { FLAGSTACK_SDK_KEY: "" } }).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("flagstack: missing SDK key: pass --sdk-key or set FLAGSTACK_SDK_KEY\n");
  });

  it("killed (SIGKILL) with a batch in flight, re-run: reports it as unknown; --resend-batches completes it, each event exactly once", async () => {
    const prefix = newPrefix();
    const { file, lines } = writeFixture(prefix, 700);
    // The fourth request is held: it never reaches the emulator before the importer dies.
    const proxy = await startGateProxy(emu.url, (i) => (i === 3 ? "hold" : "forward"));
    try {
      const first = cli([file, "--batch-size", "100", "--concurrency", "1", "--progress", "lines"], {
        url: proxy.url,
      });
      await proxy.waitHeld(1);
      first.child.kill("SIGKILL");
      expect((await first.done).signal).toBe("SIGKILL");
      proxy.cutHeld();
      const journal = await readJournal(`${file}.import-journal`);
      expect([...journal!.batches.values()].map((e) => `${e.batch}:${e.status}`)).toEqual([
        "0:acked",
        "1:acked",
        "2:acked",
        "3:sent",
      ]);
      expect(eventsOf(prefix)).toHaveLength(300);

      const second = await cli([file, "--progress", "none"], { url: proxy.url }).done;
      expect(second.code).toBe(2);
      expect(second.stdout).toMatch(/accepted earlier {2}300 \(by an earlier run, not sent again\)/);
      expect(second.stdout).toMatch(
        /unknown outcome: batch 3 \(lines \d+-\d+, 100 records\): the earlier run stopped while this batch was in flight/,
      );
      expect(second.stdout).toContain(
        "--mark-accepted for the batches it holds and --resend-batches for those it lacks (e.g. --resend-batches 3).\n",
      );
      expect(eventsOf(prefix)).toHaveLength(validOf(lines).length - 100);

      // Batch 1 was acknowledged: naming it would send it twice, so nothing is sent.
      const wrong = await cli([file, "--resend-batches", "1,3", "--progress", "none"], { url: proxy.url })
        .done;
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toBe(
        "flagstack: --resend-batches: batch 1 is not a batch whose outcome is unknown (its last journal entry is acked); nothing was sent\n",
      );
      expect(eventsOf(prefix)).toHaveLength(validOf(lines).length - 100);

      const third = await cli([file, "--resend-batches", "3", "--progress", "none"], { url: proxy.url }).done;
      expect(third.code).toBe(0);
      expect(third.stdout).toMatch(/sent {14}100 in 1 request\n/);
      expect(eventsOf(prefix)).toEqual(validOf(lines));
    } finally {
      await proxy.close();
    }
  });

  it("killed (SIGKILL) after the service recorded a batch but before the 202 arrived, re-run: nothing sent twice; --mark-accepted completes it", async () => {
    const prefix = newPrefix();
    const { file, lines } = writeFixture(prefix, 500);
    const proxy = await startGateProxy(emu.url, (i) => (i === 2 ? "hold-after" : "forward"));
    try {
      const first = cli([file, "--batch-size", "100", "--concurrency", "1", "--progress", "none"], {
        url: proxy.url,
      });
      await proxy.waitHeld(1);
      first.child.kill("SIGKILL");
      await first.done;
      proxy.cutHeld();
      expect(eventsOf(prefix)).toHaveLength(300);

      const second = await cli([file, "--progress", "none"], { url: proxy.url }).done;
      expect(second.code).toBe(2);
      expect(second.stdout).toMatch(/unknown outcome: batch 2 /);
      expect(eventsOf(prefix)).toEqual(validOf(lines));

      const third = await cli([file, "--mark-accepted", "2", "--progress", "none"], { url: proxy.url }).done;
      expect(third.code).toBe(0);
      expect(third.stdout).toMatch(/^read {14}498 records\n.*\nsent {14}0 in 0 requests\n/s);
      expect(third.stdout).toMatch(/accepted earlier {2}487 \(by an earlier run, not sent again\)\n/);
      expect(third.stdout).toContain("Done: all 487 valid records are accepted.");
      const journal = await readJournal(`${file}.import-journal`);
      expect(journal?.batches.get(2)).toMatchObject({ status: "acked", by: "operator" });
      expect(eventsOf(prefix)).toEqual(validOf(lines));
    } finally {
      await proxy.close();
    }
  });

  it("Ctrl-C: stops sending, waits for the batch in flight, journals it, exits 130; the re-run completes", async () => {
    const prefix = newPrefix();
    const { file, lines } = writeFixture(prefix, 700);
    let hold = true;
    const proxy = await startGateProxy(emu.url, (i) => (i === 2 && hold ? "hold" : "forward"));
    try {
      const first = cli([file, "--batch-size", "100", "--concurrency", "1", "--progress", "none"], {
        url: proxy.url,
      });
      await proxy.waitHeld(1);
      first.child.kill("SIGINT");
      // Give the importer time to see the signal, then let the batch in flight complete.
      await new Promise((r) => setTimeout(r, 300));
      hold = false;
      proxy.releaseHeld();
      const r = await first.done;
      expect(r.code).toBe(130);
      expect(r.stderr).toContain("SIGINT: no new batches; waiting for those in flight");
      expect(r.stdout).toMatch(/accepted {2}300 /);
      expect(r.stdout).toContain("Interrupted: run the same command again to resume");
      expect(eventsOf(prefix)).toHaveLength(300);

      const second = await cli([file, "--progress", "none"], { url: proxy.url }).done;
      expect(second.code).toBe(0);
      expect(eventsOf(prefix)).toEqual(validOf(lines));
    } finally {
      await proxy.close();
    }
  });

  it("refuses to resume with another --batch-size, naming the one to use", async () => {
    const prefix = newPrefix();
    const { file } = writeFixture(prefix, 200);
    expect((await cli([file, "--batch-size", "100", "--progress", "none"]).done).code).toBe(0);
    const r = await cli([file, "--batch-size", "50"]).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "was written with --batch-size 100 (this run: 50). Batches depend on these settings: re-run with --batch-size 100 to resume.",
    );
  });

  it("prints progress lines when not on a terminal", async () => {
    const prefix = newPrefix();
    const { file } = writeFixture(prefix, 300);
    const proxy = await startGateProxy(emu.url, () => "forward");
    try {
      const r = await cli(
        [
          file,
          "--batch-size",
          "10",
          "--concurrency",
          "1",
          "--progress",
          "lines",
          "--progress-interval",
          "0.01",
        ],
        {
          url: proxy.url,
          env: { FLAGSTACK_REQUESTS_PER_SECOND: "200" },
        },
      ).done;
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(
        /^events: \d+% \| [\d,]+ read \| [\d,]+ accepted \| \d+ rejected \| [\d,]+\/s( \| ETA \S+)?$/m,
      );
    } finally {
      await proxy.close();
    }
  });
});
