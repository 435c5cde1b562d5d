/**
 * The import journal: an append-only NDJSON file beside the input that records, for each batch,
 * what the service may hold. The bulk endpoint is not idempotent (spec §4), so this file is the
 * only memory of what the service already has, and each status is written (and fsync'd) before the
 * step it announces can happen:
 * - `sent`: the request is about to be written to the socket. Written after the rate limiter
 *   admitted it and after every other client-side wait (the pause a 429 asked for, a backoff),
 *   again before each attempt, so a batch that is only waiting is never `sent`.
 * - `refused`: the last attempt certainly left nothing behind (429, 503, a connection refused
 *   before sending); the batch waits to be tried again.
 * - `acked` after the 202; `unknown` when the outcome cannot be known (the connection dropped after
 *   sending, a timeout, a 500/502/504); `failed` when the service refused the batch (another 4xx).
 *
 * What a later run makes of the last entry of each batch:
 * - `acked`: never sent again;
 * - `sent` (the process died with the request on the wire, or just about to write it) or
 *   `unknown`: the events may or may not be recorded; reported with the batch's lines, and sent
 *   again only when asked (`resendBatches`, `resendUnknown`), or recorded as acknowledged when the
 *   operator says the service holds them (`markAccepted`);
 * - `refused`, `failed` or absent: sent.
 * As at most `concurrency` requests are admitted at once, a crash leaves at most that many batches
 * `sent`.
 *
 * The first line is a header with the settings that determine the batches (format, batch size,
 * byte cap) and a fingerprint of the input; a later run with other settings or a changed input is
 * refused, because its batch N would not be the journal's batch N. Each batch entry also carries
 * the sha256 of the batch body, checked again when the batch is re-read.
 *
 * A lock file (`<journal>.lock`, holding the pid) keeps two imports from using one journal.
 * @module
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open, readFile, rm } from "node:fs/promises";
import { z } from "zod";
import { processAlive as isAlive } from "../../core/process";
import { INPUT_FORMATS } from "./source";

/** Value of the header's `journal` field. */
export const JOURNAL_KIND = "flagstack-events-import";

/** First line of a journal. */
export const JournalHeader = z.object({
  journal: z.literal(JOURNAL_KIND),
  version: z.literal(1),
  /** The input's absolute path, or `-` for standard input. */
  input: z.string(),
  format: z.enum(INPUT_FORMATS),
  batchSize: z.number().int().positive(),
  maxBatchBytes: z.number().int().positive(),
  /** Size and sampled hash of the input file; null for standard input. */
  fingerprint: z.object({ size: z.number().int().nonnegative(), sha256: z.string() }).nullable(),
  createdAt: z.string(),
});
export type JournalHeader = z.infer<typeof JournalHeader>;

/** Status of a batch in the journal. */
export const BatchStatus = z.enum(["sent", "refused", "acked", "unknown", "failed"]);
export type BatchStatus = z.infer<typeof BatchStatus>;

/** One batch line of a journal. */
export const JournalEntry = z.object({
  batch: z.number().int().nonnegative(),
  firstLine: z.number().int().nonnegative(),
  lastLine: z.number().int().nonnegative(),
  count: z.number().int().positive(),
  status: BatchStatus,
  /** sha256 (hex) of the batch's request body. */
  hash: z.string(),
  at: z.string().optional(),
  /** Why a batch failed, was refused, or its outcome is unknown. */
  error: z.string().optional(),
  /** Who decided an entry the service did not answer for: `operator` for `markAccepted`. */
  by: z.literal("operator").optional(),
});
export type JournalEntry = z.infer<typeof JournalEntry>;

/** The journal cannot be used for this run (other settings, changed input, corrupt, locked). */
export class JournalError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "JournalError";
  }
}

const SAMPLE_BYTES = 1024 * 1024;

/**
 * Fingerprint of an input file: its size and the sha256 of its first and last MiB. It catches a
 * replaced, truncated, appended or re-exported file before anything is sent; the per-batch hashes
 * then verify every journaled batch byte for byte as it is re-read.
 */
