/**
 * `importEvents`: the exact, resumable bulk import of tracking events (spec §4 "Event import").
 *
 * The input is streamed (NDJSON, JSON array or CSV), each record validated with `EventRecord`,
 * invalid ones written to the rejects file, and the valid ones cut into deterministic batches that
 * are sent with bounded concurrency. Reading waits while `concurrency` batches are in flight, so
 * memory stays flat whatever the input size. The journal (see `journal.ts`) makes a re-run resume:
 * batches acknowledged earlier are skipped, batches whose outcome is unknown are reported with
 * their lines and only re-sent when named in `resendBatches` (or with `resendUnknown`), or recorded
 * as acknowledged when named in `markAccepted`. A batch is journaled as sent only when its request
 * is about to be written (see `bulk-client.ts`), so a crash leaves at most `concurrency` of them.
 * @module
 */
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { z } from "zod";
import { ConfigurationError, parseOptions } from "../../core/options";
import {
  type Batch,
  Batcher,
  DEFAULT_BATCH_SIZE,
  DEFAULT_MAX_BATCH_BYTES,
  MAX_BATCH_SIZE,
  MIN_MAX_BATCH_BYTES,
} from "./batcher";
import { createBulkClient } from "./bulk-client";
import { readCsv } from "./csv-reader";
import {
  checkCompatible,
  fingerprintFile,
  JOURNAL_KIND,
  Journal,
  type JournalEntry,
  JournalError,
  type JournalHeader,
  readJournal,
} from "./journal";
import { readJsonArray } from "./json-array-reader";
import { readNdjson } from "./ndjson-reader";
import type { ImportCounts, ImportProgress } from "./progress";
import { RejectsWriter } from "./rejects";
import {
  classifyFailure,
  type EventsBulkClient,
  SEND_RETRY_DEFAULTS,
  type SendRetryEvent,
  sendBatch,
  type WireHooks,
} from "./sender";
import {
  formatFromExtension,
  INPUT_FORMATS,
  type InputFormat,
  openInput,
  peek,
  type Reader,
  type SourceChunk,
  sniffFormat,
} from "./source";
import { validateItem } from "./validate";

/** Largest number of batches in flight at once. */
export const MAX_CONCURRENCY = 16;
/** Default number of batches in flight at once. */
export const DEFAULT_CONCURRENCY = 4;
/** Largest byte cap on one request body. */
export const MAX_MAX_BATCH_BYTES = 16 * 1024 * 1024;

const fn = <T>(name: string) => z.custom<T>((v) => typeof v === "function", `${name} must be a function`);
const int = (name: string, min: number, max: number) =>
  z
    .number({ error: `${name} must be a number` })
    .refine(
      (n) => Number.isInteger(n) && n >= min && n <= max,
      `${name} must be a whole number from ${min} to ${max}`,
    );

const batchList = (name: string) =>
  z
    .array(
      z
        .number({ error: `${name} must list batch numbers` })
        .refine((n) => Number.isInteger(n) && n >= 0, `${name} must list whole batch numbers from 0`),
      { error: `${name} must be an array of batch numbers` },
    )
    .default([]);

