/**
 * The rejects file: one NDJSON line per refused record, `{"line":12,"reason":"...","record":...}`,
 * in input order. Every run re-reads the whole input, so the file is rewritten from scratch and
 * always lists every invalid record of the input exactly once, resumed or not.
 * @module
 */

import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import type { RejectedRecord } from "./validate";

/** Writes rejected records; the file is created on the first one. */
export class RejectsWriter {
  private out: WriteStream | undefined;
  private failed: Error | undefined;
  /** Number of records written. */
  count = 0;

  constructor(readonly path: string) {}

  /** Removes a rejects file left by an earlier run of the same import, so no stale line survives. */
  async reset(): Promise<void> {
    const st = await stat(this.path).catch(() => undefined);
    if (st?.isFile()) await rm(this.path);
  }

  /** Writes one record; resolves at once unless the file's buffer is full (backpressure). */
  async write(r: RejectedRecord): Promise<void> {
    if (this.failed) throw this.failed;
    if (!this.out) {
      this.out = createWriteStream(this.path, { flags: "w" });
      this.out.on("error", (e) => {
        this.failed = e;
      });
    }
    this.count++;
    const ok = this.out.write(
      `${JSON.stringify({ line: r.line, reason: r.reason, record: r.record ?? null })}\n`,
    );
    if (!ok) await once(this.out, "drain");
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    const out = this.out;
    if (!out) return;
    this.out = undefined;
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    if (this.failed) throw this.failed;
  }
}