export async function fingerprintFile(path: string): Promise<{ size: number; sha256: string }> {
  const fh = await open(path, "r");
  try {
    const { size } = await fh.stat();
    const hash = createHash("sha256");
    hash.update(`${size}:`);
    const head = Buffer.alloc(Math.min(size, SAMPLE_BYTES));
    await readFully(fh, head, 0);
    hash.update(head);
    if (size > SAMPLE_BYTES) {
      const tailStart = Math.max(SAMPLE_BYTES, size - SAMPLE_BYTES);
      const tail = Buffer.alloc(size - tailStart);
      await readFully(fh, tail, tailStart);
      hash.update(tail);
    }
    return { size, sha256: hash.digest("hex") };
  } finally {
    await fh.close();
  }
}

async function readFully(fh: FileHandle, buf: Buffer, position: number): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesRead } = await fh.read(buf, off, buf.length - off, position + off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
}

/** What a journal file says, read without changing it. */
export interface JournalContents {
  header: JournalHeader;
  /** The last entry of each batch. */
  batches: Map<number, JournalEntry>;
  /** Whether the file ends in a partly written line (the process died while writing it). */
  tornTail: boolean;
  /** Bytes up to the end of the last complete line. */
  completeBytes: number;
}

/** Reads a journal; undefined when the file does not exist. */
export async function readJournal(path: string): Promise<JournalContents | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  const lines = text.split("\n");
  const endsClean = text.endsWith("\n");
  if (endsClean) lines.pop();
  let header: JournalHeader | undefined;
  const batches = new Map<number, JournalEntry>();
  let tornTail = false;
  for (let i = 0; i < lines.length; i++) {
    const last = i === lines.length - 1;
    let parsed: unknown;
    try {
      parsed = JSON.parse(lines[i]!);
    } catch {
      if (last && !endsClean) {
        tornTail = true;
        break;
      }
      throw new JournalError(`${path}: line ${i + 1} is not valid JSON; the journal is corrupt`, path);
    }
    if (i === 0) {
      const h = JournalHeader.safeParse(parsed);
      if (!h.success) {
        if (last && !endsClean) {
          tornTail = true;
          break;
        }
        throw new JournalError(
          `${path} is not an event import journal (its first line is not a journal header)`,
          path,
        );
      }
      header = h.data;
      continue;
    }
    const e = JournalEntry.safeParse(parsed);
    if (!e.success)
      throw new JournalError(`${path}: line ${i + 1} is not a journal entry; the journal is corrupt`, path);
    batches.set(e.data.batch, e.data);
  }
  if (!header) {
    // Nothing but (part of) a header was ever written: no batch was sent.
    return undefined;
  }
  const completeBytes = Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1));
  return { header, batches, tornTail, completeBytes };
}

/** An open journal that this process appends to (holding its lock). */
export class Journal {
  private pending: { text: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    readonly path: string,
    readonly header: JournalHeader,
    /** The last entry of each batch, as loaded and as appended since. */
    readonly batches: Map<number, JournalEntry>,
    private readonly fh: FileHandle,
    private readonly lockPath: string,
    private readonly sync: boolean,
  ) {}

  /**
   * Opens `path` for this run: creates it with `header`, or checks that the existing journal was
   * written for the same input and settings (a journal that holds no batch yet is simply
   * restarted). `sync: false` skips fsync (tests, throwaway imports).
   */
  static async open(path: string, header: JournalHeader, opts: { sync?: boolean } = {}): Promise<Journal> {
    const lockPath = `${path}.lock`;
    await acquireLock(lockPath, path);
    try {
      const existing = await readJournal(path);
      let batches = new Map<number, JournalEntry>();
      let fh: FileHandle;
      if (existing && existing.batches.size > 0) {
        checkCompatible(path, existing.header, header);
        batches = existing.batches;
        fh = await open(path, "a");
        // A line torn by a crash is cut off, so the next entry starts on a line of its own.
        if (existing.tornTail) await fh.truncate(existing.completeBytes);
        header = existing.header;
      } else {
        fh = await open(path, "w");
        await fh.write(`${JSON.stringify(header)}\n`);
      }
      const j = new Journal(path, header, batches, fh, lockPath, opts.sync ?? true);
      if (j.sync) await fh.sync();
      return j;
    } catch (e) {
      await releaseLock(lockPath);
      throw e;
    }
  }

