import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../../emulator";
import {
  type BatchEvent,
  ImportError,
  type ImportProgress,
  importEventsInWorker,
} from "../../../../sdk/events/import";
import { fixture, ndjsonOf } from "./helpers";

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.stop();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "import-worker-"));
  return () => rmSync(dir, { recursive: true, force: true });
});
const base = () => ({
  eventsUrl: emu.url,
  sdkKey: emu.sdkKey,
  requestsPerSecond: Number.POSITIVE_INFINITY,
  syncJournal: false,
});
const count = (prefix: string) => emu.events().filter((e) => e.key.startsWith(`${prefix}-`)).length;

describe("importEventsInWorker", () => {
  it("imports in a worker thread, forwarding progress and batch events", async () => {
    const file = join(dir, "e.ndjson");
    writeFileSync(file, ndjsonOf(fixture("w1", 400)));
    const batches: BatchEvent[] = [];
    const progress: ImportProgress[] = [];
    const summary = await importEventsInWorker({
      ...base(),
      input: file,
      batchSize: 100,
      onBatch: (e) => batches.push(e),
      onProgress: (p) => progress.push(p),
    });
    expect(summary).toMatchObject({ read: 399, valid: 390, rejected: 9, accepted: 390, complete: true });
    expect(batches.map((b) => b.outcome)).toEqual(["acked", "acked", "acked", "acked"]);
    expect(progress.at(-1)).toMatchObject({ read: 399, accepted: 390, bytesRead: expect.any(Number) });
    expect(count("w1")).toBe(390);
  });

  it("reads standard input piped into the worker", async () => {
    const lines = fixture("w2", 150).filter((l) => l.kind === "valid");
    const summary = await importEventsInWorker({
      ...base(),
      input: "-",
      rejects: false,
      stdin: Readable.from([ndjsonOf(lines)]),
    });
    expect(summary).toMatchObject({ input: "-", accepted: lines.length, complete: true });
    expect(count("w2")).toBe(lines.length);
  });

  it("stops on abort after the batches in flight", async () => {
    const file = join(dir, "e.ndjson");
    writeFileSync(file, ndjsonOf(fixture("w3", 2000)));
    const ac = new AbortController();
    const summary = await importEventsInWorker({
      ...base(),
      input: file,
      batchSize: 100,
      concurrency: 1,
      signal: ac.signal,
      onBatch: (e) => {
        if (e.batch === 1) ac.abort();
      },
    });
    expect(summary.interrupted).toBe(true);
    expect(summary.accepted).toBe(count("w3"));
    expect(summary.accepted).toBeLessThan(1946);
  });

  it("rebuilds the worker's errors with their type and summary", async () => {
    const file = join(dir, "e.ndjson");
    writeFileSync(file, ndjsonOf(fixture("w4", 100)));
    const wrongKey = importEventsInWorker({ ...base(), sdkKey: emu.adminKey, input: file, concurrency: 1 });
    await expect(wrongKey).rejects.toBeInstanceOf(ImportError);
    await expect(wrongKey).rejects.toMatchObject({ summary: { accepted: 0, complete: false } });
    await expect(importEventsInWorker({ ...base(), input: file, batchSize: 0 })).rejects.toMatchObject({
      name: "ConfigurationError",
      option: "batchSize",
      message: "importEvents: invalid option batchSize: batchSize must be a whole number from 1 to 5000",
    });
  });
});
