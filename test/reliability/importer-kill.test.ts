/**
 * kill -9 of the event importer: the `flagstack events import` command runs as a child process
 * against the emulator, which enforces a server-side rate limit and adds latency, so that at any
 * moment some batches wait in the client (in its rate limiter, or in the pause a 429 asked for)
 * while others are on the wire. The test kills it with SIGKILL at random moments, round after
 * round. After each kill it reads the journal as an operator would read the summary: the batches
 * whose outcome is unknown (at most one per concurrent slot), each with its line range. It checks
 * each one in the service (all of its events there, or none), and the next run resumes with
 * `--mark-accepted` for the recorded ones and `--resend-batches` for the missing ones. At the end
 * the emulator holds each valid record exactly once: nothing missing, no duplicate.
 *
 * A second test kills it on purpose while every batch waits out the pause a 429 asked for: then
 * no batch may be left unknown (a batch is journaled as sent only when its request is about to be
 * written), where the journal used to leave every waiting batch looking in flight.
 *
 * Size and seed: `FLAGSTACK_IMPORTER_KILL_EVENTS` (default 100,000 records, about 35 s on 2 cores;
 * the 500,000 take about 105 s), `FLAGSTACK_IMPORTER_KILL_ROUNDS` (default 10),
 * `FLAGSTACK_IMPORTER_KILL_SEED` (printed on every run; replays the same kill delays, though not
 * the same timings of a loaded machine).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { mulberry32 } from "../../emulator/middleware/faults";
import { type JournalEntry, readJournal } from "../../sdk/events/import/journal";

const ROOT = resolve(__dirname, "../..");
const TSX = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
// What bin/flagstack.js does, on the TypeScript sources.
const RUNNER = `require(${JSON.stringify(join(ROOT, "cli/index.ts"))}).main(process.argv).catch((e) => { console.error("flagstack: " + e.message); process.exitCode = 1; })`;

const EVENTS = Number(process.env.FLAGSTACK_IMPORTER_KILL_EVENTS ?? 100_000);
const ROUNDS = Number(process.env.FLAGSTACK_IMPORTER_KILL_ROUNDS ?? 10);
const SEED = Number(process.env.FLAGSTACK_IMPORTER_KILL_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CONCURRENCY = 4;
const BATCH_SIZE = 500;
/** Server-side limit, below the client's rate: the importer keeps meeting 429s and pausing. */
const SERVER_RPS = 20;
const CLIENT_RPS = 40;
const LATENCY_MS = 25;
/** A kill lands this long (at most) after the run's first request reached the service. */
const MAX_KILL_DELAY_MS = 1500;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cli(
  cwd: string,
  url: string,
  sdkKey: string,
  args: string[],
): { child: ChildProcess; done: Promise<Exit> } {
  const child = spawn(
    process.execPath,
    ["--import", TSX, "-e", RUNNER, "flagstack", "events", "import", ...args],
    {
      cwd,
      env: {
        ...process.env,
        FLAGSTACK_EVENTS_URL: url,
        FLAGSTACK_SDK_KEY: sdkKey,
      },
      stdio: ["ignore", "pipe", "pipe"],
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
  const done = new Promise<Exit>((res) =>
    child.on("close", (code, signal) => res({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/**
 * `n` input lines, keys `<prefix>-<line>`. Every 1,000th line lacks its key and every 2,500th
 * holds a byte that is not UTF-8 in its key: both must land in the rejects file, never in the
 * service. Returns the file and the keys of the valid records.
 */
function writeInput(dir: string, prefix: string, n: number): { file: string; keys: Set<string> } {
  const parts: Buffer[] = [];
  const keys = new Set<string>();
  let text = "";
  for (let line = 1; line <= n; line++) {
    if (line % 2500 === 0) {
      parts.push(
        Buffer.from(text),
        Buffer.from(`{"eventTypeId":"view","trafficTypeName":"user","key":"${prefix}-`),
      );
      parts.push(
        Buffer.from([0xff, 0xfe]),
        Buffer.from(`-${line}","timestamp":${1_700_000_000_000 + line}}\n`),
      );
      text = "";
    } else if (line % 1000 === 0) {
      text += `{"eventTypeId":"view","trafficTypeName":"user","timestamp":${1_700_000_000_000 + line}}\n`;
    } else {
      keys.add(`${prefix}-${line}`);
      text += `{"eventTypeId":"view","trafficTypeName":"user","key":"${prefix}-${line}","timestamp":${1_700_000_000_000 + line}}\n`;
    }
  }
  parts.push(Buffer.from(text));
  const file = join(dir, `${prefix}.ndjson`);
  writeFileSync(file, Buffer.concat(parts));
  return { file, keys };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isUnknown = (e: JournalEntry) => e.status === "sent" || e.status === "unknown";

/** What one kill left, for the report. */
interface Round {
  round: number;
  delayMs: number;
  /** Events the service held for this import when the kill landed. */
  events: number;
  /** Batches this run left with an unknown outcome. */
  unknown: number;
  /** Of those, the ones the service turned out to hold / not to hold. */
  recorded: number;
  missing: number;
}

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), "importer-kill-"));
});
afterAll(async () => {
  await emu?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The last journal entry of the batch holding `line` (binary search over the line ranges). */
function batchAt(ranges: JournalEntry[], line: number): JournalEntry | undefined {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const e = ranges[mid]!;
    if (line < e.firstLine) hi = mid - 1;
    else if (line > e.lastLine) lo = mid + 1;
    else return e;
  }
  return undefined;
}

describe("event importer under kill -9", () => {
  it(`kill -9 of the importer at random moments, ${ROUNDS} rounds over ${EVENTS.toLocaleString("en-US")} events, ends with the emulator's event count equal to the valid records`, {
    timeout: 30 * 60_000,
  }, async () => {
    console.log(
      `importer-kill: seed ${SEED}, ${EVENTS} events, ${ROUNDS} rounds; replay with FLAGSTACK_IMPORTER_KILL_SEED=${SEED} FLAGSTACK_IMPORTER_KILL_EVENTS=${EVENTS} FLAGSTACK_IMPORTER_KILL_ROUNDS=${ROUNDS} npx vitest run test/reliability/importer-kill.test.ts`,
    );
    const rng = mulberry32(SEED);
    const prefix = `kill${SEED}`;
    const { file, keys } = writeInput(dir, prefix, EVENTS);
    const journalPath = `${file}.import-journal`;
    emu.setRateLimit({ requestsPerSecond: SERVER_RPS });
    emu.setFaults({ latencyMs: LATENCY_MS, apis: ["events"], seed: SEED });
    const args = [
      file,
      "--batch-size",
      String(BATCH_SIZE),
      "--concurrency",
      String(CONCURRENCY),
      "--requests-per-second",
      String(CLIENT_RPS),
      "--progress",
      "none",
    ];
    /** How many times the service holds each key of this import. */
    const held = () => {
      const out = new Map<string, number>();
      for (const e of emu.events())
        if (e.key.startsWith(`${prefix}-`)) out.set(e.key, (out.get(e.key) ?? 0) + 1);
      return out;
    };
    const lineOf = (key: string) => Number(key.slice(prefix.length + 1));
    const bulkRequests = () => emu.requests().filter((r) => r.path === "/api/events/bulk").length;

    // The operator's decisions about unknown batches, passed to the next run.
    let markAccepted: number[] = [];
    let resend: number[] = [];
    const resolution = () => [
      ...(markAccepted.length > 0 ? ["--mark-accepted", markAccepted.join(",")] : []),
      ...(resend.length > 0 ? ["--resend-batches", resend.join(",")] : []),
    ];
    const rounds: Round[] = [];

    for (let round = 1; round <= ROUNDS; round++) {
      const before = (await readJournal(journalPath))?.batches ?? new Map<number, JournalEntry>();
      const requestsBefore = bulkRequests();
      const delayMs = Math.floor(rng() * MAX_KILL_DELAY_MS);
      const run = cli(dir, emu.url, emu.sdkKey, [...args, ...resolution()]);
      // Wait for this run's first request to reach the service, then let it go on a while.
      let exited: Exit | undefined;
      void run.done.then((r) => {
        exited = r;
      });
      while (bulkRequests() === requestsBefore && !exited) await sleep(5);
      // Every batch was accepted before this run had anything to send (a small input).
      if (exited?.code === 0) break;
      if (exited)
        throw new Error(
          `round ${round}: the importer exited (${exited.code}) before sending: ${exited.stderr}`,
        );
      await sleep(delayMs);
      run.child.kill("SIGKILL");
      const r = await run.done;
      if (r.signal !== "SIGKILL") {
        // It finished before the kill landed: nothing is left to resume.
        expect(r.code, r.stderr).toBe(0);
        break;
      }
      // Let the service finish what reached it before the operator looks.
      await sleep(LATENCY_MS + 250);

      const after = (await readJournal(journalPath))?.batches ?? new Map<number, JournalEntry>();
      // Batches this run left unknown: their last entry is new and says the request may be out.
      const unknown = [...after.values()].filter((e) => {
        const was = before.get(e.batch);
        return isUnknown(e) && !(was && was.status === e.status && was.at === e.at);
      });
      expect(unknown.length, `round ${round}: batches left unknown`).toBeLessThanOrEqual(CONCURRENCY);
      const stored = held();
      expect(
        [...stored.entries()].filter(([, c]) => c > 1),
        `round ${round}: duplicates`,
      ).toEqual([]);
      // Exact, the other way round: every event the service holds belongs to a batch the journal
      // lists as acknowledged or in flight, never to one a resumed run sends (refused, failed,
      // or not journaled at all).
      const ranges = [...after.values()].sort((a, b) => a.firstLine - b.firstLine);
      const heldElsewhere = new Map<string, number>();
      for (const key of stored.keys()) {
        const status = batchAt(ranges, lineOf(key))?.status ?? "not journaled";
        if (status !== "acked" && status !== "sent" && status !== "unknown")
          heldElsewhere.set(status, (heldElsewhere.get(status) ?? 0) + 1);
      }
      expect(Object.fromEntries(heldElsewhere), `round ${round}: events held of batches to send`).toEqual({});

      // The operator checks every unknown batch in the service (this kill's, and earlier ones
      // this run did not get to): its events are all there or none is.
      let recorded = 0;
      let missing = 0;
      markAccepted = [];
      resend = [];
      for (const e of [...after.values()].filter(isUnknown)) {
        let present = 0;
        let count = 0;
        for (let line = e.firstLine; line <= e.lastLine; line++) {
          const key = `${prefix}-${line}`;
          if (!keys.has(key)) continue;
          count++;
          if (stored.has(key)) present++;
        }
        expect(count, `batch ${e.batch}`).toBe(e.count);
        expect([0, count], `batch ${e.batch}: ${present} of ${count} events held`).toContain(present);
        if (present === count) markAccepted.push(e.batch);
        else resend.push(e.batch);
        if (unknown.includes(e)) {
          if (present === count) recorded++;
          else missing++;
        }
      }
      const events = [...stored.values()].reduce((a, b) => a + b, 0);
      rounds.push({ round, delayMs, events, unknown: unknown.length, recorded, missing });
    }

    const last = await cli(dir, emu.url, emu.sdkKey, [...args, "--json", ...resolution()]).done;
    emu.setRateLimit(null);
    emu.setFaults({});
    const stored = held();
    console.table(rounds);
    console.log(
      `importer-kill: ${keys.size} valid records expected, ${[...stored.values()].reduce((a, b) => a + b, 0)} events held (${stored.size} distinct); ` +
        `resent after a check: ${rounds.reduce((n, r) => n + r.missing, 0)} batches, marked accepted: ${rounds.reduce((n, r) => n + r.recorded, 0)}`,
    );
    expect(last.code, last.stderr).toBe(0);
    expect(JSON.parse(last.stdout)).toMatchObject({
      complete: true,
      read: EVENTS,
      valid: keys.size,
      rejected: EVENTS - keys.size,
      unknown: 0,
      failed: 0,
    });
    expect([...stored.entries()].filter(([, c]) => c > 1)).toEqual([]);
    expect([...keys].filter((k) => !stored.has(k))).toEqual([]);
    expect(stored.size).toBe(keys.size);
    expect(emu.eventCount()).toBe(keys.size);
    const rejects = readFileSync(`${file}.rejects.ndjson`, "utf8").trimEnd().split("\n");
    expect(rejects).toHaveLength(EVENTS - keys.size);
  });

  it("kill -9 while every batch waits out a 429's pause, 3 rounds: no batch is left unknown, and the resume sends each exactly once", async () => {
    const prefix = `pause${SEED}`;
    const { file, keys } = writeInput(dir, prefix, 50_000);
    const countBefore = emu.eventCount();
    const journalPath = `${file}.import-journal`;
    // No latency: a request on the wire is answered within milliseconds, so 300 ms after a 429
    // every batch of the importer is waiting in the client (the pause lasts a second).
    emu.setRateLimit({ requestsPerSecond: SERVER_RPS });
    emu.setFaults({});
    const bulk = () => emu.requests().filter((r) => r.path === "/api/events/bulk");
    const args = [
      file,
      "--batch-size",
      String(BATCH_SIZE),
      "--concurrency",
      String(CONCURRENCY),
      "--requests-per-second",
      String(CLIENT_RPS),
      "--progress",
      "none",
    ];
    const unknownAfterKill: number[] = [];
    const refusedAfterKill: number[] = [];
    for (let round = 1; round <= 3; round++) {
      const seen = bulk().length;
      const run = cli(dir, emu.url, emu.sdkKey, args);
      let exited: Exit | undefined;
      void run.done.then((r) => {
        exited = r;
      });
      let refusedAt: number | undefined;
      while (refusedAt === undefined) {
        if (exited)
          throw new Error(
            `round ${round}: the importer exited (${exited.code}) before a 429: ${exited.stderr}`,
          );
        refusedAt = bulk()
          .slice(seen)
          .find((r) => r.status === 429)?.at;
        await sleep(5);
      }
      await sleep(300);
      const killedAt = Date.now();
      run.child.kill("SIGKILL");
      expect((await run.done).signal).toBe("SIGKILL");
      // The premise: nothing reached the service between the 429 and the kill.
      expect(bulk().filter((r) => r.at > refusedAt! + 5 && r.at <= killedAt)).toEqual([]);
      const batches = [...((await readJournal(journalPath))?.batches.values() ?? [])];
      unknownAfterKill.push(batches.filter(isUnknown).length);
      refusedAfterKill.push(batches.filter((e) => e.status === "refused").length);
    }
    const last = await cli(dir, emu.url, emu.sdkKey, [...args, "--json"]).done;
    emu.setRateLimit(null);
    console.log(
      `importer-kill (429 pause): unknown batches after each kill ${JSON.stringify(unknownAfterKill)}, refused ${JSON.stringify(refusedAfterKill)}`,
    );
    expect(unknownAfterKill).toEqual([0, 0, 0]);
    // Each kill caught at least the batch that got the 429 journaled as refused.
    for (const n of refusedAfterKill) expect(n).toBeGreaterThanOrEqual(1);
    expect(last.code, last.stderr).toBe(0);
    expect(JSON.parse(last.stdout)).toMatchObject({ complete: true, valid: keys.size, unknown: 0 });
    const stored = new Map<string, number>();
    for (const e of emu.events())
      if (e.key.startsWith(`${prefix}-`)) stored.set(e.key, (stored.get(e.key) ?? 0) + 1);
    expect([...stored.entries()].filter(([, c]) => c > 1)).toEqual([]);
    expect([...keys].filter((k) => !stored.has(k))).toEqual([]);
    expect(stored.size).toBe(keys.size);
    expect(emu.eventCount() - countBefore).toBe(keys.size);
  });
});
