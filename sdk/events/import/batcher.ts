/**
 * Cuts the stream of valid records into request batches.
 *
 * Batches are deterministic: they depend only on the sequence of valid records, the batch size and
 * the byte cap, so re-reading the same file with the same settings yields the same batches (same
 * index, same lines, same bytes, same hash). That is what lets the journal say "batch 7 was
 * acknowledged" and a later run skip exactly those records.
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import type { EventRecord } from "../schemas";

/** The largest number of records in one request the importer allows. */
export const MAX_BATCH_SIZE = 5000;
/** Default records per request (the SDK's own queue flushes at 500; bulk import can do more). */
export const DEFAULT_BATCH_SIZE = 1000;
/**
 * Default cap on one request body. The service does not publish a body limit (spec §8: "Maximum
 * records per request: not shown"); 4 MiB stays well inside the usual 5-10 MiB gateway limits and
 * still holds 1000 typical events many times over.
 */
export const DEFAULT_MAX_BATCH_BYTES = 4 * 1024 * 1024;
/** The smallest byte cap: one event may be 32 KiB (ref admin-api-behaviour §6), plus the brackets. */
export const MIN_MAX_BATCH_BYTES = 32 * 1024 + 2;

/** One request's worth of records. */
export interface Batch {
  /** 0-based position of the batch in the input. */
  index: number;
  /** Line of the first and of the last record in the batch. */
  firstLine: number;
  lastLine: number;
  count: number;
  /** The records; the request body is `JSON.stringify(records)`. */
  records: EventRecord[];
  /** Size in bytes of the request body. */
  bytes: number;
  /** sha256 (hex) of the request body: proves on resume that batch N is the same batch N. */
  hash: string;
}

/**
 * Accumulates records and hands out full batches. The body's hash is computed as records arrive
 * (`[` + the records' JSON joined by `,` + `]` is exactly `JSON.stringify(records)`), so no
 * record's text outlives its `add` call.
 */
export class Batcher {
  private records: EventRecord[] = [];
  private hash: Hash | undefined;
  private bytes = 2;
  private firstLine = 0;
  private lastLine = 0;
  private next = 0;

  constructor(
    readonly batchSize: number,
    readonly maxBatchBytes: number,
  ) {}

  /** Adds a record (`json` is `JSON.stringify(record)`); returns the batch it closed, if it closed one. */
  add(line: number, record: EventRecord, json: string): Batch | undefined {
    const bytes = Buffer.byteLength(json);
    let closed: Batch | undefined;
    // +1 for the comma before every record but the first.
    if (this.records.length > 0 && this.bytes + 1 + bytes > this.maxBatchBytes) closed = this.flush();
    if (this.records.length === 0) {
      this.firstLine = line;
      this.bytes = 2 + bytes;
      this.hash = createHash("sha256").update("[");
    } else {
      this.bytes += 1 + bytes;
      this.hash!.update(",");
    }
    this.hash!.update(json);
    this.records.push(record);
    this.lastLine = line;
    // A byte-cap flush leaves one record pending, which fills a batch only when batchSize is 1,
    // and then nothing was pending to flush by bytes: so at most one batch closes per record.
    if (this.records.length >= this.batchSize) return this.flush();
    return closed;
  }

  /** Closes the current batch, if it holds any record. */
  flush(): Batch | undefined {
    if (this.records.length === 0) return undefined;
    const batch: Batch = {
      index: this.next++,
      firstLine: this.firstLine,
      lastLine: this.lastLine,
      count: this.records.length,
      records: this.records,
      bytes: this.bytes,
      hash: this.hash!.update("]").digest("hex"),
    };
    this.records = [];
    this.hash = undefined;
    this.bytes = 2;
    return batch;
  }
}
