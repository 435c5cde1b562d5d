/**
 * Progress of an import: a cli-progress bar on a terminal (records, rate, ETA from the bytes read
 * out of the file's size), plain periodic lines elsewhere (CI logs, pipes), or nothing; and the
 * final summary text.
 * @module
 */
import { SingleBar } from "cli-progress";
import type { ImportSummary } from "./import-events";

/** What became of an import's records so far: the counts its progress and its summary share. */
export interface ImportCounts {
  /** Records read (valid and invalid). */
  read: number;
  /** Invalid records (written to the rejects file). */
  rejected: number;
  /** Records in batches sent by this run. */
  sent: number;
  /** Records acknowledged (202) in this run. */
  accepted: number;
  /** Records acknowledged by an earlier run (not sent again). */
  alreadyAccepted: number;
  /** Records whose outcome is unknown (not sent again). */
  unknown: number;
  /** Records in batches the service refused (a re-run sends them again). */
  failed: number;
}

/** Where an import stands; passed to `onProgress` and to a {@link ProgressReporter}. */
export interface ImportProgress extends ImportCounts {
  /** Input bytes consumed, and the input's size when known (a regular file). */
  bytesRead: number;
  totalBytes: number | undefined;
  elapsedMs: number;
}

/** `auto` is `bar` on a terminal and `lines` elsewhere. */
export const PROGRESS_MODES = ["auto", "bar", "lines", "none"] as const;
/** One of {@link PROGRESS_MODES}. */
export type ProgressMode = (typeof PROGRESS_MODES)[number];

/** Shows progress; `update` may be called often (it throttles itself). */
export interface ProgressReporter {
  update(p: ImportProgress): void;
  /** Draws the last state and releases the terminal. */
  stop(p: ImportProgress): void;
}