  /**
   * Appends an entry. The promise resolves once the entry is on disk (fsync'd): concurrent calls
   * share one write and one fsync (group commit), so a journal entry per batch stays cheap.
   */
  append(entry: JournalEntry): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.path} is closed`));
    this.batches.set(entry.batch, entry);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ text: `${JSON.stringify(entry)}\n`, resolve, reject });
      this.flushing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending;
      this.pending = [];
      try {
        await this.fh.write(group.map((g) => g.text).join(""));
        if (this.sync) await this.fh.datasync();
        for (const g of group) g.resolve();
      } catch (e) {
        for (const g of group) g.reject(e);
      }
    }
    this.flushing = undefined;
  }

  /** Waits for pending entries, closes the file and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.flushing) await this.flushing;
    this.closed = true;
    await this.fh.close();
    await releaseLock(this.lockPath);
  }
}

/** Refuses a journal whose batches would not be this run's batches. */
export function checkCompatible(path: string, was: JournalHeader, now: JournalHeader): void {
  const restart =
    "Resuming could skip records that were never sent or send acknowledged ones again, so nothing was sent. " +
    `To start over, move ${path} away (batches it lists as acknowledged would then be sent again).`;
  if (was.input !== now.input) {
    throw new JournalError(
      `The journal ${path} belongs to the input ${was.input}, not ${now.input}. ${restart}`,
      path,
    );
  }
  const settings: string[] = [];
  if (was.format !== now.format) settings.push(`--format ${was.format} (this run: ${now.format})`);
  if (was.batchSize !== now.batchSize)
    settings.push(`--batch-size ${was.batchSize} (this run: ${now.batchSize})`);
  if (was.maxBatchBytes !== now.maxBatchBytes) {
    settings.push(`--max-batch-bytes ${was.maxBatchBytes} (this run: ${now.maxBatchBytes})`);
  }
  if (settings.length > 0) {
    throw new JournalError(
      `The journal ${path} was written with ${settings.join(", ")}. Batches depend on these settings: ` +
        `re-run with ${settings.map((s) => s.replace(/ \(this run.*$/, "")).join(" ")} to resume. ${restart}`,
      path,
    );
  }
  const a = was.fingerprint;
  const b = now.fingerprint;
  if (a && b && (a.size !== b.size || a.sha256 !== b.sha256)) {
    const what =
      a.size !== b.size ? `its size went from ${a.size} to ${b.size} bytes` : "its content differs";
    throw new JournalError(
      `The input ${now.input} changed since the journal ${path} was written (${what}). ${restart} ` +
        "To import new or corrected records, put them in a new file.",
      path,
    );
  }
}

// Locks this process holds. A lock file naming our own pid that is not in here was left by an
// earlier process that had the same pid (common in containers, where the command is often pid 1).
const held = new Set<string>();

async function acquireLock(lockPath: string, journalPath: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(lockPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
      await fh.write(`${process.pid}\n`);
      await fh.close();
      held.add(lockPath);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const pid = Number.parseInt(await readFile(lockPath, "utf8").catch(() => ""), 10);
    const live = pid === process.pid ? held.has(lockPath) : Number.isInteger(pid) && pid > 0 && isAlive(pid);
    if (live) {
      throw new JournalError(
        `Another import (pid ${pid}) is using the journal ${journalPath}. Wait for it to finish, ` +
          `or if no such import is running, remove ${lockPath}.`,
        journalPath,
      );
    }
    // The process that held it is gone (crash, kill -9): the lock is stale.
    await rm(lockPath, { force: true });
  }
  throw new JournalError(
    `Could not lock the journal ${journalPath} (${lockPath} keeps reappearing)`,
    journalPath,
  );
}

async function releaseLock(lockPath: string): Promise<void> {
  held.delete(lockPath);
  await rm(lockPath, { force: true });
}