/** Options of {@link importEvents}. */
export const ImportOptions = z.object({
  /** Path of the events file, or `-` for standard input. */
  input: z
    .string({ error: "input must be a file path or '-' for standard input" })
    .min(1, "input must not be empty"),
  /** Input format; default from the extension (`.ndjson`/`.jsonl`, `.csv`), else sniffed (`[` → json, `{` → ndjson, else csv). */
  format: z.enum(INPUT_FORMATS, { error: `format must be one of ${INPUT_FORMATS.join(", ")}` }).optional(),
  /** Base URL of the events API (default `FLAGSTACK_EVENTS_URL`). */
  eventsUrl: z.string().optional(),
  /** Server- or client-side SDK key (default `FLAGSTACK_SDK_KEY`). */
  sdkKey: z.string().optional(),
  /** A client to send with instead of one built from `eventsUrl` and `sdkKey` (e.g. an `EventsClient`). */
  client: z
    .custom<EventsBulkClient>(
      (v) => typeof v === "object" && v !== null && typeof (v as EventsBulkClient).bulk === "function",
      "client must have a bulk(records) method",
    )
    .optional(),
  /** Records per request (1-5000). Default 1000, or the journal's when resuming. */
  batchSize: int("batchSize", 1, MAX_BATCH_SIZE).optional(),
  /** Byte cap of one request body. Default 4 MiB, or the journal's when resuming. */
  maxBatchBytes: int("maxBatchBytes", MIN_MAX_BATCH_BYTES, MAX_MAX_BATCH_BYTES).optional(),
  /** Batches in flight at once (1-16, default 4). */
  concurrency: int("concurrency", 1, MAX_CONCURRENCY).default(DEFAULT_CONCURRENCY),
  /** Client-side request rate limit (default: the SDK's; `Infinity` for none). */
  requestsPerSecond: z
    .custom<number>(
      (v) => typeof v === "number" && v > 0,
      "requestsPerSecond must be a number greater than 0",
    )
    .optional(),
  /**
   * Journal path; default `<input>.import-journal` for a file, none for standard input. `false`
   * disables it (the import then cannot resume).
   */
  journal: z.union([z.string().min(1, "journal must not be empty"), z.literal(false)]).optional(),
  /** fsync the journal (default true). Turn off only for throwaway imports. */
  syncJournal: z.boolean().default(true),
  /** Rejects file; default `<input>.rejects.ndjson` (`stdin.rejects.ndjson` for standard input). `false`: none. */
  rejects: z.union([z.string().min(1, "rejects must not be empty"), z.literal(false)]).optional(),
  /** Send again every batch whose outcome is unknown (those the service holds are then recorded twice). */
  resendUnknown: z.boolean().default(false),
  /**
   * Batches whose outcome is unknown to send again: the operator checked that the service lacks
   * their events. Each must be unknown in the journal.
   */
  resendBatches: batchList("resendBatches"),
  /**
   * Batches whose outcome is unknown to record as acknowledged without sending: the operator
   * checked that the service holds their events. Each must be unknown in the journal.
   */
  markAccepted: batchList("markAccepted"),
  /** Validate and count without sending (the journal is read, never written). */
  dryRun: z.boolean().default(false),
  /** Retries of a batch the service certainly did not record (429, 503, connection refused), beyond the HTTP core's. */
  maxRetries: int("maxRetries", 0, 1000).default(SEND_RETRY_DEFAULTS.maxRetries),
  /** Aborting stops sending new batches; batches in flight finish and are journaled. */
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, "signal must be an AbortSignal").optional(),
  /** Called with the progress after each chunk read and each batch settled. */
  onProgress: fn<(p: ImportProgress) => void>("onProgress").optional(),
  /** Called when a batch is settled (acked, unknown, failed) or skipped because of the journal. */
  onBatch: fn<(e: BatchEvent) => void>("onBatch").optional(),
  /** Called before an importer-level retry of a batch. */
  onRetry: fn<(e: SendRetryEvent) => void>("onRetry").optional(),
  /** What `-` reads (default `process.stdin`). */
  stdin: z
    .custom<Readable>((v) => typeof v === "object" && v !== null, "stdin must be a readable stream")
    .optional(),
  /** Environment for the URL and key fallbacks (default `process.env`). */
  env: z.record(z.string(), z.string().optional()).optional(),
});
/** Options of {@link importEvents}; see {@link ImportOptions}. */
export type ImportOptionsInput = z.input<typeof ImportOptions>;

/** Where a batch ended up. */
export type BatchOutcome = "acked" | "unknown" | "failed" | "skipped-acked" | "skipped-unknown";