/** Options of {@link createProgressReporter}. */
export interface ProgressReporterOptions {
  /** Output stream; default `process.stderr`. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Minimum time between two lines in `lines` mode; default 5000 ms. */
  intervalMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** Creates the reporter for `mode` (see {@link ProgressMode}). */
export function createProgressReporter(
  mode: ProgressMode,
  opts: ProgressReporterOptions = {},
): ProgressReporter {
  const stream = opts.stream ?? process.stderr;
  const resolved = mode === "auto" ? (stream.isTTY ? "bar" : "lines") : mode;
  if (resolved === "none") return { update() {}, stop() {} };
  if (resolved === "lines") return new LinesReporter(stream, opts.intervalMs ?? 5000, opts.now ?? Date.now);
  return new BarReporter(stream, opts.now ?? Date.now);
}

/** Records per second over a sliding window of recent samples. */
export class RateMeter {
  private samples: { t: number; n: number }[] = [];
  constructor(private readonly windowMs = 10_000) {}
  /** Adds a sample (time, cumulative count) and returns the current rate. */
  sample(t: number, n: number): number {
    this.samples.push({ t, n });
    while (this.samples.length > 2 && t - this.samples[1]!.t >= this.windowMs) this.samples.shift();
    const first = this.samples[0]!;
    const dt = t - first.t;
    return dt > 0 ? ((n - first.n) * 1000) / dt : 0;
  }
}

const fmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
/** `1234567` → `1,234,567`. */
export const formatCount = (n: number): string => fmt.format(n);

const plural = (n: number, what: string): string =>
  `${formatCount(n)} ${what}${n === 1 ? "" : what.endsWith("ch") ? "es" : "s"}`;

/** `95000` → `1m35s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  let s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/** An ETA in whole seconds (sub-second precision would only flicker). */
export const formatEta = (ms: number): string =>
  formatDuration(Math.round(ms / 1000) * 1000).replace(/^0ms$/, "0s");

/** The estimated time left from the share of the input read so far. */
export function estimateRemainingMs(p: ImportProgress): number | undefined {
  if (!p.totalBytes || p.bytesRead <= 0 || p.elapsedMs <= 0) return undefined;
  const left = Math.max(0, p.totalBytes - p.bytesRead);
  return (left * p.elapsedMs) / p.bytesRead;
}

/** One progress line: `events: 45% | 120,000 read | 118,000 accepted | 12 rejected | 23,456/s | ETA 31s`. */
export function formatProgressLine(p: ImportProgress, rate: number): string {
  const parts: string[] = [];
  if (p.totalBytes) parts.push(`${Math.floor((100 * p.bytesRead) / p.totalBytes)}%`);
  parts.push(`${formatCount(p.read)} read`);
  if (p.alreadyAccepted > 0) parts.push(`${formatCount(p.alreadyAccepted)} accepted earlier`);
  parts.push(`${formatCount(p.accepted)} accepted`);
  parts.push(`${formatCount(p.rejected)} rejected`);
  if (p.unknown > 0) parts.push(`${formatCount(p.unknown)} unknown`);
  if (p.failed > 0) parts.push(`${formatCount(p.failed)} failed`);
  parts.push(`${formatCount(rate)}/s`);
  const eta = estimateRemainingMs(p);
  if (eta !== undefined) parts.push(`ETA ${formatEta(eta)}`);
  return `events: ${parts.join(" | ")}`;
}

class LinesReporter implements ProgressReporter {
  private last: number;
  private readonly rate = new RateMeter();
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {
    this.last = now();
  }
  update(p: ImportProgress): void {
    const t = this.now();
    const rate = this.rate.sample(t, p.read);
    if (t - this.last < this.intervalMs) return;
    this.last = t;
    this.stream.write(`${formatProgressLine(p, rate)}\n`);
  }
  stop(): void {
    // The summary follows; a last progress line would only repeat it.
  }
}

class BarReporter implements ProgressReporter {
  private readonly bar: SingleBar;
  private started = false;
  private readonly rate = new RateMeter();
  constructor(
    stream: NodeJS.WritableStream,
    private readonly now: () => number,
  ) {
    this.bar = new SingleBar({
      stream,
      hideCursor: true,
      clearOnComplete: false,
      fps: 5,
      etaBuffer: 50,
      barsize: 24,
      // Drawn when the bar is asked to, even if the stream is not a terminal (`--progress bar`).
      noTTYOutput: true,
      notTTYSchedule: 2000,
      format: (options, params, payload: BarPayload) => {
        const known = params.total > 0;
        const parts: string[] = [];
        if (known) {
          const complete = Math.round(params.progress * (options.barsize ?? 24));
          const size = options.barsize ?? 24;
          parts.push(
            `events ${"█".repeat(complete)}${"░".repeat(Math.max(0, size - complete))} ${Math.floor(params.progress * 100)}%`,
          );
        } else {
          parts.push("events");
        }
        parts.push(`${payload.read} records`);
        parts.push(`${payload.accepted} accepted`);
        if (payload.rejected !== "0") parts.push(`${payload.rejected} rejected`);
        if (payload.unknown !== "0") parts.push(`${payload.unknown} unknown`);
        parts.push(`${payload.rate}/s`);
        parts.push(known ? `ETA ${payload.eta}` : payload.elapsed);
        return parts.join(" | ");
      },
    });
  }
  private payload(p: ImportProgress, rate: number): BarPayload {
    const eta = estimateRemainingMs(p);
    return {
      read: formatCount(p.read),
      accepted: formatCount(p.accepted + p.alreadyAccepted),
      rejected: formatCount(p.rejected),
      unknown: formatCount(p.unknown),
      rate: formatCount(rate),
      eta: eta === undefined ? "?" : formatEta(eta),
      elapsed: formatDuration(p.elapsedMs),
    };
  }
  update(p: ImportProgress): void {
    const rate = this.rate.sample(this.now(), p.read);
    const payload = this.payload(p, rate);
    if (!this.started) {
      this.started = true;
      this.bar.start(p.totalBytes ?? 0, p.bytesRead, payload);
    } else {
      this.bar.update(p.bytesRead, payload);
    }
  }
  stop(p: ImportProgress): void {
    this.update(p);
    this.bar.stop();
  }
}

interface BarPayload {
  read: string;
  accepted: string;
  rejected: string;
  unknown: string;
  rate: string;
  eta: string;
  elapsed: string;
}

/** Batches listed one by one in the summary; the rest are counted. */
const MAX_LISTED = 20;

/**
 * The final summary: one figure per line (read, rejected, sent, accepted, accepted earlier,
 * unknown, failed, elapsed), then what is left to do: each batch whose outcome is unknown or that
 * failed, with its lines, and how to go on.
 */
export function formatSummary(s: ImportSummary): string {
  const rate = s.elapsedMs > 0 ? (s.accepted * 1000) / s.elapsedMs : 0;
  const rows: [string, string][] = [
    ["read", `${formatCount(s.read)} records`],
    [
      "rejected",
      `${formatCount(s.rejected)} invalid${s.rejected > 0 && s.rejectsFile ? ` (see ${s.rejectsFile})` : ""}`,
    ],
  ];
  if (s.dryRun) {
    rows.push([
      "valid",
      `${formatCount(s.valid)} records in ${plural(s.batches.total, "batch")} (dry run: nothing sent)`,
    ]);
    if (s.alreadyAccepted > 0)
      rows.push(["accepted earlier", `${formatCount(s.alreadyAccepted)} (by an earlier run)`]);
  } else {
    rows.push(["sent", `${formatCount(s.sent)} in ${plural(s.batches.sent, "request")}`]);
    rows.push([
      "accepted",
      `${formatCount(s.accepted)}${s.elapsedMs > 0 ? ` (${formatCount(rate)}/s)` : ""}`,
    ]);
    if (s.alreadyAccepted > 0)
      rows.push([
        "accepted earlier",
        `${formatCount(s.alreadyAccepted)} (by an earlier run, not sent again)`,
      ]);
    rows.push(["unknown", formatCount(s.unknown)]);
    if (s.failed > 0) rows.push(["failed", formatCount(s.failed)]);
  }
  rows.push(["elapsed", formatDuration(s.elapsedMs)]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  if (s.complete) lines.push(`Done: all ${formatCount(s.valid)} valid records are accepted.`);
  if (s.interrupted) {
    lines.push(
      `Interrupted: run the same command again to resume${s.journal ? ` (journal ${s.journal})` : ""}.`,
    );
  }
  for (const b of s.unknownBatches.slice(0, MAX_LISTED)) {
    lines.push(
      `unknown outcome: batch ${b.batch} (lines ${b.firstLine}-${b.lastLine}, ${b.count} records)${b.error ? `: ${b.error}` : ""}`,
    );
  }
  if (s.unknownBatches.length > MAX_LISTED)
    lines.push(`... and ${s.unknownBatches.length - MAX_LISTED} more unknown (see the journal)`);
  if (s.unknownBatches.length > 0) {
    const listed = s.unknownBatches.slice(0, MAX_LISTED).map((b) => b.batch);
    lines.push(
      "The service may or may not have recorded these batches (it records a batch whole or not at all, and the " +
        "import is not idempotent): check in the service for the events of their lines, then re-run with " +
        `--mark-accepted for the batches it holds and --resend-batches for those it lacks (e.g. --resend-batches ${listed.join(",")}).`,
    );
  }
  for (const b of s.failedBatches.slice(0, MAX_LISTED)) {
    lines.push(
      `failed: batch ${b.batch} (lines ${b.firstLine}-${b.lastLine}, ${b.count} records): ${b.error}`,
    );
  }
  if (s.failedBatches.length > MAX_LISTED)
    lines.push(`... and ${s.failedBatches.length - MAX_LISTED} more failed (see the journal)`);
  if (s.failedBatches.length > 0)
    lines.push("Failed batches were refused by the service; a re-run sends them again.");
  return `${lines.join("\n")}\n`;
}
