import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../../emulator";
import {
  type BatchEvent,
  ImportError,
  type ImportSummary,
  importEvents,
} from "../../../../sdk/events/import";
import { readJournal } from "../../../../sdk/events/import/journal";
import { startGateProxy } from "./gate-proxy";
import { expectedRejects, type FixtureLine, fixture, ndjsonOf, stored } from "./helpers";

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.stop();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "import-"));
  emu.setFaults({});
  emu.setRateLimit(null);
  return () => rmSync(dir, { recursive: true, force: true });
});

let prefixes = 0;
const newPrefix = () => `t${++prefixes}-${Date.now().toString(36)}`;

/** The events the emulator holds for keys of this prefix, as plain records, sorted by key. */
function eventsOf(prefix: string): Record<string, unknown>[] {
  return emu
    .events()
    .filter((e) => e.key.startsWith(`${prefix}-`))
    .map(({ environmentId: _i, environmentName: _n, ...r }) =>
      Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)),
    )
    .sort(byKey);
}
const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  String(a.key).localeCompare(String(b.key));
const validOf = (lines: FixtureLine[]) =>
  lines.flatMap((l) => (l.kind === "valid" ? [stored(l.record)] : [])).sort(byKey);
const readLines = (path: string) =>
  readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
const rejectsMatcher = (lines: FixtureLine[]) =>
  expectedRejects(lines).map((r) => ({
    ...r,
    reason: r.reason instanceof RegExp ? expect.stringMatching(r.reason) : r.reason,
  }));

/** Lines and size of batch `index` of a fixture cut in batches of `size` valid records. */
function batchOf(lines: FixtureLine[], size: number, index: number) {
  const valid = lines.flatMap((l, i) => (l.kind === "valid" ? [i + 1] : []));
  const mine = valid.slice(index * size, (index + 1) * size);
  return { batch: index, firstLine: mine[0]!, lastLine: mine.at(-1)!, count: mine.length };
}

const base = () => ({
  eventsUrl: emu.url,
  sdkKey: emu.sdkKey,
  requestsPerSecond: Number.POSITIVE_INFINITY,
  syncJournal: false,
});