/** A batch and where it ended up (`onBatch`). */
export interface BatchEvent {
  batch: number;
  firstLine: number;
  lastLine: number;
  count: number;
  outcome: BatchOutcome;
  error?: string | undefined;
}

/** A batch listed in the summary. */
export interface BatchRef {
  batch: number;
  firstLine: number;
  lastLine: number;
  count: number;
  error?: string | undefined;
}

/** What an import did. Counts are records unless they say batches. */
export interface ImportSummary extends ImportCounts {
  /** The input path, or `-`. */
  input: string;
  format: InputFormat;
  journal: string | undefined;
  /** The rejects file, when one was written (there were invalid records). */
  rejectsFile: string | undefined;
  batchSize: number;
  maxBatchBytes: number;
  /** Records read that are valid. */
  valid: number;
  batches: {
    total: number;
    sent: number;
    accepted: number;
    alreadyAccepted: number;
    unknown: number;
    failed: number;
  };
  unknownBatches: BatchRef[];
  failedBatches: BatchRef[];
  dryRun: boolean;
  /** Stopped by the signal (Ctrl-C) before the end of the input. */
  interrupted: boolean;
  /** Every valid record is acknowledged, now or by an earlier run. */
  complete: boolean;
  elapsedMs: number;
}

/** The import stopped on an error; `summary` says what was done until then. */
export class ImportError extends Error {
  constructor(
    message: string,
    readonly summary: ImportSummary,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ImportError";
  }
}

const READERS: Record<InputFormat, Reader> = { ndjson: readNdjson, json: readJsonArray, csv: readCsv };

/**
 * Imports an events file; see the module comment.
 * @throws ConfigurationError for bad options (naming the option), JournalError when the journal
 *   does not match the input or settings, ImportError (with the summary so far) when the import
 *   stops on an error.
 * @example
 * const summary = await importEvents({ input: "events.ndjson", eventsUrl, sdkKey });
 * console.log(`${summary.accepted} accepted, ${summary.rejected} rejected`);
 */
