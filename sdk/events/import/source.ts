/**
 * What the three readers (NDJSON, JSON array, CSV) produce, and how an input is opened and its
 * format chosen.
 *
 * Readers are async generators of *chunks* of items rather than of single items: one `await` per
 * 64 KiB read instead of one per record keeps the per-record cost of a million-event import low,
 * and pulling from the generator is what reads the file, so a slow consumer pauses the read
 * (backpressure) and memory stays flat whatever the size of the input.
 * @module
 */
import { open } from "node:fs/promises";
import { extname } from "node:path";
import type { Readable } from "node:stream";

/** The input formats the importer reads. */
export const INPUT_FORMATS = ["ndjson", "json", "csv"] as const;
/** One of {@link INPUT_FORMATS}. */
export type InputFormat = (typeof INPUT_FORMATS)[number];

/**
 * One record as read from the input, before validation: the parsed value, or why it could not be
 * parsed. `line` is the 1-based line the record starts on (CSV: the line it ends on, which is the
 * same line unless a quoted field spans lines).
 */
export type SourceItem =
  | { line: number; value: unknown }
  | {
      line: number;
      /** Why the record could not be read, e.g. `invalid JSON: Unexpected token ...`. */
      error: string;
      /** What was read: the raw text, or for CSV the row keyed by column. */
      record: unknown;
    };

/** A chunk of items, with the number of input bytes consumed so far (for progress and ETA). */
export interface SourceChunk {
  items: SourceItem[];
  bytesRead: number;
}

/** A reader turns a byte stream into chunks of items. */
export type Reader = (input: AsyncIterable<Buffer>) => AsyncGenerator<SourceChunk, void, undefined>;

/**
 * A record's text longer than this is refused without being buffered further: an event is at most
 * 32 KiB (ref admin-api-behaviour §6), so a longer "record" is a corrupt input (e.g. a missing
 * newline), and refusing it keeps memory flat.
 */
export const MAX_RECORD_TEXT_BYTES = 1024 * 1024;

/** A structural error that stops the read (e.g. a JSON array that is never closed). */
export class InputFormatError extends Error {
  readonly line: number;
  constructor(message: string, line: number) {
    super(`line ${line}: ${message}`);
    this.name = "InputFormatError";
    this.line = line;
  }
}

/** Bytes read per chunk from a file: large enough to amortise the per-chunk await. */
export const READ_CHUNK_BYTES = 256 * 1024;

/** An opened input: its byte stream, and its size when known (a regular file). */
export interface OpenedInput {
  stream: Readable;
  /** Size in bytes of a regular file; undefined for standard input and pipes. */
  size: number | undefined;
  /** The path, or `-` for standard input. */
  name: string;
}

/**
 * Opens `path` (`-` for `stdin`) for reading. Files are opened once and read through that
 * descriptor, so the size reported is the size of what is read.
 */
export async function openInput(path: string, stdin: Readable = process.stdin): Promise<OpenedInput> {
  if (path === "-") return { stream: stdin, size: undefined, name: "-" };
  const fh = await open(path, "r");
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new Error(`${path} is a directory, not an events file`);
    const stream = fh.createReadStream({ autoClose: true, highWaterMark: READ_CHUNK_BYTES });
    return { stream, size: st.isFile() ? st.size : undefined, name: path };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** The format implied by a file name's extension, if any. */
export function formatFromExtension(path: string): InputFormat | undefined {
  switch (extname(path).toLowerCase()) {
    case ".ndjson":
    case ".jsonl":
    case ".ldjson":
      return "ndjson";
    case ".csv":
      return "csv";
    default:
      return undefined;
  }
}

/**
 * The format of an input from its first bytes: `[` is a JSON array, `{` one JSON object per line,
 * anything else CSV. A `.json` file may hold either an array or NDJSON, so it is sniffed too.
 */
export function sniffFormat(head: Buffer): InputFormat {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  for (; i < head.length; i++) {
    const c = head[i]!;
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c === 0x5b) return "json";
    if (c === 0x7b) return "ndjson";
    return "csv";
  }
  return "ndjson";
}

/**
 * Reads from `stream` until at least `min` non-blank bytes (or the end) were seen, and returns an
 * async iterable that yields those bytes first and then the rest of the stream. Used to sniff the
 * format of standard input without losing what was read.
 */
export async function peek(
  stream: Readable,
  min = 64,
): Promise<{ head: Buffer; chunks: AsyncIterable<Buffer> }> {
  const it = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const seen: Buffer[] = [];
  let total = 0;
  let done = false;
  while (total < min) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    const b = typeof r.value === "string" ? Buffer.from(r.value) : r.value;
    seen.push(b);
    total += b.length;
    if (/[^\s\uFEFF]/.test(b.toString("latin1"))) break;
  }
  const head = Buffer.concat(seen);
  async function* rest(): AsyncGenerator<Buffer> {
    try {
      for (const b of seen) yield b;
      if (done) return;
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        yield typeof r.value === "string" ? Buffer.from(r.value) : r.value;
      }
    } finally {
      // Stops the underlying stream when the consumer stops early (break, error, Ctrl-C).
      if (!done) await it.return?.();
    }
  }
  return { head, chunks: rest() };
}