describe("importEvents against the emulator", () => {
  it("imports a file of mixed valid and invalid records with exact counts, rejects and journal", async () => {
    const prefix = newPrefix();
    const lines = fixture(prefix, 1000);
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(lines));
    const valid = validOf(lines);
    const rejected = expectedRejects(lines).length;
    expect(valid.length).toBe(973);
    expect(rejected).toBe(23);

    const summary = await importEvents({ ...base(), input: file, batchSize: 100 });

    expect(summary).toEqual<ImportSummary>({
      input: file,
      format: "ndjson",
      journal: `${file}.import-journal`,
      rejectsFile: `${file}.rejects.ndjson`,
      batchSize: 100,
      maxBatchBytes: 4 * 1024 * 1024,
      read: 996,
      valid: 973,
      rejected: 23,
      sent: 973,
      accepted: 973,
      alreadyAccepted: 0,
      unknown: 0,
      failed: 0,
      batches: { total: 10, sent: 10, accepted: 10, alreadyAccepted: 0, unknown: 0, failed: 0 },
      unknownBatches: [],
      failedBatches: [],
      dryRun: false,
      interrupted: false,
      complete: true,
      elapsedMs: expect.any(Number),
    });
    expect(eventsOf(prefix)).toEqual(valid);
    expect(readLines(`${file}.rejects.ndjson`)).toEqual(rejectsMatcher(lines));

    const journal = readLines(`${file}.import-journal`);
    expect(journal[0]).toMatchObject({
      journal: "flagstack-events-import",
      version: 1,
      input: file,
      format: "ndjson",
      batchSize: 100,
    });
    const entries = journal.slice(1);
    expect(entries).toHaveLength(20);
    for (let b = 0; b < 10; b++) {
      const mine = entries.filter((e) => e.batch === b).map((e) => e.status);
      expect(mine).toEqual(["sent", "acked"]);
    }
    expect(entries.find((e) => e.batch === 0)).toMatchObject({ firstLine: 1, count: 100 });
    expect(entries.find((e) => e.batch === 9 && e.status === "acked")).toMatchObject({
      lastLine: 1000,
      count: 73,
    });

    // The same command again: everything was acknowledged, nothing is sent.
    const again = await importEvents({ ...base(), input: file });
    expect(again).toMatchObject({
      read: 996,
      rejected: 23,
      sent: 0,
      accepted: 0,
      alreadyAccepted: 973,
      complete: true,
      batchSize: 100,
    });
    expect(eventsOf(prefix)).toEqual(valid);
    expect(readLines(`${file}.rejects.ndjson`)).toEqual(rejectsMatcher(lines));
  });

  it("reads the same events from NDJSON, a JSON array, CSV and standard input", async () => {
    const prefixes = { ndjson: newPrefix(), json: newPrefix(), csv: newPrefix(), stdin: newPrefix() };
    const make = (p: string) => fixture(p, 300).filter((l) => l.kind === "valid");
    const lines = Object.fromEntries(Object.entries(prefixes).map(([k, p]) => [k, make(p)])) as Record<
      keyof typeof prefixes,
      FixtureLine[]
    >;

    writeFileSync(join(dir, "a.ndjson"), ndjsonOf(lines.ndjson));
    writeFileSync(join(dir, "a.json"), `[\n${lines.json.map((l) => `  ${l.text}`).join(",\n")}\n]\n`);
    const csvRow = (r: Record<string, unknown>) =>
      [
        r.eventTypeId,
        r.trafficTypeName,
        r.key,
        r.timestamp,
        r.value ?? "",
        r.properties ? `"${JSON.stringify(r.properties).replaceAll('"', '""')}"` : "",
      ].join(",");
    writeFileSync(
      join(dir, "a.csv"),
      `eventTypeId,trafficTypeName,key,timestamp,value,properties\n${lines.csv.map((l) => csvRow((l as { record: Record<string, unknown> }).record)).join("\n")}\n`,
    );

    const results = {
      ndjson: await importEvents({ ...base(), input: join(dir, "a.ndjson"), batchSize: 64 }),
      json: await importEvents({ ...base(), input: join(dir, "a.json"), batchSize: 64 }),
      csv: await importEvents({ ...base(), input: join(dir, "a.csv"), batchSize: 64 }),
      stdin: await importEvents({
        ...base(),
        input: "-",
        stdin: Readable.from([Buffer.from(ndjsonOf(lines.stdin))]),
        rejects: false,
        batchSize: 64,
      }),
    };
    for (const k of Object.keys(prefixes) as (keyof typeof prefixes)[]) {
      expect(results[k]).toMatchObject({
        read: lines[k].length,
        accepted: lines[k].length,
        rejected: 0,
        complete: true,
      });
      expect(eventsOf(prefixes[k])).toEqual(validOf(lines[k]));
    }
    expect(results.json.format).toBe("json");
    expect(results.csv.format).toBe("csv");
    expect(results.stdin).toMatchObject({ input: "-", format: "ndjson", journal: undefined });
  });

  it("stops at a deterministic point on abort and resumes: each valid event exactly once", async () => {
    const prefix = newPrefix();
    const lines = fixture(prefix, 1200);
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(lines));
    const ac = new AbortController();
    const seen: BatchEvent[] = [];
    const first = await importEvents({
      ...base(),
      input: file,
      batchSize: 100,
      concurrency: 1,
      signal: ac.signal,
      onBatch: (e) => {
        seen.push(e);
        if (e.outcome === "acked" && e.batch === 3) ac.abort();
      },
    });
    expect(first).toMatchObject({ interrupted: true, complete: false, accepted: 400, sent: 400, unknown: 0 });
    expect(seen.map((e) => `${e.batch}:${e.outcome}`)).toEqual(["0:acked", "1:acked", "2:acked", "3:acked"]);
    expect(eventsOf(prefix)).toHaveLength(400);

    const second = await importEvents({ ...base(), input: file, concurrency: 3 });
    expect(second).toMatchObject({
      interrupted: false,
      complete: true,
      alreadyAccepted: 400,
      accepted: 768,
      sent: 768,
    });
    expect(eventsOf(prefix)).toEqual(validOf(lines));
  });

  it("reports a batch whose connection dropped after sending as unknown and re-sends it only when asked", async () => {
    const prefix = newPrefix();
    const lines = fixture(prefix, 500);
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(lines));
    // Request 1 (the second batch) reaches the emulator, but its 202 never reaches the importer.
    const proxy = await startGateProxy(emu.url, (i) => (i === 1 ? "drop-after" : "forward"));
    try {
      const first = await importEvents({
        ...base(),
        eventsUrl: proxy.url,
        input: file,
        batchSize: 100,
        concurrency: 1,
      });
      expect(first).toMatchObject({ complete: false, accepted: 387, unknown: 100, failed: 0 });
      expect(first.unknownBatches).toEqual([
        { ...batchOf(lines, 100, 1), error: expect.stringMatching(/outcome is unknown/) },
      ]);
      expect(eventsOf(prefix)).toEqual(validOf(lines));
      const journal = await readJournal(`${file}.import-journal`);
      expect(journal?.batches.get(1)?.status).toBe("unknown");

      // Re-run: nothing is re-sent; the unknown batch is reported again.
      const second = await importEvents({ ...base(), eventsUrl: proxy.url, input: file });
      expect(second).toMatchObject({ sent: 0, alreadyAccepted: 387, unknown: 100, complete: false });
      expect(second.unknownBatches).toEqual([
        { ...batchOf(lines, 100, 1), error: expect.stringMatching(/outcome is unknown/) },
      ]);
      expect(eventsOf(prefix)).toEqual(validOf(lines));
    } finally {
      await proxy.close();
    }
  });

  it("sends an unknown batch that never arrived again with resendUnknown", async () => {
    const prefix = newPrefix();
    const lines = fixture(prefix, 500);
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(lines));
    // Request 2 is held, then its connection is cut: the importer cannot know it never arrived.
    const proxy = await startGateProxy(emu.url, (i) => (i === 2 ? "hold" : "forward"));
    try {
      void proxy.waitHeld(1).then(() => proxy.cutHeld());
      const first = await importEvents({
        ...base(),
        eventsUrl: proxy.url,
        input: file,
        batchSize: 100,
        concurrency: 1,
      });
      expect(first).toMatchObject({ accepted: 387, unknown: 100 });
      expect(first.unknownBatches).toEqual([
        { ...batchOf(lines, 100, 2), error: expect.stringMatching(/outcome is unknown/) },
      ]);
      expect(eventsOf(prefix)).toHaveLength(387);

      const second = await importEvents({
        ...base(),
        eventsUrl: proxy.url,
        input: file,
        resendUnknown: true,
      });
      expect(second).toMatchObject({
        sent: 100,
        accepted: 100,
        alreadyAccepted: 387,
        unknown: 0,
        complete: true,
      });
      expect(eventsOf(prefix)).toEqual(validOf(lines));
    } finally {
      await proxy.close();
    }
  });

  it("gives the same result under injected 429s and 503s and a server-side rate limit", async () => {
    const prefix = newPrefix();
    const lines = fixture(prefix, 1000);
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(lines));
    emu.setFaults({ rate429: 0.15, rate503: 0.3, seed: 42, apis: ["events"] });
    emu.setRateLimit({ requestsPerSecond: 8 });
    const retries: number[] = [];
    const summary = await importEvents({
      ...base(),
      input: file,
      batchSize: 100,
      onRetry: (e) => retries.push(e.batch),
    });
    emu.setFaults({});
    emu.setRateLimit(null);
    expect(summary).toMatchObject({
      read: 996,
      valid: 973,
      rejected: 23,
      sent: 973,
      accepted: 973,
      unknown: 0,
      failed: 0,
      complete: true,
    });
    expect(summary.batches).toEqual({
      total: 10,
      sent: 10,
      accepted: 10,
      alreadyAccepted: 0,
      unknown: 0,
      failed: 0,
    });
    expect(retries.length).toBeGreaterThan(0);
    expect(eventsOf(prefix)).toEqual(validOf(lines));
  });

  it("journals a batch as sent before each attempt is written, and as refused after each 429 or 503, before the wait", async () => {
    const prefix = newPrefix();
    const lines = fixture(prefix, 600);
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(lines));
    // One batch at a time, so the request log and the journal are in the same order.
    emu.setFaults({ rate429: 0.15, rate503: 0.3, seed: 7, apis: ["events"] });
    emu.resetRequests();
    const summary = await importEvents({ ...base(), input: file, batchSize: 100, concurrency: 1 });
    emu.setFaults({});
    expect(summary).toMatchObject({ complete: true, accepted: 584, sent: 584 });
    expect(summary.batches).toMatchObject({ total: 6, sent: 6, accepted: 6 });
    const statuses = emu
      .requests()
      .filter((r) => r.path === "/api/events/bulk")
      .map((r) => r.status);
    expect(statuses.filter((st) => st === 429).length).toBeGreaterThan(0);
    expect(statuses.filter((st) => st === 503).length).toBeGreaterThan(0);
    const entries = readLines(`${file}.import-journal`).slice(1);
    let batch = 0;
    const expected: string[] = [];
    for (const st of statuses) {
      expected.push(`${batch}:sent`, `${batch}:${st === 202 ? "acked" : "refused"}`);
      if (st === 202) batch++;
    }
    expect(entries.map((e) => `${e.batch}:${e.status}`)).toEqual(expected);
    expect(entries.filter((e) => e.status === "refused").map((e) => e.error)).toEqual(
      statuses.filter((st) => st !== 202).map((st) => `HTTP ${st}`),
    );
    expect(eventsOf(prefix)).toEqual(validOf(lines));
  });

  it("journals a batch as sent before calling a client that cannot say when it writes", async () => {
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(fixture(newPrefix(), 250)));
    const seen: string[] = [];
    const summary = await importEvents({
      input: file,
      batchSize: 100,
      concurrency: 1,
      syncJournal: false,
      client: {
        async bulk(records) {
          // What the journal says while this client holds the batch.
          const last = readLines(`${file}.import-journal`).at(-1);
          seen.push(`${last.batch}:${last.status}:${records.length}`);
        },
      },
    });
    expect(summary).toMatchObject({ complete: true, accepted: 244 });
    expect(seen).toEqual(["0:sent:100", "1:sent:100", "2:sent:44"]);
  });

  it("resends the unknown batches named in resendBatches and records those in markAccepted, refusing any other", async () => {
    const prefix = newPrefix();
    const lines = fixture(prefix, 700);
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(lines));
    // Batch 1's answer is lost after the service recorded it; batch 3 never reaches it.
    const proxy = await startGateProxy(emu.url, (i) =>
      i === 1 ? "drop-after" : i === 3 ? "hold" : "forward",
    );
    try {
      void proxy.waitHeld(1).then(() => proxy.cutHeld());
      const first = await importEvents({
        ...base(),
        eventsUrl: proxy.url,
        input: file,
        batchSize: 100,
        concurrency: 1,
      });
      expect(first.unknownBatches.map((b) => b.batch)).toEqual([1, 3]);
      expect(eventsOf(prefix)).toHaveLength(validOf(lines).length - 100);

      const again = (o: { resendBatches?: number[]; markAccepted?: number[] }) =>
        importEvents({ ...base(), eventsUrl: proxy.url, input: file, ...o });
      await expect(again({ resendBatches: [3], markAccepted: [3] })).rejects.toMatchObject({
        name: "ConfigurationError",
        option: "resendBatches",
        message:
          "importEvents: invalid option resendBatches: batch 3 is also in markAccepted; the service either holds its events or lacks them",
      });
      await expect(again({ resendBatches: [2] })).rejects.toMatchObject({
        name: "ConfigurationError",
        option: "resendBatches",
        message:
          "importEvents: invalid option resendBatches: batch 2 is not a batch whose outcome is unknown (its last journal entry is acked); nothing was sent",
      });
      await expect(again({ markAccepted: [40] })).rejects.toMatchObject({
        name: "ConfigurationError",
        option: "markAccepted",
        message:
          "importEvents: invalid option markAccepted: batch 40 is not a batch whose outcome is unknown (the journal has no entry for it); nothing was sent",
      });
      expect(eventsOf(prefix)).toHaveLength(validOf(lines).length - 100);

      const last = await again({ markAccepted: [1], resendBatches: [3] });
      expect(last).toMatchObject({
        sent: 100,
        accepted: 100,
        alreadyAccepted: validOf(lines).length - 100,
        unknown: 0,
        complete: true,
      });
      const journal = await readJournal(`${file}.import-journal`);
      expect(journal?.batches.get(1)).toMatchObject({ status: "acked", by: "operator" });
      expect(journal?.batches.get(3)).toMatchObject({ status: "acked" });
      expect(journal?.batches.get(3)?.by).toBeUndefined();
      expect(eventsOf(prefix)).toEqual(validOf(lines));
    } finally {
      await proxy.close();
    }
  });

  it("dry run: validates and counts, writes the rejects, sends nothing and writes no journal", async () => {
    const prefix = newPrefix();
    const lines = fixture(prefix, 300);
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(lines));
    const before = emu.requests().length;
    const summary = await importEvents({ input: file, dryRun: true, batchSize: 100 });
    expect(summary).toMatchObject({
      read: 299,
      valid: 292,
      rejected: 7,
      sent: 0,
      accepted: 0,
      dryRun: true,
      complete: false,
    });
    expect(summary.batches.total).toBe(3);
    expect(emu.requests().length).toBe(before);
    expect(existsSync(`${file}.import-journal`)).toBe(false);
    expect(readLines(`${file}.rejects.ndjson`)).toEqual(rejectsMatcher(lines));
  });

  it("stops on a wrong key without sending the rest, and says which key", async () => {
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(fixture(newPrefix(), 300)));
    const p = importEvents({ ...base(), sdkKey: emu.adminKey, input: file, batchSize: 50, concurrency: 1 });
    await expect(p).rejects.toBeInstanceOf(ImportError);
    await expect(p).rejects.toMatchObject({
      message: expect.stringMatching(/^event import stopped: POST \/api\/events\/bulk: 401 .*SDK key/),
      summary: { accepted: 0, failed: 50, complete: false },
    });
  });

  it("refuses to resume with another batch size or a changed file, sending nothing", async () => {
    const prefix = newPrefix();
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(fixture(prefix, 300)));
    await importEvents({ ...base(), input: file, batchSize: 100 });
    const count = eventsOf(prefix).length;
    await expect(importEvents({ ...base(), input: file, batchSize: 50 })).rejects.toMatchObject({
      name: "JournalError",
      message: expect.stringMatching(
        /was written with --batch-size 100 \(this run: 50\)\. .*re-run with --batch-size 100 to resume/,
      ),
    });
    writeFileSync(file, ndjsonOf(fixture(prefix, 301)));
    await expect(importEvents({ ...base(), input: file })).rejects.toMatchObject({
      name: "JournalError",
      message: expect.stringMatching(
        /changed since the journal .* was written \(its size went from \d+ to \d+ bytes\)/,
      ),
    });
    expect(eventsOf(prefix)).toHaveLength(count);
  });

  it("verifies each journaled batch when re-read: a changed standard input is refused at the first batch that differs", async () => {
    const prefix = newPrefix();
    const journal = join(dir, "stdin.import-journal");
    const lines = fixture(prefix, 300).filter((l) => l.kind === "valid");
    const stdin = (text: string) => Readable.from([Buffer.from(text)]);
    const first = await importEvents({
      ...base(),
      input: "-",
      journal,
      rejects: false,
      batchSize: 100,
      stdin: stdin(ndjsonOf(lines)),
    });
    expect(first).toMatchObject({ accepted: lines.length, complete: true, journal });
    // Same input again: all skipped.
    const again = await importEvents({
      ...base(),
      input: "-",
      journal,
      rejects: false,
      stdin: stdin(ndjsonOf(lines)),
    });
    expect(again).toMatchObject({ sent: 0, alreadyAccepted: lines.length });
    // One record of the second batch edited: batch 0 still matches, batch 1 does not.
    const edited = lines.map((l, i) => (i === 150 ? l.text.replace(`"${prefix}-`, `"${prefix}-x`) : l.text));
    const p = importEvents({
      ...base(),
      input: "-",
      journal,
      rejects: false,
      stdin: stdin(`${edited.join("\n")}\n`),
    });
    await expect(p).rejects.toMatchObject({
      name: "JournalError",
      message: expect.stringMatching(
        /^Batch 1 \(lines 101-200\) is not the batch 1 the journal .* recorded \(lines 101-200, 100 records, status acked\): the input changed/,
      ),
      summary: { sent: 0, alreadyAccepted: 100 },
    });
    expect(eventsOf(prefix)).toHaveLength(lines.length);
  });

  it("refuses a second import on the same journal while the first runs", async () => {
    const file = join(dir, "events.ndjson");
    writeFileSync(file, ndjsonOf(fixture(newPrefix(), 300)));
    const proxy = await startGateProxy(emu.url, (i) => (i === 0 ? "hold" : "forward"));
    try {
      const first = importEvents({
        ...base(),
        eventsUrl: proxy.url,
        input: file,
        batchSize: 100,
        concurrency: 1,
      });
      await proxy.waitHeld(1);
      await expect(importEvents({ ...base(), input: file })).rejects.toMatchObject({
        name: "JournalError",
        message: `Another import (pid ${process.pid}) is using the journal ${file}.import-journal. Wait for it to finish, or if no such import is running, remove ${file}.import-journal.lock.`,
      });
      proxy.releaseHeld();
      expect(await first).toMatchObject({ complete: true });
    } finally {
      await proxy.close();
    }
  });

  it.each([
    [
      { batchSize: 0 },
      "importEvents: invalid option batchSize: batchSize must be a whole number from 1 to 5000",
    ],
    [
      { batchSize: 5001 },
      "importEvents: invalid option batchSize: batchSize must be a whole number from 1 to 5000",
    ],
    [
      { concurrency: 17 },
      "importEvents: invalid option concurrency: concurrency must be a whole number from 1 to 16",
    ],
    [{ format: "xml" }, "importEvents: invalid option format: format must be one of ndjson, json, csv"],
  ])("refuses the option %j, naming it", async (opt, message) => {
    await expect(importEvents({ input: "x.ndjson", ...(opt as object) })).rejects.toMatchObject({
      name: "ConfigurationError",
      message,
    });
  });

  it("names the missing URL and key", async () => {
    const file = join(dir, "e.ndjson");
    writeFileSync(file, "");
    await expect(importEvents({ input: file, env: {} })).rejects.toMatchObject({
      message: expect.stringMatching(/missing base URL: pass \{ baseUrl \} or set FLAGSTACK_EVENTS_URL/),
    });
    await expect(importEvents({ input: file, eventsUrl: emu.url, env: {} })).rejects.toMatchObject({
      message: expect.stringMatching(/missing sdkKey: pass \{ sdkKey \} or set FLAGSTACK_SDK_KEY/),
    });
  });
});