export async function importEvents(options: ImportOptionsInput): Promise<ImportSummary> {
  const o = parseOptions(ImportOptions, options, "importEvents");
  const started = performance.now();
  const own =
    o.dryRun || o.client
      ? undefined
      : createBulkClient({
          eventsUrl: o.eventsUrl,
          sdkKey: o.sdkKey,
          requestsPerSecond: o.requestsPerSecond,
          maxConcurrent: o.concurrency,
          ...(o.env ? { env: o.env } : {}),
        });
  const client: EventsBulkClient | undefined = o.client ?? own;

  const opened = await openInput(o.input, o.stdin);
  const isStdin = opened.name === "-";
  let journal: Journal | undefined;
  let rejects: RejectsWriter | undefined;
  let closeInput = (): void => {
    opened.stream.destroy();
  };
  try {
    const { head, chunks } = await peek(opened.stream);
    closeInput = () => {
      void (chunks as AsyncGenerator<Buffer>).return?.(undefined);
      opened.stream.destroy();
    };
    const format = o.format ?? (isStdin ? undefined : formatFromExtension(opened.name)) ?? sniffFormat(head);

    const journalPath =
      o.journal === false
        ? undefined
        : (o.journal ?? (isStdin ? undefined : `${opened.name}.import-journal`));
    const previous = journalPath ? await readJournal(journalPath) : undefined;
    const resuming = previous !== undefined && previous.batches.size > 0;
    const batchSize = o.batchSize ?? (resuming ? previous.header.batchSize : DEFAULT_BATCH_SIZE);
    const maxBatchBytes =
      o.maxBatchBytes ?? (resuming ? previous.header.maxBatchBytes : DEFAULT_MAX_BATCH_BYTES);
    const header: JournalHeader = {
      journal: JOURNAL_KIND,
      version: 1,
      input: isStdin ? "-" : resolve(opened.name),
      format,
      batchSize,
      maxBatchBytes,
      fingerprint: isStdin || opened.size === undefined ? null : await fingerprintFile(opened.name),
      createdAt: new Date().toISOString(),
    };
    if (journalPath && resuming) checkCompatible(journalPath, previous.header, header);
    // What earlier runs recorded; this run's own entries do not change the decisions below.
    const before = resuming ? new Map(previous.batches) : new Map<number, JournalEntry>();
    checkResolutions(o, before, journalPath);
    if (journalPath && !o.dryRun) journal = await Journal.open(journalPath, header, { sync: o.syncJournal });
    // The operator checked that the service holds these: on disk at once, so a crash later in
    // this run cannot lose the decision.
    for (const batch of o.markAccepted) {
      const entry: JournalEntry = {
        ...before.get(batch)!,
        status: "acked",
        at: new Date().toISOString(),
        by: "operator",
      };
      delete entry.error;
      before.set(batch, entry);
      await journal?.append(entry);
    }

    const rejectsPath =
      o.rejects === false
        ? undefined
        : (o.rejects ?? (isStdin ? "stdin.rejects.ndjson" : `${opened.name}.rejects.ndjson`));
    if (rejectsPath) {
      rejects = new RejectsWriter(rejectsPath);
      await rejects.reset();
    }

    const run = new Run(o, client, journal, before, rejects, opened.size, started);
    const summaryBase = { input: opened.name, format, journal: journalPath, batchSize, maxBatchBytes };
    try {
      await run.consume(READERS[format](chunks), new Batcher(batchSize, maxBatchBytes));
    } catch (e) {
      await run.drain();
      await rejects?.close();
      const summary = run.summary(summaryBase, rejects);
      if (e instanceof JournalError || e instanceof ImportError) throw Object.assign(e, { summary });
      throw new ImportError(`event import stopped: ${(e as Error).message}`, summary, { cause: e });
    }
    await run.drain();
    await rejects?.close();
    const summary = run.summary(summaryBase, rejects);
    if (run.fatal) {
      throw new ImportError(`event import stopped: ${errorText(run.fatal)}`, summary, { cause: run.fatal });
    }
    return summary;
  } finally {
    closeInput();
    await journal?.close();
    await own?.close();
  }
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

const isUnknown = (e: JournalEntry | undefined): boolean => e?.status === "sent" || e?.status === "unknown";

/**
 * Refuses `resendBatches` and `markAccepted` entries that do not name a batch whose outcome the
 * journal leaves unknown: resending anything else could duplicate events, and marking anything
 * else could skip events the service never got.
 */
function checkResolutions(
  o: z.output<typeof ImportOptions>,
  before: Map<number, JournalEntry>,
  journalPath: string | undefined,
): void {
  const both = o.resendBatches.filter((b) => o.markAccepted.includes(b));
  if (both.length > 0) {
    throw new ConfigurationError(
      "resendBatches",
      undefined,
      `importEvents: invalid option resendBatches: batch ${both[0]} is also in markAccepted; the service either holds its events or lacks them`,
    );
  }
  for (const option of ["resendBatches", "markAccepted"] as const) {
    for (const batch of o[option]) {
      const prev = before.get(batch);
      if (isUnknown(prev)) continue;
      const state = prev
        ? `its last journal entry is ${prev.status}`
        : journalPath
          ? "the journal has no entry for it"
          : "there is no journal";
      throw new ConfigurationError(
        option,
        undefined,
        `importEvents: invalid option ${option}: batch ${batch} is not a batch whose outcome is unknown (${state}); nothing was sent`,
      );
    }
  }
}

/** The state of one import run. */
class Run {
  readonly counts = {
    read: 0,
    valid: 0,
    rejected: 0,
    sent: 0,
    accepted: 0,
    alreadyAccepted: 0,
    unknown: 0,
    failed: 0,
  };
  readonly batches = { total: 0, sent: 0, accepted: 0, alreadyAccepted: 0, unknown: 0, failed: 0 };
  readonly unknownBatches: BatchRef[] = [];
  readonly failedBatches: BatchRef[] = [];
  private readonly inflight = new Set<Promise<void>>();
  private bytesRead = 0;
  /** Set when the import must stop sending (abort or fatal error). */
  private stopping = false;
  interrupted = false;
  fatal: unknown;

  constructor(
    private readonly o: z.output<typeof ImportOptions>,
    private readonly client: EventsBulkClient | undefined,
    private readonly journal: Journal | undefined,
    private readonly before: Map<number, JournalEntry>,
    private readonly rejects: RejectsWriter | undefined,
    private readonly totalBytes: number | undefined,
    private readonly started: number,
  ) {}

  async consume(source: AsyncGenerator<SourceChunk>, batcher: Batcher): Promise<void> {
    const counts = this.counts;
    const rejects = this.rejects;
    try {
      outer: for await (const chunk of source) {
        for (const item of chunk.items) {
          counts.read++;
          const v = validateItem(item);
          if (!v.ok) {
            counts.rejected++;
            if (rejects) await rejects.write(v);
            continue;
          }
          counts.valid++;
          const b = batcher.add(v.line, v.record, v.json);
          if (b) {
            await this.dispatch(b);
            if (this.stopping) break outer;
          }
        }
        this.bytesRead = chunk.bytesRead;
        this.progress();
        if (this.checkStop()) break;
      }
    } finally {
      // Stops the read (and closes the file) when leaving early.
      await source.return(undefined);
    }
    if (!this.stopping) {
      const b = batcher.flush();
      if (b) await this.dispatch(b);
    }
  }

  private checkStop(): boolean {
    if (this.o.signal?.aborted && !this.stopping) {
      this.stopping = true;
      this.interrupted = true;
    }
    return this.stopping;
  }

  private async dispatch(b: Batch): Promise<void> {
    this.batches.total++;
    const prev = this.before.get(b.index);
    const ref: BatchRef = { batch: b.index, firstLine: b.firstLine, lastLine: b.lastLine, count: b.count };
    if (prev) {
      if (prev.hash !== b.hash || prev.count !== b.count || prev.firstLine !== b.firstLine) {
        throw new JournalError(
          `Batch ${b.index} (lines ${b.firstLine}-${b.lastLine}) is not the batch ${b.index} the journal ${this.journal?.path ?? ""} ` +
            `recorded (lines ${prev.firstLine}-${prev.lastLine}, ${prev.count} records, status ${prev.status}): the input changed ` +
            "since that run. Nothing more was sent. To import new or corrected records, put them in a new file.",
          this.journal?.path ?? "",
        );
      }
      if (prev.status === "acked") {
        this.counts.alreadyAccepted += b.count;
        this.batches.alreadyAccepted++;
        this.o.onBatch?.({ ...ref, outcome: "skipped-acked" });
        return;
      }
      if (isUnknown(prev)) {
        if (!this.o.resendUnknown && !this.o.resendBatches.includes(b.index)) {
          const error = prev.error ?? "the earlier run stopped while this batch was in flight";
          this.counts.unknown += b.count;
          this.batches.unknown++;
          this.unknownBatches.push({ ...ref, error });
          this.o.onBatch?.({ ...ref, outcome: "skipped-unknown", error });
          return;
        }
      }
    }
    if (this.o.dryRun || !this.client) return;
    if (this.checkStop()) return;
    while (this.inflight.size >= this.o.concurrency) await Promise.race(this.inflight);
    if (this.checkStop()) return;
    const p: Promise<void> = this.send(b, ref)
      .catch((e) => {
        this.fatal ??= e;
        this.stopping = true;
      })
      .finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  private async send(b: Batch, ref: BatchRef): Promise<void> {
    const at = () => new Date().toISOString();
    const entry = {
      batch: b.index,
      firstLine: b.firstLine,
      lastLine: b.lastLine,
      count: b.count,
      hash: b.hash,
    };
    // A journal that cannot be written stops the import: the hooks below must not let a request
    // leave without its entry, and the failure must not pass for the service's.
    let journalFailure: { error: unknown } | undefined;
    const note = async (e: JournalEntry): Promise<void> => {
      try {
        await this.journal?.append(e);
      } catch (error) {
        journalFailure ??= { error };
        throw error;
      }
    };
    let counted = false;
    const hooks: WireHooks = {
      // The intent is on disk before the request is written: a crash from here on leaves "sent"
      // without an outcome, which the next run reports as unknown instead of sending again.
      beforeWrite: async () => {
        await note({ ...entry, status: "sent", at: at() });
        if (counted) return;
        counted = true;
        this.counts.sent += b.count;
        this.batches.sent++;
      },
      notRecorded: (error) => note({ ...entry, status: "refused", at: at(), error }),
    };
    const client = this.client!;
    // A client that cannot say when it writes: the intent goes first, before any wait.
    if (!client.callsWireHooks) await hooks.beforeWrite();
    try {
      await sendBatch(
        client,
        b,
        { ...SEND_RETRY_DEFAULTS, maxRetries: this.o.maxRetries },
        this.o.signal,
        this.o.onRetry,
        hooks,
      );
    } catch (e) {
      if (journalFailure) throw journalFailure.error;
      const kind = classifyFailure(e);
      const error = errorText(e);
      if (kind === "unknown") {
        await this.journal?.append({ ...entry, status: "unknown", at: at(), error });
        this.counts.unknown += b.count;
        this.batches.unknown++;
        this.unknownBatches.push({ ...ref, error });
        this.o.onBatch?.({ ...ref, outcome: "unknown", error });
      } else {
        await this.journal?.append({ ...entry, status: "failed", at: at(), error });
        this.counts.failed += b.count;
        this.batches.failed++;
        this.failedBatches.push({ ...ref, error });
        this.o.onBatch?.({ ...ref, outcome: "failed", error });
        // A wrong key fails every batch, and a service that stays unavailable past the retries
        // would too: stop, and let a re-run resume.
        if (kind === "fatal" || (kind === "retry" && !this.o.signal?.aborted)) throw e;
      }
      this.progress();
      return;
    }
    await this.journal?.append({ ...entry, status: "acked", at: at() });
    this.counts.accepted += b.count;
    this.batches.accepted++;
    this.o.onBatch?.({ ...ref, outcome: "acked" });
    this.progress();
  }

  /** Waits for the batches in flight. */
  async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  snapshot(): ImportProgress {
    const { valid: _, ...counts } = this.counts;
    return {
      bytesRead: this.bytesRead,
      totalBytes: this.totalBytes,
      ...counts,
      elapsedMs: performance.now() - this.started,
    };
  }

  private progress(): void {
    this.o.onProgress?.(this.snapshot());
  }

  summary(
    base: Pick<ImportSummary, "input" | "format" | "journal" | "batchSize" | "maxBatchBytes">,
    rejects: RejectsWriter | undefined,
  ): ImportSummary {
    this.progress();
    const c = this.counts;
    const complete =
      !this.interrupted &&
      this.fatal === undefined &&
      c.unknown === 0 &&
      c.failed === 0 &&
      c.accepted + c.alreadyAccepted === c.valid;
    return {
      ...base,
      rejectsFile: rejects && rejects.count > 0 ? rejects.path : undefined,
      ...c,
      batches: { ...this.batches },
      unknownBatches: this.unknownBatches,
      failedBatches: this.failedBatches,
      dryRun: this.o.dryRun,
      interrupted: this.interrupted,
      complete: !this.o.dryRun && complete,
      elapsedMs: Math.round(performance.now() - this.started),
    };
  }
}
