import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { ImportSummary } from "../../../../sdk/events/import";
import {
  createProgressReporter,
  estimateRemainingMs,
  formatDuration,
  formatProgressLine,
  formatSummary,
  type ImportProgress,
  RateMeter,
} from "../../../../sdk/events/import/progress";

const progress = (over: Partial<ImportProgress> = {}): ImportProgress => ({
  bytesRead: 500,
  totalBytes: 1000,
  read: 120_000,
  rejected: 12,
  sent: 119_000,
  accepted: 118_000,
  alreadyAccepted: 0,
  unknown: 0,
  failed: 0,
  elapsedMs: 10_000,
  ...over,
});

const summary = (over: Partial<ImportSummary> = {}): ImportSummary => ({
  input: "events.ndjson",
  format: "ndjson",
  journal: "events.ndjson.import-journal",
  rejectsFile: "events.ndjson.rejects.ndjson",
  batchSize: 1000,
  maxBatchBytes: 4194304,
  read: 1_000_012,
  valid: 1_000_000,
  rejected: 12,
  sent: 1_000_000,
  accepted: 1_000_000,
  alreadyAccepted: 0,
  unknown: 0,
  failed: 0,
  batches: { total: 1000, sent: 1000, accepted: 1000, alreadyAccepted: 0, unknown: 0, failed: 0 },
  unknownBatches: [],
  failedBatches: [],
  dryRun: false,
  interrupted: false,
  complete: true,
  elapsedMs: 8000,
  ...over,
});

describe("progress", () => {
  it.each([
    [0, "0ms"],
    [999, "999ms"],
    [1000, "1s"],
    [95_000, "1m35s"],
    [3_725_000, "1h02m"],
    [Number.NaN, "?"],
  ])("formatDuration(%d) = %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("estimates the time left from the share of bytes read", () => {
    expect(estimateRemainingMs(progress())).toBe(10_000);
    expect(estimateRemainingMs(progress({ totalBytes: undefined }))).toBeUndefined();
    expect(estimateRemainingMs(progress({ bytesRead: 0 }))).toBeUndefined();
  });

  it("measures the rate over a sliding window", () => {
    const m = new RateMeter(10_000);
    expect(m.sample(0, 0)).toBe(0);
    expect(m.sample(1000, 500)).toBe(500);
    expect(m.sample(2000, 1500)).toBe(750);
    // the window drops samples older than 10 s
    expect(m.sample(13_000, 2500)).toBe((2500 - 1500) / 11);
  });

  it("formats a progress line", () => {
    expect(formatProgressLine(progress(), 11_800)).toBe(
      "events: 50% | 120,000 read | 118,000 accepted | 12 rejected | 11,800/s | ETA 10s",
    );
    expect(
      formatProgressLine(progress({ totalBytes: undefined, unknown: 100, failed: 5, alreadyAccepted: 7 }), 3),
    ).toBe(
      "events: 120,000 read | 7 accepted earlier | 118,000 accepted | 12 rejected | 100 unknown | 5 failed | 3/s",
    );
  });

  it("prints a line at most every interval in lines mode, nothing in none mode", () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (c) => {
      text += c;
    });
    let now = 0;
    const r = createProgressReporter("lines", { stream: out, intervalMs: 1000, now: () => now });
    now = 500;
    r.update(progress());
    now = 1000;
    r.update(progress());
    now = 1500;
    r.update(progress());
    now = 2100;
    r.update(progress({ bytesRead: 1000 }));
    r.stop(progress());
    expect(text.split("\n").filter(Boolean)).toEqual([
      expect.stringMatching(/^events: 50% \| 120,000 read/),
      expect.stringMatching(/^events: 100% \| 120,000 read .* ETA 0s$/),
    ]);
    const silent = new PassThrough();
    const none = createProgressReporter("none", { stream: silent });
    none.update(progress());
    none.stop(progress());
    expect(silent.read()).toBeNull();
  });

  it("auto is lines when the stream is not a terminal", () => {
    const out = new PassThrough();
    let now = 0;
    const r = createProgressReporter("auto", { stream: out, intervalMs: 1, now: () => now });
    now = 10;
    r.update(progress());
    expect(String(out.read())).toMatch(/^events: 50% \|/);
  });

  it("draws a bar with records, rate and ETA", () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (c) => {
      text += c;
    });
    const r = createProgressReporter("bar", { stream: out });
    r.update(progress());
    r.stop(progress({ bytesRead: 1000 }));
    expect(text).toMatch(
      /events █+░* 100% \| 120,000 records \| 118,000 accepted \| 12 rejected \| [\d,]+\/s \| ETA 0s/,
    );
  });

  it("summarises a complete import", () => {
    expect(formatSummary(summary())).toBe(
      [
        "read      1,000,012 records",
        "rejected  12 invalid (see events.ndjson.rejects.ndjson)",
        "sent      1,000,000 in 1,000 requests",
        "accepted  1,000,000 (125,000/s)",
        "unknown   0",
        "elapsed   8s",
        "Done: all 1,000,000 valid records are accepted.",
        "",
      ].join("\n"),
    );
  });

  it("summarises what is left to do", () => {
    const text = formatSummary(
      summary({
        accepted: 997_000,
        alreadyAccepted: 1000,
        unknown: 1000,
        failed: 1000,
        complete: false,
        interrupted: true,
        unknownBatches: [
          { batch: 7, firstLine: 7001, lastLine: 8000, count: 1000, error: "connection reset" },
        ],
        failedBatches: [{ batch: 9, firstLine: 9001, lastLine: 10000, count: 1000, error: "400 bad" }],
      }),
    );
    expect(text).toContain("accepted earlier  1,000 (by an earlier run, not sent again)\n");
    expect(text).toContain("failed            1,000\n");
    expect(text).toContain(
      "Interrupted: run the same command again to resume (journal events.ndjson.import-journal).\n",
    );
    expect(text).toContain("unknown outcome: batch 7 (lines 7001-8000, 1000 records): connection reset\n");
    expect(text).toContain(
      "The service may or may not have recorded these batches (it records a batch whole or not at all, and the " +
        "import is not idempotent): check in the service for the events of their lines, then re-run with " +
        "--mark-accepted for the batches it holds and --resend-batches for those it lacks (e.g. --resend-batches 7).\n",
    );
    expect(text).toContain("failed: batch 9 (lines 9001-10000, 1000 records): 400 bad\n");
    expect(text).not.toContain("Done:");
  });

  it("lists at most 20 batches of each kind", () => {
    const many = Array.from({ length: 25 }, (_, i) => ({
      batch: i,
      firstLine: i * 10 + 1,
      lastLine: i * 10 + 10,
      count: 10,
      error: "x",
    }));
    const text = formatSummary(summary({ unknownBatches: many, failedBatches: many, complete: false }));
    expect(text.match(/^unknown outcome: /gm)).toHaveLength(20);
    expect(text.match(/^failed: /gm)).toHaveLength(20);
    expect(text).toContain("... and 5 more unknown (see the journal)\n");
    expect(text).toContain("... and 5 more failed (see the journal)\n");
  });
});
